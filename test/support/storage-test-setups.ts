import type { StorageName, StorageSettings } from '../../src/storage-backends.js';
import { dropTestDatabase, freshMongoSettings } from './mongo-test-db.js';

/** How tests open one registered backend: settings no other test uses, and their removal afterwards. */
export interface StorageTestSetup<Settings> {
  /** `hint` goes into names (databases) so that what a failing test left behind says who made it. */
  fresh(hint: string): Settings;
  cleanUp(settings: Settings): Promise<void>;
}

type SettingsFor<Name extends StorageName> = Name extends keyof StorageSettings ? StorageSettings[Name] : undefined;

/**
 * The one test module that names backends: each registered backend's test environment (a server of this run,
 * a fresh database). Keyed by the table's names, so a backend registered without a setup here does not compile.
 */
export const STORAGE_TEST_SETUPS: { readonly [Name in StorageName]: StorageTestSetup<SettingsFor<Name>> } = {
  memory: { fresh: () => undefined, cleanUp: async () => {} },
  mongodb: { fresh: (hint) => freshMongoSettings(hint), cleanUp: dropTestDatabase },
};
