import type { StorageBackend } from '../../ports/storage-backend.js';
import type { MongoSettings } from './connect-mongo.js';
import { mongoConfig } from './mongo-config.js';

/** STORAGE=mongodb: pets and rate limits shared by every instance on one database. */
export const mongoBackend: StorageBackend<'mongodb', MongoSettings> = {
  name: 'mongodb',
  settings: mongoConfig,
  // The driver is loaded here, on this storage only, so a service on memory storage never loads it.
  open: async (settings, context) => (await import('./mongo-storage.js')).openMongoStorage(settings, context),
};
