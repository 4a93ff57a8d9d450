import { MongoClient } from 'mongodb';
import { inject } from 'vitest';
import { MongoConnection, type MongoSettings } from '../../src/adapters/mongo/connect-mongo.js';
import { createPetIndexes, MongoPetRepository } from '../../src/adapters/mongo/mongo-pet-repository.js';
import { freshDbName } from './mongo-server.js';

/** Settings for a fresh, never used database on this run's server. */
export function freshMongoSettings(hint: string, overrides: Partial<MongoSettings> = {}): MongoSettings {
  return { url: inject('mongoUrl'), db: freshDbName(hint), timeoutMs: 2500, writeConcern: 'majority', readConcern: 'majority', ...overrides };
}

export interface TestStore {
  readonly settings: MongoSettings;
  readonly connection: MongoConnection;
  readonly repository: MongoPetRepository;
  /** Closes the connection and drops the database. */
  close(): Promise<void>;
}

/** A MongoPetRepository on its own connection, as a service instance would have. */
export function openTestStore(settings: MongoSettings): TestStore {
  const connection = new MongoConnection(settings, createPetIndexes);
  return {
    settings,
    connection,
    repository: new MongoPetRepository(connection),
    close: async () => {
      await connection.close();
      await dropTestDatabase(settings);
    },
  };
}

/** A client of its own, for looking behind the adapter (indexes, raw documents). */
export async function rawClient(settings: MongoSettings): Promise<MongoClient> {
  return new MongoClient(settings.url, { useBigInt64: true, serverSelectionTimeoutMS: 5000 }).connect();
}

export async function dropTestDatabase(settings: MongoSettings): Promise<void> {
  const client = await rawClient(settings);
  try {
    await client.db(settings.db).dropDatabase();
  } catch (error) {
    // jongodb has no dropDatabase (CommandNotFound, 59); it is in memory and the name is never reused.
    if ((error as { code?: unknown }).code !== 59) throw error;
  } finally {
    await client.close();
  }
}
