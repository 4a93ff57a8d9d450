import { Container, type ServiceIdentifier } from 'inversify';
import type Koa from 'koa';
import { SystemClock } from './adapters/clock/system-clock.js';
import { HashedApiKeyVerifier } from './adapters/keys/hashed-api-key-verifier.js';
import { createHttpApp, type HttpAppDeps } from './adapters/http/create-http-app.js';
import type { Readiness } from './adapters/http/health-routes.js';
import { inMemoryRateLimits } from './adapters/memory/in-memory-rate-limiter.js';
import { HttpMetrics } from './adapters/http/http-metrics.js';
import { createMetricsApp } from './adapters/http/metrics-routes.js';
import { InMemoryPetRepository } from './adapters/memory/in-memory-pet-repository.js';
import type { MongoConnection } from './adapters/mongo/connect-mongo.js';
import type * as MongoStorage from './adapters/mongo/mongo-storage.js';
import type * as RequestTracing from './adapters/http/request-tracing.js';
import type { AppConfig } from './config/config.js';
import type { Logger } from './telemetry/logger.js';
import { PetCatalog } from './core/pet-catalog.js';
import type { ApiKeyVerifier } from './ports/api-key-verifier.js';
import type { Clock } from './ports/clock.js';
import type { PetRepository } from './ports/pet-repository.js';
import type { RateLimits, RateLimitSettings } from './ports/rate-limiter.js';

/** Typed tokens for every binding; the only place string-free DI ids are defined. */
export const TOKENS = {
  mongo: Symbol('mongo') as ServiceIdentifier<MongoConnection>,
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
  /**
   * When config.storage is mongodb: the connection made before composing, and the adapters' module, which
   * start-up loads only then (mongo-storage.ts), so that memory storage never loads the driver.
   */
  readonly mongo?: { readonly connection: MongoConnection; readonly adapters: typeof MongoStorage };
  /** Replaces the system clock (tests of time-dependent behaviour). */
  readonly clock?: Clock;
  /** When config.tracing is on: the service's own spans, loaded only then (request-tracing.ts). */
  readonly tracing?: typeof RequestTracing;
  /** Standard Koa middleware mounted on every API route (see createHttpApp). */
  readonly middleware?: HttpAppDeps['middleware'];
}

/** Binds every port to the adapter the config selects. Resolution is synchronous: connections are made before. */
export function compose(config: AppConfig, runtime: Runtime): Container {
  const container = new Container({ defaultScope: 'Singleton' });
  container.bind(TOKENS.logger).toConstantValue(runtime.logger);
  container.bind(TOKENS.clock).toConstantValue(runtime.clock ?? new SystemClock());
  bindStorage(container, config, runtime);
  container.bind(TOKENS.apiKeyVerifier).toResolvedValue(() => new HashedApiKeyVerifier(runtime.apiKeys));
  const Catalog = runtime.tracing?.TracedPetCatalog ?? PetCatalog;
  const catalog = (pets: PetRepository, keys: ApiKeyVerifier) => new Catalog(pets, keys);
  container.bind(TOKENS.petCatalog).toResolvedValue(catalog, [TOKENS.petRepository, TOKENS.apiKeyVerifier]);
  const readiness = (pets: PetRepository): Readiness => ({ isReady: async () => !runtime.isDraining() && pets.isReachable() });
  container.bind(TOKENS.readiness).toResolvedValue(readiness, [TOKENS.petRepository]);
  const metrics = (pets: PetRepository) => {
    if (config.metrics === 'off') return undefined;
    const metrics = new HttpMetrics(() => pets.count());
    runtime.mongo?.connection.onCommand((command) => metrics.countMongoCommand(command));
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
    });
  container
    .bind(TOKENS.httpApp)
    .toResolvedValue(httpApp, [TOKENS.petCatalog, TOKENS.readiness, TOKENS.clock, TOKENS.rateLimits, TOKENS.metrics]);
  const onMetricsError = (error: unknown) => runtime.logger.error({ err: error }, 'unexpected error on the metrics port');
  const metricsApp = (metrics?: HttpMetrics) =>
    metrics === undefined || config.metricsPort === undefined ? undefined : createMetricsApp(metrics, onMetricsError);
  container.bind(TOKENS.metricsApp).toResolvedValue(metricsApp, [TOKENS.metrics]);
  return container;
}

function bindStorage(container: Container, config: AppConfig, runtime: Runtime): void {
  switch (config.storage) {
    case 'memory': {
      container.bind(TOKENS.petRepository).toConstantValue(new InMemoryPetRepository());
      const rateLimits = (clock: Clock) => inMemoryRateLimits(rateLimitSettings(config), () => clock.now());
      container.bind(TOKENS.rateLimits).toResolvedValue(rateLimits, [TOKENS.clock]);
      return;
    }
    case 'mongodb': {
      if (runtime.mongo === undefined) throw new Error('STORAGE=mongodb needs a MongoDB connection made before composing');
      const { MongoPetRepository, mongoRateLimits } = runtime.mongo.adapters;
      container.bind(TOKENS.mongo).toConstantValue(runtime.mongo.connection);
      container
        .bind(TOKENS.petRepository)
        .toResolvedValue(
          (mongo: MongoConnection, logger: Logger) =>
            new MongoPetRepository(mongo, storageFailureLog(logger), (petId) =>
              logger.warn({ petId: String(petId) }, 'pet id taken already; retrying with a fresh id'),
            ),
          [TOKENS.mongo, TOKENS.logger],
        );
      // Shared by every instance on the database, so quotas hold whichever instance answers.
      container
        .bind(TOKENS.rateLimits)
        .toResolvedValue(
          (mongo: MongoConnection, clock: Clock) => mongoRateLimits(mongo, rateLimitSettings(config), { now: () => clock.now() }),
          [TOKENS.mongo, TOKENS.clock],
        );
      return;
    }
  }
}

/** Driver failures are answered 503 without detail; the detail goes here. */
function storageFailureLog(logger: Logger): (error: unknown) => void {
  return (error) => logger.warn({ err: error }, 'storage unavailable');
}

function rateLimitSettings(config: AppConfig): RateLimitSettings {
  return { perMinute: config.rateLimitPerMinute, authFailuresPerMinute: config.authFailuresPerMinute };
}
