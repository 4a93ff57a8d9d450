// Imported by mongo-backend.ts inside open() only: loaded always, the driver would lengthen the start-up of a
// service on memory storage and add to the heap every major GC marks (figures in the commit that made it lazy).
import type { OpenedStorage, StorageContext, StorageCounter } from '../../ports/storage-backend.js';
import { connectMongo, invalidMongoUrl, type MongoConnection, type MongoSettings } from './connect-mongo.js';
import { createIndexes } from './mongo-indexes.js';
import { MongoPetRepository } from './mongo-pet-repository.js';
import { mongoRateLimits } from './mongo-rate-limiter.js';

/** Connects (an unreachable server is reported, not thrown) and opens the pets and the shared rate limits. */
export async function openMongoStorage(settings: MongoSettings, { clock, rateLimits, log, settingError }: StorageContext): Promise<OpenedStorage> {
  // The driver's URL parser is the authority on what it accepts; a URL it refuses would never connect.
  const invalid = invalidMongoUrl(settings);
  if (invalid !== undefined) throw settingError('url', invalid);
  const connection = await connectMongo(settings, createIndexes, (error) =>
    log.warn({ err: error }, 'MongoDB is not reachable at start-up; storage answers 503 until it is'),
  );
  // Driver failures are answered 503 without detail; the detail goes to the log.
  const pets = new MongoPetRepository(
    connection,
    (error) => log.warn({ err: error }, 'storage unavailable'),
    (petId) => log.debug({ petId: String(petId) }, 'pet id taken already; retrying with a fresh id'),
  );
  return {
    pets,
    // Shared by every instance on the database, so quotas hold whichever instance answers.
    rateLimits: mongoRateLimits(connection, rateLimits, { now: () => clock.now() }),
    isReachable: () => pets.isReachable(),
    counters: [commandCounter(connection)],
    close: () => connection.close(),
  };
}

function commandCounter(connection: MongoConnection): StorageCounter {
  return {
    name: 'animal_store_mongodb_commands_total',
    help: 'Commands sent to MongoDB (round trips), by command name.',
    // The driver's few command names (find, insert, update...): the labels stay bounded.
    labelNames: ['command'],
    countWith: (count) => connection.onCommand((command) => count({ command })),
  };
}
