import { MongoClient, type Db } from 'mongodb';

export interface MongoSettings {
  readonly url: string;
  readonly db: string;
  /** How long an operation may wait for an unreachable server before it fails. */
  readonly timeoutMs: number;
}

/**
 * The process's one MongoDB client, handed out already prepared (indexes created).
 *
 * Driver 7 closes a client for good when its first connection fails ("Topology is closed"), so a
 * service that started during an outage needs a fresh client once the server is back. After one
 * successful connect, the driver's own monitoring rides out later outages with the same client.
 */
export class MongoConnection {
  private current: Promise<{ client: MongoClient; db: Db }> | undefined;
  private closed = false;

  constructor(
    readonly settings: MongoSettings,
    private readonly prepare: (db: Db) => Promise<void>,
  ) {}

  /** The database, connecting (again) first when needed; rejects with the driver's error. */
  async db(): Promise<Db> {
    return (await this.connected()).db;
  }

  async close(): Promise<void> {
    this.closed = true;
    const current = this.current;
    this.current = undefined;
    // A connect still in flight fails on its own; there is nothing of it to close.
    const connected = await current?.catch(() => undefined);
    await connected?.client.close();
  }

  private connected(): Promise<{ client: MongoClient; db: Db }> {
    if (this.closed) return Promise.reject(new Error('The MongoDB connection is closed'));
    this.current ??= this.connect().catch((error: unknown) => {
      this.current = undefined;
      throw error;
    });
    return this.current;
  }

  private async connect(): Promise<{ client: MongoClient; db: Db }> {
    const { url, db: name, timeoutMs } = this.settings;
    const client = new MongoClient(url, {
      useBigInt64: true,
      serverSelectionTimeoutMS: timeoutMs,
      connectTimeoutMS: timeoutMs,
      socketTimeoutMS: timeoutMs,
      waitQueueTimeoutMS: timeoutMs,
      appName: 'animal-store-service',
    });
    try {
      await client.connect();
      const db = client.db(name);
      await this.prepare(db);
      if (this.closed) throw new Error('The MongoDB connection was closed while connecting');
      return { client, db };
    } catch (error) {
      await client.close();
      throw error;
    }
  }
}

/**
 * Connects and runs `prepare` (index creation, owned by each store), within the configured timeout. An
 * unreachable server does not stop start-up: the failure is reported and the next storage operation tries again.
 */
export async function connectMongo(
  settings: MongoSettings,
  prepare: (db: Db) => Promise<void>,
  onUnreachable: (error: unknown) => void,
): Promise<MongoConnection> {
  const connection = new MongoConnection(settings, prepare);
  await connection.db().catch(onUnreachable);
  return connection;
}
