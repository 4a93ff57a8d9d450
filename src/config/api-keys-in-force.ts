import { randomBytes } from 'node:crypto';
import { ConfigError, type AppConfig } from './config.js';

export interface ApiKeysInForce {
  /** The API key entries the service accepts. */
  readonly apiKeys: readonly string[];
  /** The key generated when none was configured (local only), to show once. */
  readonly generatedApiKey?: string;
}

/**
 * The configured API keys; with none, a key generated for this run, locally only. Staging and production refuse to
 * start: a generated key would land in a shared log, and each instance of a fleet would hold a different one.
 */
export function apiKeysInForce(config: Pick<AppConfig, 'apiKeys' | 'appEnv'>): ApiKeysInForce {
  if (config.apiKeys.length > 0) return { apiKeys: config.apiKeys };
  if (config.appEnv !== 'local') {
    throw new ConfigError(
      `Invalid setting API_KEYS: ${config.appEnv} needs at least one key (see npm run key:new); a key is generated for APP_ENV=local only`,
    );
  }
  const generatedApiKey = newApiKey();
  return { apiKeys: [generatedApiKey], generatedApiKey };
}

/** A fresh random API key: 256 bits, URL-safe. */
export function newApiKey(): string {
  return randomBytes(32).toString('base64url');
}
