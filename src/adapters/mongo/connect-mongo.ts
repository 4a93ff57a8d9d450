import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import { Admission } from './admission.js';

export interface MongoSettings {
  readonly url: string;
  readonly db: string;
  /** How long a storage operation may take, end to end (connecting and driver retries included), before it fails. */
  readonly timeoutMs: number;
}

/** Storage operations in flight at once, per process; the rest wait their turn (Admission). */
export const MAX_CONCURRENT_OPERATIONS = 16;

/** An adapter call that outlived settings.timeoutMs; the adapter reports it as StorageUnavailable. */
export class MongoDeadlineExceeded extends Error {
  constructor(timeoutMs: number) {
    super(`The MongoDB operation did not finish within ${timeoutMs} ms`);
    this.name = 'MongoDeadlineExceeded';
  }
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
  private readonly commandListeners: ((command: string) => void)[] = [];
  private readonly admission: Admission;

  constructor(
    readonly settings: MongoSettings,
    private readonly prepare: (db: Db) => Promise<void>,
  ) {
    this.admission = new Admission(MAX_CONCURRENT_OPERATIONS, settings.timeoutMs);
  }

  /** The database, connecting (again) first when needed; rejects with the driver's error. */
  async db(): Promise<Db> {
    return (await this.connected()).db;
  }

  /**
   * Runs one adapter call: it waits its turn (Admission) for at most settings.timeoutMs, and is refused
   * with MongoAdmissionRefused, having sent nothing, when its turn does not come; `admitted` skips the wait, for
   * the follow-up of work admitted already (completing or releasing an idempotency claim). Once started, the call
   * is bounded end to end by settings.timeoutMs: connecting, server selection, every round trip and the driver's
   * own retry. The driver's whole-operation timeout (timeoutMS) is a no-op since 7.8, so the bound is ours. At the
   * deadline the call rejects with MongoDeadlineExceeded and `signal` aborts: reads hand it to the driver, which
   * then closes the hung socket and drops its retry. Writes take no signal; an abandoned write ends at
   * socketTimeoutMS (README, "Timeouts"), and keeps its admission slot until then.
   */
  run<T>(operation: (db: Db, signal: AbortSignal) => Promise<T>, { admitted = false } = {}): Promise<T> {
    const { timeoutMs } = this.settings;
    return new Promise<T>((resolve, reject) => {
      const work = async () => {
        const controller = new AbortController();
        const timer = setTimeout(() => {
          const exceeded = new MongoDeadlineExceeded(timeoutMs);
          controller.abort(exceeded);
          reject(exceeded);
        }, timeoutMs);
        try {
          resolve(await operation(await this.db(), controller.signal));
        } catch (error) {
          reject(error);
        } finally {
          clearTimeout(timer);
        }
      };
      (admitted ? work() : this.admission.run(work)).catch(reject);
    });
  }

  /** Calls `listener` with the name of every command sent to the server (one per round trip), on this and later clients. */
  onCommand(listener: (command: string) => void): void {
    this.commandListeners.push(listener);
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
      // Connections for every admitted operation are opened at start, not in the middle of a burst.
      minPoolSize: MAX_CONCURRENT_OPERATIONS,
      // Command monitoring, for the round-trip counter; listeners are added after connecting (at composition).
      monitorCommands: true,
    });
    client.on('commandStarted', (event: CommandStartedEvent) => {
      for (const listener of this.commandListeners) listener(event.commandName);
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
