import type { Db } from 'mongodb';
import { createPetIndexes } from './mongo-pet-repository.js';
import { createRateLimitIndexes } from './mongo-rate-limiter.js';

/** Every store's indexes; idempotent, run on each (re)connection before the database is handed out. */
export async function createIndexes(db: Db): Promise<void> {
  await Promise.all([createPetIndexes(db), createRateLimitIndexes(db)]);
}
