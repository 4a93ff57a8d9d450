import type { AnyBulkWriteOperation, Db } from 'mongodb';
import type { RateLimiter, RateLimits, RateLimitSettings, WindowUse } from '../../ports/rate-limiter.js';
import { collectionOf } from './collection-cache.js';
import type { MongoConnection } from './connect-mongo.js';

/** One key's count in one window, shared by every instance: `_id` is `<limit name>:<key>:<window number>`. */
interface WindowDocument {
  readonly _id: string;
  readonly count: number;
  readonly expiresAt: Date;
}

interface Count {
  window: number;
  /** The store's total for the window as last read: every instance's hits that reached it. */
  shared: number;
  /** Hits sent in the exchange under way. */
  sending: number;
  /** Hits of this instance not sent yet. */
  pending: number;
}

const WINDOWS = 'rate_limit_windows';
/** How often counts are exchanged with MongoDB: the tolerance of a limit across instances. */
export const EXCHANGE_EVERY_MS = 500;

/** Idempotent. TTL deletion is lazy (a pass every 60 s); a window's number is in its `_id`, so old ones never count. */
export async function createRateLimitIndexes(db: Db): Promise<void> {
  await collectionOf<WindowDocument>(db, WINDOWS).createIndex({ expiresAt: 1 }, { name: 'expiresAt_ttl', expireAfterSeconds: 0 });
}

/**
 * Counts in this process and exchanges them with MongoDB in the background every EXCHANGE_EVERY_MS:
 * no request waits on MongoDB for its count. Tolerance: a key can exceed its limit by the hits other
 * instances admit between two exchanges. While MongoDB is unreachable every instance counts on its own,
 * and the hits it kept are sent when the store answers again.
 */
export class MongoRateLimiter implements RateLimiter {
  private readonly counts = new Map<string, Count>();
  private readonly windowMs: number;
  private readonly timer: NodeJS.Timeout;
  private exchanging: Promise<void> | undefined;
  /** The driver work of an exchange that gave up at the timeout and may still be out. */
  private straggler: Promise<unknown> | undefined;

  constructor(
    private readonly connection: MongoConnection,
    readonly name: string,
    readonly limit: number,
    readonly windowSeconds: number,
    private readonly options: { readonly exchangeEveryMs?: number; readonly now?: () => number } = {},
  ) {
    this.windowMs = windowSeconds * 1000;
    this.timer = setInterval(() => void this.exchange(), options.exchangeEveryMs ?? EXCHANGE_EVERY_MS).unref();
  }

  hit(key: string): WindowUse {
    return this.add(key, 1);
  }

  peek(key: string): WindowUse {
    return this.add(key, 0);
  }

  /** Sends the hits counted here and reads back every instance's totals, within the MongoDB timeout; never throws. */
  exchange(): Promise<void> {
    this.exchanging ??= this.send().finally(() => (this.exchanging = undefined));
    return this.exchanging;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.exchanging;
  }

  private add(key: string, hits: number): WindowUse {
    const now = this.now();
    const window = Math.floor(now / this.windowMs);
    const resetInMs = (window + 1) * this.windowMs - now;
    let count = this.counts.get(key);
    if (count === undefined || count.window !== window) {
      if (hits === 0) return { used: count?.window === window ? count.shared : 0, resetInMs };
      count = { window, shared: 0, sending: 0, pending: 0 };
      this.counts.set(key, count);
    }
    count.pending += hits;
    return { used: count.shared + count.sending + count.pending, resetInMs };
  }

  private async send(): Promise<void> {
    const window = Math.floor(this.now() / this.windowMs);
    const current: [string, Count][] = [];
    for (const [key, count] of this.counts) {
      if (count.window === window) current.push([key, count]);
      else this.counts.delete(key);
    }
    // In a partition, one exchange at a time: no new one beside a timed-out one still holding a connection.
    if (current.length === 0 || this.straggler !== undefined) return;
    for (const [, count] of current) {
      count.sending = count.pending;
      count.pending = 0;
    }
    const id = (key: string) => `${this.name}:${key}:${window}`;
    const expiresAt = new Date((window + 2) * this.windowMs);
    let work: Promise<Map<string, number>> | undefined;
    let written = false;
    try {
      const totals = await this.connection.run(
        (db, signal) => (work = sendAndRead(db, signal, current, id, expiresAt, () => (written = true))),
      );
      for (const [key, count] of current) {
        count.shared = Math.max(count.shared + count.sending, totals.get(id(key)) ?? 0);
        count.sending = 0;
      }
    } catch {
      // Unsent hits wait for the next exchange; meanwhile this instance counts on its own. Hits whose write
      // was acknowledged (only the read failed) are counted as stored; those whose write landed unacknowledged
      // are sent again: a count errs upwards, never down.
      const unsent = written ? [] : current.map(([, count]) => [count, count.sending] as const);
      for (const [, count] of current) {
        if (written) count.shared += count.sending;
        else count.pending += count.sending;
        count.sending = 0;
      }
      if (work === undefined) return;
      // The driver may still retry the abandoned write and land it (once the partition heals). No exchange
      // sends while it is out, so if it lands, its hits are taken back from those waiting to be sent.
      this.straggler = work
        .catch(() => undefined)
        .finally(() => {
          if (written) for (const [count, hits] of unsent) moveToShared(count, hits);
          this.straggler = undefined;
        });
    }
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}

/** `hits` waiting to be sent that reached the store after all. */
function moveToShared(count: Count, hits: number): void {
  const landed = Math.min(hits, count.pending);
  count.pending -= landed;
  count.shared += landed;
}

/** One bulk write of the increments and one read of the totals; the totals by window id. */
async function sendAndRead(
  db: Db,
  signal: AbortSignal,
  current: readonly [string, Count][],
  id: (key: string) => string,
  expiresAt: Date,
  onWritten: () => void,
): Promise<Map<string, number>> {
  const windows = collectionOf<WindowDocument>(db, WINDOWS);
  const increments: AnyBulkWriteOperation<WindowDocument>[] = current
    .filter(([, count]) => count.sending > 0)
    .map(([key, count]) => ({
      updateOne: { filter: { _id: id(key) }, update: { $inc: { count: count.sending }, $setOnInsert: { expiresAt } }, upsert: true },
    }));
  if (increments.length > 0) await windows.bulkWrite(increments, { ordered: false });
  onWritten();
  const totals = new Map<string, number>();
  for (const document of await windows.find({ _id: { $in: current.map(([key]) => id(key)) } }, { signal }).toArray()) {
    totals.set(document._id, Number(document.count));
  }
  return totals;
}

/** Limits counted in MongoDB (STORAGE=mongodb), so they hold across instances within EXCHANGE_EVERY_MS. */
export function mongoRateLimits(
  connection: MongoConnection,
  settings: RateLimitSettings,
  options?: { readonly exchangeEveryMs?: number; readonly now?: () => number },
): RateLimits {
  if (settings.perMinute === 0) return {};
  return {
    perKey: new MongoRateLimiter(connection, 'per-key', settings.perMinute, 60, options),
    authFailures: new MongoRateLimiter(connection, 'auth-failures', settings.authFailuresPerMinute, 60, options),
  };
}
