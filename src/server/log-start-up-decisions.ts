import type { ApiKeysInForce } from '../config/api-keys-in-force.js';
import type { AppConfig } from '../config/config.js';
import type { Logger } from '../telemetry/logger.js';

/**
 * At LOG_LEVEL=debug: what start-up chose and why, one line per decision. Never a key, nor a storage backend's
 * settings (a connection string may hold a password).
 */
export function logStartUpDecisions(logger: Logger, config: AppConfig, keys: ApiKeysInForce): void {
  if (!logger.isLevelEnabled('debug')) return;
  for (const [fields, msg] of decisions(config, keys)) logger.debug(fields, msg);
}

type Decision = readonly [Readonly<Record<string, unknown>>, string];

function decisions(config: AppConfig, keys: ApiKeysInForce): Decision[] {
  const proxies = config.trustedProxies ?? [];
  return [
    [{ storage: config.storage }, `start-up: storage ${config.storage} (STORAGE)`],
    keys.generatedApiKey === undefined
      ? [{ apiKeys: 'configured', count: keys.apiKeys.length }, 'start-up: API keys from API_KEYS']
      : [{ apiKeys: 'generated', count: 1 }, 'start-up: no API_KEYS, one key generated for this run'],
    [{ tracing: config.tracing }, config.tracing ? 'start-up: tracing on (OTEL_* variables)' : 'start-up: tracing off (no OTEL_* variables ask for it)'],
    [{ metrics: config.metrics, metricsPort: config.metricsPort ?? null }, metricsDecision(config)],
    [{ trustedProxies: proxies }, proxies.length > 0 ? 'start-up: X-Forwarded-For believed from TRUSTED_PROXIES' : 'start-up: X-Forwarded-For ignored (no TRUSTED_PROXIES)'],
    [
      { rateLimitPerMinute: config.rateLimitPerMinute, authFailuresPerMinute: config.authFailuresPerMinute },
      config.rateLimitPerMinute === 0 ? 'start-up: rate limits off (RATE_LIMIT_PER_MINUTE=0)' : 'start-up: rate limits per key and per failing address',
    ],
    [{ corsOrigins: config.corsOrigins }, config.corsOrigins.length > 0 ? 'start-up: CORS on for CORS_ORIGINS' : 'start-up: CORS off (no CORS_ORIGINS)'],
  ];
}

function metricsDecision(config: AppConfig): string {
  if (config.metrics === 'off') return 'start-up: metrics off (METRICS)';
  return config.metricsPort === undefined ? 'start-up: /metrics on the API port' : 'start-up: /metrics on its own port (METRICS_PORT)';
}
