import DataLoader from 'dataloader';
import { setTimeoutAt } from './timeout-at.js';

/** The most requests one batch serves: every answer to a read fits in the server's first reply (101 documents). */
const MAX_BATCH = 100;

/** One request's part of a batch. */
export interface Timed {
  /** The performance.now() instant at which its request's time for storage is over. */
  readonly deadline: number;
}

/** Sends a batch of requests' work, all still in time, by `deadline` (the latest of theirs). */
type Load<K, V> = (keys: readonly K[], deadline: number) => Promise<readonly (V | Error)[]>;

/**
 * Storage work sent a batch at a time (DataLoader's batching, without its cache; group commit): the first
 * request goes once its turn of the event loop ends, and while a batch is out the requests asked for gather
 * into the next, which goes when the first has its answer, or after `maxWaitMs` at most. So batches grow with
 * the load, whether requests come together or spread out. Every request of a batch was asked for before the
 * batch was sent: a read never joins a find already out, so none sees older data than it would alone.
 *
 * Each request is answered `late()` at its own deadline, whatever its batch is doing or waiting for, and a
 * request whose deadline passed before its batch went is not sent at all.
 */
export function batches<K extends Timed, V>(load: Load<K, V>, maxWaitMs: number, late: () => Error): (key: K) => Promise<V> {
  let out: Promise<unknown> = Promise.resolve();
  const loader = new DataLoader<K, V>(
    (keys) => {
      const answered = sendInTime(load, keys, late);
      out = answered.catch(() => undefined);
      return answered;
    },
    {
      cache: false,
      maxBatchSize: MAX_BATCH,
      batchScheduleFn: (send) => {
        let sent = false;
        const go = () => {
          if (sent) return;
          sent = true;
          clearTimeout(timer);
          // After the turn's sockets were all read (DataLoader's default tick ends after each socket).
          setImmediate(send);
        };
        const timer = setTimeout(go, maxWaitMs);
        void out.then(go);
      },
    },
  );
  return (key) =>
    new Promise<V>((resolve, reject) => {
      const timer = setTimeoutAt(() => reject(late()), key.deadline);
      loader.load(key).then(
        (value) => (clearTimeout(timer), resolve(value)),
        (error: unknown) => (clearTimeout(timer), reject(error)),
      );
    });
}

/** Loads the keys still in time; the others are answered `late()` without a round trip. */
async function sendInTime<K extends Timed, V>(load: Load<K, V>, keys: readonly K[], late: () => Error): Promise<(V | Error)[]> {
  const now = performance.now();
  const live = keys.filter((key) => key.deadline > now);
  if (live.length === 0) return keys.map(() => late());
  const values = await load(live, Math.max(...live.map((key) => key.deadline)));
  let next = 0;
  return keys.map((key) => (key.deadline > now ? values[next++]! : late()));
}
