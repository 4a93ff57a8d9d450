import { accessSync, constants } from 'node:fs';
import { MongoClient, type CommandStartedEvent, type Db, type Document, type MongoClientOptions } from 'mongodb';
import { Admission } from './admission.js';
import { setTimeoutAt } from './timeout-at.js';

export interface MongoSettings {
  readonly url: string;
  readonly db: string;
  /** How long a storage operation may take, end to end (connecting and driver retries included), before it fails. */
  readonly timeoutMs: number;
  /** What every write waits for: a majority of the replica set's data-bearing voting members, or that many members. */
  readonly writeConcern: 'majority' | number;
  /** What reads may see: only majority-committed data, or the node's latest (which an election may roll back). */
  readonly readConcern: 'majority' | 'local';
}

const TLS_FILES = ['tlsCAFile', 'tlsCertificateKeyFile', 'tlsCRLFile'] as const;

/**
 * Why the driver refuses the URL (a port out of range, an unknown option or authMechanism) or a TLS file it names
 * cannot be read, or undefined. Nothing is resolved or connected, so a valid but unreachable server passes.
 */
export function invalidMongoUrl(settings: MongoSettings): string | undefined {
  try {
    const { options } = new MongoClient(settings.url, clientOptions(settings));
    // The driver reads these only when connecting, and would then report a missing file as an unreachable server.
    for (const option of TLS_FILES) {
      const file = options[option];
      if (file !== undefined) accessSync(file, constants.R_OK);
    }
    return undefined;
  } catch (error) {
    return withoutPassword(error instanceof Error ? error.message : String(error), settings.url);
  }
}

/** `text` with the URL's password, as written and decoded, replaced by "***" (driver messages might quote it). */
export function withoutPassword(text: string, url: string): string {
  const password = /^mongodb(?:\+srv)?:\/\/[^:@/]*:([^@/]+)@/.exec(url)?.[1];
  if (password === undefined) return text;
  let decoded = password;
  try {
    decoded = decodeURIComponent(password);
  } catch {
    // A malformed escape: the driver refuses such a URL anyway; the password as written is still hidden.
  }
  return text.replaceAll(password, '***').replaceAll(decoded, '***');
}

// The settings win over the same options in the URL (an Atlas string's `w=majority&retryWrites=true` agrees).
function clientOptions({ timeoutMs, writeConcern, readConcern }: MongoSettings): MongoClientOptions {
  return {
    useBigInt64: true,
    serverSelectionTimeoutMS: timeoutMs,
    connectTimeoutMS: timeoutMs,
    socketTimeoutMS: timeoutMs,
    waitQueueTimeoutMS: timeoutMs,
    writeConcern: { w: writeConcern },
    readConcernLevel: readConcern,
    // The drivers' defaults, stated: one retry after a step-down or a dropped connection, within our deadline.
    retryReads: true,
    retryWrites: true,
    appName: 'animal-store-service',
    // Connections for every admitted operation are opened at start, not in the middle of a burst.
    minPoolSize: MAX_CONCURRENT_OPERATIONS,
    // Command monitoring, for the round-trip counter; listeners are added after connecting (at composition).
    monitorCommands: true,
  };
}

/** Storage operations in flight at once, per process; the rest wait their turn (Admission). */
export const MAX_CONCURRENT_OPERATIONS = 16;

/** An adapter call that outlived its deadline (settings.timeoutMs from its request's arrival); reported as StorageUnavailable. */
export class MongoDeadlineExceeded extends Error {
  constructor(timeoutMs: number) {
    super(`The MongoDB operation did not finish within ${timeoutMs} ms of its request's arrival`);
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
  private readonly commandListeners: ((command: string, body: Document) => void)[] = [];
  private readonly admission: Admission;

  constructor(
    readonly settings: MongoSettings,
    private readonly prepare: (db: Db) => Promise<void>,
  ) {
    this.admission = new Admission(MAX_CONCURRENT_OPERATIONS);
  }

  /** The database, connecting (again) first when needed; rejects with the driver's error. */
  async db(): Promise<Db> {
    return (await this.connected()).db;
  }

  /**
   * Runs one adapter call by `deadline` (a performance.now() instant; by default settings.timeoutMs from now): it
   * waits its turn (Admission) until then at most, and is refused with MongoAdmissionRefused, having sent nothing,
   * when its turn does not come. Once started, the call is bounded end to end by the same deadline: connecting,
   * server selection, every round trip and the driver's own retry. The driver's whole-operation timeout
   * (timeoutMS) is a no-op since 7.8, so the bound is ours. At the deadline the call rejects with
   * MongoDeadlineExceeded and `signal` aborts: reads hand it to the driver, which then closes the hung socket and
   * drops its retry. Writes take no signal; an abandoned write ends at socketTimeoutMS (docs/mongodb.md, "Timeouts"), and
   * keeps its admission slot until then.
   */
  run<T>(operation: (db: Db, signal: AbortSignal) => Promise<T>, deadline = performance.now() + this.settings.timeoutMs): Promise<T> {
    const { timeoutMs } = this.settings;
    return new Promise<T>((resolve, reject) => {
      const work = async () => {
        // Admitted only as its time ran out: nothing is sent.
        if (performance.now() >= deadline) return reject(new MongoDeadlineExceeded(timeoutMs));
        const controller = new AbortController();
        const timer = setTimeoutAt(() => {
          const exceeded = new MongoDeadlineExceeded(timeoutMs);
          controller.abort(exceeded);
          reject(exceeded);
        }, deadline);
        try {
          resolve(await operation(await this.db(), controller.signal));
        } catch (error) {
          reject(error);
        } finally {
          clearTimeout(timer);
        }
      };
      this.admission.run(work, deadline).catch(reject);
    });
  }

  /** Calls `listener` with every command sent to the server (one per round trip), on this and later clients. */
  onCommand(listener: (command: string, body: Document) => void): void {
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
    const client = new MongoClient(this.settings.url, clientOptions(this.settings));
    client.on('commandStarted', (event: CommandStartedEvent) => {
      for (const listener of this.commandListeners) listener(event.commandName, event.command);
    });
    try {
      await client.connect();
      const db = client.db(this.settings.db);
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
