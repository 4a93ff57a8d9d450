import { RateLimiterMemory } from 'rate-limiter-flexible';
import { AuthFailureLimit, type RateLimits } from '../http/rate-limits.js';

export interface RateLimitSettings {
  /** Requests per API key per minute; 0 turns every limit off. */
  readonly perMinute: number;
  /** Failed authentications per client address per minute. */
  readonly authFailuresPerMinute: number;
}

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
