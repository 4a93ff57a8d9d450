import { isIP } from 'node:net';
import { z } from 'zod';
import { STORAGE_NAMES, type StorageSettings } from '../storage-backends.js';
import { integerSetting as integer } from './integer-setting.js';

// The settings: each one's type, range and default, and the variable that overrides it. load-config.ts reads them.

export const APP_ENVS = ['local', 'staging', 'production'] as const;

const DAY_MS = 24 * 3600 * 1000;

const baseUrl = z
  .url({ protocol: /^https?$/ })
  .refine((url) => new URL(url).pathname.replace(/\/$/, '').endsWith('/v1'), 'must end in /v1');

const milliseconds = integer(1, 3_600_000);

// An exact origin as browsers send it: scheme, host, optional port; no path, no wildcard.
const origin = z
  .string()
  .refine((value) => /^https?:\/\/[^/\s*]+$/.test(value) && URL.canParse(value) && new URL(value).origin === value, {
    message: 'each entry must be an origin such as https://app.example.com (no path, no trailing slash, no *)',
  });

/** An IP address or a CIDR block such as 10.0.0.0/8 or fd00::/8. */
function isAddressOrSubnet(entry: string): boolean {
  const [address, prefix, extra] = entry.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || extra !== undefined) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

/** Each setting but the storage backends' own, with the variable that overrides it (ENV_OVERRIDES). */
export const configSchema = z.strictObject({
  appEnv: z.enum(APP_ENVS),
  baseUrl,
  port: integer(0, 65535),
  host: z.string().min(1).optional(),
  // The backends registered in src/storage-backends.ts; each one's settings section is validated by load-config.ts.
  storage: z.enum(STORAGE_NAMES, { error: (issue) => `must be one of ${STORAGE_NAMES.join(', ')} (got ${JSON.stringify(issue.input)})` }),
  apiKeys: z.array(z.string().min(1)),
  rateLimitPerMinute: integer(0, 10_000_000).default(6000),
  authFailuresPerMinute: integer(1, 100_000).default(30),
  idempotencyTtlMs: integer(1000, 7 * DAY_MS).default(DAY_MS),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // Unset: pretty only for local development on a terminal (see logger.ts).
  logFormat: z.enum(['json', 'pretty']).optional(),
  metrics: z.enum(['on', 'off']).default('on'),
  // Unset: /metrics is served on the API port.
  metricsPort: integer(0, 65535).optional(),
  // Counts from the signal: the whole shutdown, grace included, ends by then.
  shutdownTimeoutMs: milliseconds.default(10_000),
  // After the signal: unready but still accepting and answering, so a load balancer can stop routing first.
  shutdownGraceMs: integer(0, 3_600_000).default(5000),
  maxHeaderBytes: integer(1024, 1024 * 1024).default(16 * 1024),
  headersTimeoutMs: milliseconds.default(10_000),
  requestTimeoutMs: milliseconds.default(30_000),
  keepAliveTimeoutMs: milliseconds.default(5_000),
  corsOrigins: z.array(origin).default([]),
  // Unset or empty: X-Forwarded-For is ignored and the peer address is the client (see client-address.ts).
  trustedProxies: z
    .array(z.string().refine(isAddressOrSubnet, { message: 'each entry must be an IP address or a CIDR block such as 10.0.0.0/8' }))
    .optional(),
}).superRefine((config, check) => {
  // Node refuses a headers timeout longer than the request timeout.
  if (config.headersTimeoutMs > config.requestTimeoutMs) {
    check.addIssue({ code: 'custom', path: ['headersTimeoutMs'], message: 'must not exceed HTTP_REQUEST_TIMEOUT_MS' });
  }
  if (config.shutdownGraceMs >= config.shutdownTimeoutMs) {
    check.addIssue({ code: 'custom', path: ['shutdownGraceMs'], message: 'must be less than SHUTDOWN_TIMEOUT_MS (both count from the signal)' });
  }
  if (config.metricsPort !== undefined && config.metricsPort !== 0 && config.metricsPort === config.port) {
    check.addIssue({ code: 'custom', path: ['metricsPort'], message: 'must differ from PORT (leave it unset to serve /metrics on PORT)' });
  }
});

export type AppConfig = Readonly<z.infer<typeof configSchema>> & StorageSettings & {
  /** Base addresses of the deployed environments, for the published API description. */
  readonly servers: Readonly<Record<'production' | 'staging', string>>;
  /** Whether the standard OTEL_* variables ask for traces (tracing-requested.ts); the SDK reads them itself. */
  readonly tracing: boolean;
};

/** Names the setting at fault in one line; main prints it and exits. */
export class ConfigError extends Error {}

/** Every setting an environment variable overrides: its key in the config file, and the variable. Storage backends list their own. */
export const ENV_OVERRIDES: Readonly<Record<string, string>> = {
  port: 'PORT',
  host: 'HOST',
  storage: 'STORAGE',
  apiKeys: 'API_KEYS',
  idempotencyTtlMs: 'IDEMPOTENCY_TTL_MS',
  rateLimitPerMinute: 'RATE_LIMIT_PER_MINUTE',
  authFailuresPerMinute: 'RATE_LIMIT_AUTH_FAILURES_PER_MINUTE',
  logLevel: 'LOG_LEVEL',
  logFormat: 'LOG_FORMAT',
  metrics: 'METRICS',
  metricsPort: 'METRICS_PORT',
  shutdownTimeoutMs: 'SHUTDOWN_TIMEOUT_MS',
  shutdownGraceMs: 'SHUTDOWN_GRACE_MS',
  maxHeaderBytes: 'HTTP_MAX_HEADER_BYTES',
  headersTimeoutMs: 'HTTP_HEADERS_TIMEOUT_MS',
  requestTimeoutMs: 'HTTP_REQUEST_TIMEOUT_MS',
  keepAliveTimeoutMs: 'HTTP_KEEP_ALIVE_TIMEOUT_MS',
  corsOrigins: 'CORS_ORIGINS',
  trustedProxies: 'TRUSTED_PROXIES',
};

/** Comma-separated variables; for them an empty value means an empty list, not "unset". */
export const LIST_SETTINGS = new Set(['apiKeys', 'corsOrigins', 'trustedProxies']);
