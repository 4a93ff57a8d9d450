import type { Clock } from './clock.js';
import type { PetRepository } from './pet-repository.js';
import type { RateLimits, RateLimitSettings } from './rate-limiter.js';

/**
 * A storage backend, picked by STORAGE=<name> from the table in src/storage-backends.ts. Registering it there
 * is all it takes: configuration loading reads its section, start-up opens it, the contract suites run it.
 */
export interface StorageBackend<Name extends string = string, Settings = unknown> {
  readonly name: Name;
  /** Its settings, read from config/<APP_ENV>.json's block under `name` and its environment variables. */
  readonly settings?: SettingsSection<Settings>;
  /**
   * Opens the stores before the service is composed. An unreachable server does not reject: the stores answer
   * StorageUnavailable until it is back. Rejects for a setting it refuses, with `context.settingError`.
   */
  open(settings: Settings, context: StorageContext): Promise<OpenedStorage>;
}

/** A backend's configuration section: validated at start-up with every other setting, whichever backend is picked. */
export interface SettingsSection<Settings> {
  /** Validates the block (environment values arrive as text) and fills in defaults. */
  readonly schema: SettingsSchema<Settings>;
  /** Each setting of the block and the environment variable that overrides it. */
  readonly env: Readonly<Record<string, string>>;
}

/** The Standard Schema interface (standardschema.dev), which zod implements, reduced to what loading uses. */
export interface SettingsSchema<Settings> {
  readonly '~standard': {
    validate(value: unknown): SettingsResult<Settings> | Promise<SettingsResult<Settings>>;
  };
}

export type SettingsResult<Settings> =
  | { readonly value: Settings; readonly issues?: undefined }
  | { readonly issues: readonly { readonly message: string; readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[] | undefined }[] };

/** What the service hands a backend to open it with. */
export interface StorageContext {
  readonly clock: Clock;
  /** The quotas its rate limits count. */
  readonly rateLimits: RateLimitSettings;
  /** Where it reports what the operator should know (an unreachable server, a failed operation). */
  readonly log: StorageLog;
  /** The error to throw for a setting that passed its schema but that the backend refuses; it names the variable. */
  settingError(setting: string, reason: string): Error;
}

export interface StorageLog {
  warn(fields: Readonly<Record<string, unknown>>, message: string): void;
  debug(fields: Readonly<Record<string, unknown>>, message: string): void;
}

/** The ports an opened backend provides, and what it adds to metrics. */
export interface OpenedStorage {
  readonly pets: PetRepository;
  readonly rateLimits: RateLimits;
  /** Whether its stores answer now (readiness). Never throws. */
  isReachable(): Promise<boolean>;
  /** Counters it adds to /metrics, such as round trips to its server. */
  readonly counters: readonly StorageCounter[];
  /** Closes its connections; called last at shutdown, once the rate limits' background work has stopped. */
  close(): Promise<void>;
}

/** A Prometheus counter a backend contributes: its name, help and labels, and the events that count it. */
export interface StorageCounter {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  /** Called once, when metrics are on: from then on the backend calls `count` once per event, with its labels. */
  countWith(count: (labels: Readonly<Record<string, string>>) => void): void;
}
