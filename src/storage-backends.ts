import { memoryBackend } from './adapters/memory/memory-backend.js';
import { mongoBackend } from './adapters/mongo/mongo-backend.js';
import type { StorageBackend } from './ports/storage-backend.js';

/** Every storage backend; STORAGE=<name> picks one. A backend is registered by its line here, and nowhere else. */
export const STORAGE_BACKENDS = [memoryBackend, mongoBackend] as const;

type Registered = (typeof STORAGE_BACKENDS)[number];

export type StorageName = Registered['name'];

/** The settings of every backend that has a section, under its name: part of the validated config. */
export type StorageSettings = {
  readonly [Backend in Registered as SettingsOf<Backend> extends undefined ? never : Backend['name']]: SettingsOf<Backend>;
};

export type SettingsOf<Backend> = Backend extends StorageBackend<string, infer Settings> ? Settings : never;

export const STORAGE_NAMES = STORAGE_BACKENDS.map((backend) => backend.name);
