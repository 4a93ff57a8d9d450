import DataLoader from 'dataloader';

/** The most operations one batch sends: every answer to a read fits in the server's first reply (101 documents). */
export const MAX_BATCH = 100;

type Load<K, V> = (keys: readonly K[]) => Promise<readonly (V | Error)[]>;

/**
 * Reads asked for in one turn of the event loop, sent to MongoDB together once that turn ends (DataLoader's
 * batch, without its cache). Dispatched from setImmediate, after the turn's sockets were all read, rather than
 * DataLoader's default tick, which ends after each socket: concurrent requests share a round trip. Every read
 * of a batch was asked for before the batch was sent, so none sees older data than it would alone.
 */
export function readBatches<K, V>(load: Load<K, V>): (key: K) => Promise<V> {
  const loader = new DataLoader<K, V>(load, { cache: false, maxBatchSize: MAX_BATCH, batchScheduleFn: (send) => setImmediate(send) });
  return (key) => loader.load(key);
}

/**
 * Writes sent a batch at a time (group commit): while one batch is out, the writes asked for gather into the
 * next, which goes when the first has its answer, or after `maxWaitMs` at most. A server that takes each write
 * command in turn then takes many writes per command instead of one.
 */
export function writeBatches<K, V>(load: Load<K, V>, maxWaitMs: number): (key: K) => Promise<V> {
  let out: Promise<unknown> = Promise.resolve();
  const loader = new DataLoader<K, V>(
    (keys) => {
      const answered = load(keys);
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
          setImmediate(send);
        };
        const timer = setTimeout(go, maxWaitMs);
        void out.then(go);
      },
    },
  );
  return (key) => loader.load(key);
}
