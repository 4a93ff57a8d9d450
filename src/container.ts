import { Container, type ServiceIdentifier } from 'inversify';
import type Koa from 'koa';
import { SystemClock } from './adapters/clock/system-clock.js';
import { HashedApiKeyVerifier } from './adapters/keys/hashed-api-key-verifier.js';
import { createHttpApp, type HttpAppDeps } from './adapters/http/create-http-app.js';
import type { Readiness } from './adapters/http/health-routes.js';
import { HttpMetrics } from './adapters/http/http-metrics.js';
import { createMetricsApp } from './adapters/http/metrics-routes.js';
import type * as RequestTracing from './adapters/http/request-tracing.js';
import { ConfigError, type AppConfig } from './config/config.js';
import { LoggedPetRepository } from './telemetry/logged-pet-repository.js';
import type { Logger } from './telemetry/logger.js';
import { PetCatalog } from './core/pet-catalog.js';
import type { ApiKeyVerifier } from './ports/api-key-verifier.js';
import type { Clock } from './ports/clock.js';
import type { PetRepository } from './ports/pet-repository.js';
import type { RateLimits, RateLimitSettings } from './ports/rate-limiter.js';
import type { OpenedStorage, StorageBackend } from './ports/storage-backend.js';
import { STORAGE_BACKENDS, STORAGE_NAMES } from './storage-backends.js';

/** Typed tokens for every binding; the only place string-free DI ids are defined. */
export const TOKENS = {
  petRepository: Symbol('petRepository') as ServiceIdentifier<PetRepository>,
  apiKeyVerifier: Symbol('apiKeyVerifier') as ServiceIdentifier<ApiKeyVerifier>,
  petCatalog: Symbol('petCatalog') as ServiceIdentifier<PetCatalog>,
  readiness: Symbol('readiness') as ServiceIdentifier<Readiness>,
  clock: Symbol('clock') as ServiceIdentifier<Clock>,
  rateLimits: Symbol('rateLimits') as ServiceIdentifier<RateLimits>,
  logger: Symbol('logger') as ServiceIdentifier<Logger>,
  /** Undefined when METRICS=off. */
  metrics: Symbol('metrics') as ServiceIdentifier<HttpMetrics | undefined>,
  httpApp: Symbol('httpApp') as ServiceIdentifier<Koa>,
  /** The app for METRICS_PORT; undefined when metrics are off or served on the API port. */
  metricsApp: Symbol('metricsApp') as ServiceIdentifier<Koa | undefined>,
} as const;

export interface Runtime {
  /** The API key entries in force: the configured ones, or the one main generated for local use. */
  readonly apiKeys: readonly string[];
  readonly onUnexpectedError: HttpAppDeps['onUnexpectedError'];
  readonly logger: Logger;
  /** True once shutdown began: readiness then answers 503 whatever storage says. */
  readonly isDraining: () => boolean;
  /** The storage backend config.storage names, opened (connected) before composing: see openStorage. */
  readonly storage: OpenedStorage;
  /** Replaces the system clock (tests of time-dependent behaviour). */
  readonly clock?: Clock;
  /** When config.tracing is on: the service's own spans, loaded only then (request-tracing.ts). */
  readonly tracing?: typeof RequestTracing;
  /** Standard Koa middleware mounted on every API route (see createHttpApp). */
  readonly middleware?: HttpAppDeps['middleware'];
}

/**
 * Opens the storage backend config.storage names, from the table in storage-backends.ts. Done before composing,
 * so that resolution stays synchronous and connecting fails (or warns) in start-up, not in a binding.
 */
export function openStorage(config: AppConfig, context: { readonly logger: Logger; readonly clock?: Clock }): Promise<OpenedStorage> {
  const backends: readonly StorageBackend[] = STORAGE_BACKENDS;
  const backend = backends.find(({ name }) => name === config.storage);
  // loadConfig checks the name against the same table; a config built by hand may not have been.
  if (backend === undefined) throw new ConfigError(`Invalid setting STORAGE: must be one of ${STORAGE_NAMES.join(', ')} (got "${config.storage}")`);
  const settings: unknown = (config as Readonly<Record<string, unknown>>)[backend.name];
  return backend.open(settings, {
    clock: context.clock ?? new SystemClock(),
    rateLimits: rateLimitSettings(config),
    log: context.logger,
    settingError: (setting, reason) => new ConfigError(`Invalid setting ${backend.settings?.env[setting] ?? setting}: ${reason}`),
  });
}

/** Binds every port to the adapter the config selects. Resolution is synchronous: storage is opened before. */
export function compose(config: AppConfig, runtime: Runtime): Container {
  const container = new Container({ defaultScope: 'Singleton' });
  container.bind(TOKENS.logger).toConstantValue(runtime.logger);
  container.bind(TOKENS.clock).toConstantValue(runtime.clock ?? new SystemClock());
  container.bind(TOKENS.petRepository).toConstantValue(runtime.storage.pets);
  container.bind(TOKENS.rateLimits).toConstantValue(runtime.storage.rateLimits);
  // Whatever the backend, its operations are logged, but only when debug lines are written at all.
  if (runtime.logger.isLevelEnabled('debug')) {
    container.onActivation(TOKENS.petRepository, (_, pets) => new LoggedPetRepository(pets, runtime.logger));
  }
  container.bind(TOKENS.apiKeyVerifier).toResolvedValue(() => new HashedApiKeyVerifier(runtime.apiKeys));
  const Catalog = runtime.tracing?.TracedPetCatalog ?? PetCatalog;
  const catalog = (pets: PetRepository, keys: ApiKeyVerifier) => new Catalog(pets, keys);
  container.bind(TOKENS.petCatalog).toResolvedValue(catalog, [TOKENS.petRepository, TOKENS.apiKeyVerifier]);
  const readiness: Readiness = { isReady: async () => !runtime.isDraining() && runtime.storage.isReachable() };
  container.bind(TOKENS.readiness).toConstantValue(readiness);
  const metrics = (pets: PetRepository) => {
    if (config.metrics === 'off') return undefined;
    const metrics = new HttpMetrics(() => pets.count());
    for (const counter of runtime.storage.counters) counter.countWith(metrics.addCounter(counter));
    return metrics;
  };
  container.bind(TOKENS.metrics).toResolvedValue(metrics, [TOKENS.petRepository]);
  // What composing knows already (config, runtime) is passed as is; only ports and adapters are resolved.
  const httpApp = (catalog: PetCatalog, readiness: Readiness, clock: Clock, rateLimits: RateLimits, metrics?: HttpMetrics) =>
    createHttpApp({
      catalog,
      readiness,
      clock,
      rateLimits,
      metrics,
      idempotency: { clock, ttlMs: config.idempotencyTtlMs },
      servers: { ...config.servers, serving: config.appEnv },
      corsOrigins: config.corsOrigins,
      trustedProxies: config.trustedProxies ?? [],
      metricsOnApiPort: config.metricsPort === undefined,
      onUnexpectedError: runtime.onUnexpectedError,
      logger: runtime.logger,
      // Standard Koa middleware for every API route: a team adds its own here (docs/koa-middleware.md).
      middleware: [...(runtime.middleware ?? [])],
      tracing: runtime.tracing,
    });
  container
    .bind(TOKENS.httpApp)
    .toResolvedValue(httpApp, [TOKENS.petCatalog, TOKENS.readiness, TOKENS.clock, TOKENS.rateLimits, TOKENS.metrics]);
  const onMetricsError = (error: unknown) => runtime.logger.error({ err: error }, 'unexpected error on the metrics port');
  const metricsApp = (metrics?: HttpMetrics) =>
    metrics === undefined || config.metricsPort === undefined ? undefined : createMetricsApp(metrics, onMetricsError, runtime.logger);
  container.bind(TOKENS.metricsApp).toResolvedValue(metricsApp, [TOKENS.metrics]);
  return container;
}

function rateLimitSettings(config: AppConfig): RateLimitSettings {
  return { perMinute: config.rateLimitPerMinute, authFailuresPerMinute: config.authFailuresPerMinute };
}
