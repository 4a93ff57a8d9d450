import { RateLimiterMemory } from 'rate-limiter-flexible';
import { AuthFailureLimit, type RateLimitSettings, type RateLimits } from '../http/rate-limits.js';

/** Limits counted in this process (STORAGE=memory: one instance). */
export function inMemoryRateLimits(settings: RateLimitSettings): RateLimits {
  if (settings.perMinute === 0) return {};
  return {
    perKey: { name: 'per-key', limiter: new RateLimiterMemory({ points: settings.perMinute, duration: 60 }) },
    authFailures: new AuthFailureLimit(
      'auth-failures',
      new RateLimiterMemory({ points: settings.authFailuresPerMinute, duration: 60 }),
    ),
  };
}
