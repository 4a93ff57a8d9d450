import { fileURLToPath } from 'node:url';
import type { Document } from 'mongodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { invalidMongoUrl, MongoConnection, withoutPassword } from '../../src/adapters/mongo/connect-mongo.js';
import { createIndexes } from '../../src/adapters/mongo/mongo-indexes.js';
import { MongoPetRepository } from '../../src/adapters/mongo/mongo-pet-repository.js';
import { ConfigError } from '../../src/config/config.js';
import { startService } from '../../src/server/start-service.js';
import { dropTestDatabase, freshMongoSettings, rawClient } from '../support/mongo-test-db.js';
import { pickFreePort } from '../support/mongo-server.js';
import { portOf, spawnService, type ServiceProcess } from '../support/service-process.js';
import { TEST_API_KEY, testConfig } from '../support/test-config.js';

const PASSWORD = 'pa55-Word%21';
// Any readable file will do: the check is that it can be read (its content is read only when connecting).
const CA_FILE = fileURLToPath(import.meta.url);
const DECODED_PASSWORD = 'pa55-Word!';

/** The run's server address with a user and password in it (jongodb has no authentication: it refuses the handshake). */
function withCredentials(url: string): string {
  return url.replace('mongodb://', `mongodb://animal-store:${PASSWORD}@`);
}

const INVALID_URLS = [
  ['a port out of range', `mongodb://animal-store:${PASSWORD}@db.internal:70000/`],
  ['an unknown option', `mongodb://animal-store:${PASSWORD}@db.internal/?retryWritez=true`],
  ['an unknown authMechanism', `mongodb://animal-store:${PASSWORD}@db.internal/?authMechanism=SCRAM-SHA-999`],
  ['a TLS CA file that is not there', `mongodb://animal-store:${PASSWORD}@db.internal/?tls=true&tlsCAFile=/nonexistent/ca.pem`],
] as const;

describe('MONGODB_URL checked at start-up', () => {
  it.each(INVALID_URLS)('stops start-up with one line naming MONGODB_URL for %s, without the password', async (_, url) => {
    const child = spawnService({ env: { STORAGE: 'mongodb', MONGODB_URL: url } });
    expect(await child.exited).toBe(1);
    const output = child.output();
    expect(output).toMatch(/^Invalid setting MONGODB_URL: [^\n]+\n$/);
    expect(output).not.toContain(DECODED_PASSWORD);
    expect(output).not.toContain(PASSWORD);
  });

  it('refuses the URL before connecting, in startService too', async () => {
    const config = testConfig({ storage: 'mongodb', mongodb: { ...freshMongoSettings('invalid'), url: INVALID_URLS[1][1] } });
    await expect(startService(config)).rejects.toThrowError(ConfigError);
    await expect(startService(config)).rejects.toThrowError(/^Invalid setting MONGODB_URL: option retrywritez is not supported$/);
  });

  it.each([
    'mongodb+srv://animal-store:pw@cluster0.example.mongodb.net/?retryWrites=true&w=majority&appName=animal-store',
    'mongodb://user:p%40ss@db-0.internal:27017,db-1.internal:27017,db-2.internal:27017/?replicaSet=rs0&authSource=admin',
    `mongodb://db.internal:27017/?tls=true&tlsCAFile=${encodeURIComponent(CA_FILE)}`,
    'mongodb://svc:pw@db.internal/?authMechanism=SCRAM-SHA-256&readPreference=primaryPreferred&w=1',
  ])('accepts %s', (url) => {
    expect(invalidMongoUrl({ ...freshMongoSettings('valid'), url })).toBeUndefined();
  });

  it('hides the password, as written and decoded, in any text', () => {
    const url = `mongodb+srv://u:${PASSWORD}@h.example/`;
    expect(withoutPassword(`bad ${PASSWORD} and ${DECODED_PASSWORD}`, url)).toBe('bad *** and ***');
    expect(withoutPassword('no password here', 'mongodb://h/')).toBe('no password here');
  });
});

describe('credentials in MONGODB_URL never shown', () => {
  const running: ServiceProcess[] = [];
  afterAll(async () => {
    for (const child of running) child.process.kill('SIGKILL');
  });

  /** Starts the built service on mongodb storage, makes it fail a storage call, and returns all it wrote and served. */
  async function everythingShown(url: string): Promise<string> {
    const child = spawnService({
      env: { STORAGE: 'mongodb', MONGODB_URL: url, MONGODB_DB: 'credentials', MONGODB_TIMEOUT_MS: '500', LOG_LEVEL: 'trace', METRICS: 'on', SHUTDOWN_GRACE_MS: '0' },
    });
    running.push(child);
    const base = `http://127.0.0.1:${portOf(await child.logged('listening'))}`;
    const auth = { Authorization: `Bearer ${TEST_API_KEY}` };
    const created = await fetch(`${base}/v1/pets`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: '{"name":"Rex","categoryId":1}' });
    expect(created.status).toBe(503);
    const bodies = [await created.text()];
    for (const path of ['/v1/pets', '/readyz', '/metrics']) bodies.push(await (await fetch(`${base}${path}`, { headers: auth })).text());
    child.process.kill('SIGTERM');
    expect(await child.exited).toBe(0);
    return child.output() + bodies.join('\n');
  }

  it('in the logs, the 503 and the metrics when the server refuses the handshake', async () => {
    const shown = await everythingShown(withCredentials(inject('mongoUrl')));
    expect(shown).toContain('MongoDB is not reachable at start-up');
    expect(shown).toContain('storage_unavailable');
    expect(shown).not.toContain(DECODED_PASSWORD);
    expect(shown).not.toContain(PASSWORD);
  });

  it('in the logs, the 503 and the metrics when nothing listens at the address', async () => {
    const shown = await everythingShown(`mongodb://animal-store:${PASSWORD}@127.0.0.1:${await pickFreePort()}/`);
    expect(shown).toContain('MongoDB is not reachable at start-up');
    expect(shown).not.toContain(DECODED_PASSWORD);
    expect(shown).not.toContain(PASSWORD);
  });
});

describe('write and read concern', () => {
  it('sends the configured write concern with every write and read concern with every read', async () => {
    const settings = freshMongoSettings('concern', { writeConcern: 'majority', readConcern: 'majority' });
    const connection = new MongoConnection(settings, createIndexes);
    const commands: Document[] = [];
    connection.onCommand((name, body) => commands.push({ name, ...body }));
    try {
      const repository = new MongoPetRepository(connection);
      const pet = await repository.add({ name: 'Rex', categoryId: 1n });
      expect(await repository.findById(pet.id)).toEqual(pet);
      const sent = (name: string) => commands.filter((command) => command.name === name);
      expect(sent('insert')).not.toHaveLength(0);
      for (const write of [...sent('insert'), ...sent('findAndModify')]) expect(write.writeConcern).toEqual({ w: 'majority' });
      expect(sent('find')).not.toHaveLength(0);
      for (const read of sent('find')) expect(read.readConcern).toEqual({ level: 'majority' });
    } finally {
      await connection.close();
      await dropTestDatabase(settings);
    }
  });

  it('sends a numeric write concern and local reads when configured so', async () => {
    const settings = freshMongoSettings('concern-1', { writeConcern: 1, readConcern: 'local' });
    const connection = new MongoConnection(settings, createIndexes);
    const commands: Document[] = [];
    connection.onCommand((name, body) => commands.push({ name, ...body }));
    try {
      const repository = new MongoPetRepository(connection);
      await repository.findById((await repository.add({ name: 'Rex', categoryId: 1n })).id);
      expect(commands.find((command) => command.name === 'insert')?.writeConcern).toEqual({ w: 1 });
      expect(commands.find((command) => command.name === 'find')?.readConcern).toEqual({ level: 'local' });
    } finally {
      await connection.close();
      await dropTestDatabase(settings);
    }
  });
});

describe('indexes when several instances start at once', () => {
  it('lets 6 instances create them on one fresh database together, each index once', async () => {
    const settings = freshMongoSettings('indexes-at-once');
    const connections = Array.from({ length: 6 }, () => new MongoConnection(settings, createIndexes));
    try {
      await Promise.all(connections.map((connection) => connection.db()));
      const client = await rawClient(settings);
      try {
        for (const collection of ['pets', 'rate_limit_windows']) {
          const names = (await client.db(settings.db).collection(collection).indexes()).map((index) => index.name);
          expect(names.length).toBeGreaterThan(1);
          expect(new Set(names).size).toBe(names.length);
        }
      } finally {
        await client.close();
      }
    } finally {
      await Promise.all(connections.map((connection) => connection.close()));
      await dropTestDatabase(settings);
    }
  });
});
