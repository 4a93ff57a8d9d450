import Router from '@koa/router';
import { MongoClient } from 'mongodb';
import { fail, listenKoa } from './koa-yardstick-app.js';
import { checkListQuery, checkNewPet, checkPetId, nextLink, type Pet } from './yardstick-store.js';

/*
 * The yardstick of the MongoDB path: plain Koa + @koa/router + @koa/bodyparser + the mongodb driver, as a
 * hand-written app would be. The service's three routes under /v1 with the same JSON bodies, Link rel="next"
 * (the same unsealed cursor as the in-memory yardsticks), Location on 201 and the 400 rules by hand; pets in
 * MONGODB_URL's database MONGODB_DB, `_id` the id, ids from a counter document (findOneAndUpdate $inc). The
 * driver's defaults (no write or read concern of its own). No auth, logs, metrics, limits or idempotency.
 * The commands it sends are counted (driver command monitoring) and reported to the bench over the IPC channel
 * the bench opens: {commands: {find: N, ...}} in answer to 'commands'; the service counts its own in /metrics.
 */
interface PetDocument { _id: number; name: string; categoryId: number; status?: Pet['status'] }

const url = process.env.MONGODB_URL;
const dbName = process.env.MONGODB_DB;
if (url === undefined || dbName === undefined) throw new Error('MONGODB_URL and MONGODB_DB must be set');
const client = new MongoClient(url, { monitorCommands: true });
const commands: Record<string, number> = {};
client.on('commandStarted', ({ commandName }) => (commands[commandName] = (commands[commandName] ?? 0) + 1));
process.on('message', (message: unknown) => {
  if (message === 'commands') process.send?.({ commands });
});
process.channel?.unref();

await client.connect();
const db = client.db(dbName);
const pets = db.collection<PetDocument>('pets');
const counters = db.collection<{ _id: string; seq: number }>('counters');
await pets.createIndex({ status: 1, _id: 1 });
// The counter exists before the first create: two first-ever upserts at once would race to insert it.
await counters.updateOne({ _id: 'pets' }, { $setOnInsert: { seq: 0 } }, { upsert: true });

const asPet = ({ _id, name, categoryId, status }: PetDocument): Pet => (status === undefined ? { id: _id, name, categoryId } : { id: _id, name, categoryId, status });

const router = new Router({ prefix: '/v1' });

router.get('/pets', async (ctx) => {
  const query = checkListQuery(ctx.query);
  if (typeof query === 'string') return fail(ctx, 400, 'validation_failed', query);
  const { limit, status, afterId } = query;
  const filter = { ...(status === undefined ? {} : { status }), ...(afterId === 0 ? {} : { _id: { $gt: afterId } }) };
  // One more than the page: whether a next page exists, in the same round trip.
  const found = await pets.find(filter).sort({ _id: 1 }).limit(limit + 1).toArray();
  const page = found.slice(0, limit).map(asPet);
  if (found.length > limit) ctx.set('Link', nextLink(limit, status, page.at(-1)!.id));
  ctx.body = page;
});

router.post('/pets', async (ctx) => {
  // A body that is not JSON leaves ctx.request.body undefined (listenKoa's body parser): a 400 here too.
  const newPet = checkNewPet(ctx.request.body);
  if (typeof newPet === 'string') return fail(ctx, 400, 'validation_failed', newPet);
  const pet = await insertWithNextId(newPet);
  ctx.status = 201;
  ctx.set('Location', `/v1/pets/${pet.id}`);
  ctx.body = pet;
});

router.get('/pets/:petId', async (ctx) => {
  const id = checkPetId(ctx.params.petId!);
  if (id === undefined) return fail(ctx, 400, 'validation_failed', 'petId must be an integer.');
  const found = await pets.findOne({ _id: id });
  if (found === null) return fail(ctx, 404, 'pet_not_found');
  ctx.body = asPet(found);
});

/**
 * The next id from the counter, then the insert. jongodb (the offline test server) can hand two concurrent $inc
 * the same value, so a duplicate _id takes the next one, as the service does; on mongod it never happens.
 */
async function insertWithNextId(newPet: Omit<Pet, 'id'>): Promise<Pet> {
  for (;;) {
    const counter = await counters.findOneAndUpdate({ _id: 'pets' }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: 'after' });
    const pet: Pet = { id: counter!.seq, ...newPet };
    try {
      await pets.insertOne({ _id: pet.id, ...newPet });
      return pet;
    } catch (error) {
      if ((error as { code?: unknown }).code !== 11000) throw error;
    }
  }
}

listenKoa(router, 'Koa + mongodb yardstick');
// Stopped by the bench with SIGTERM: an exit of its own, so that a --cpu-prof profile is written.
process.once('SIGTERM', () => process.exit(0));
