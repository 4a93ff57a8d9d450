import DataLoader from 'dataloader';

/** The most requests one batch serves: every answer to a read fits in the server's first reply (101 documents). */
const MAX_BATCH = 100;

type Load<K, V> = (keys: readonly K[]) => Promise<readonly (V | Error)[]>;

/**
 * Storage work sent a batch at a time (DataLoader's batching, without its cache; group commit): the first
 * request goes once its turn of the event loop ends, and while a batch is out the requests asked for gather
 * into the next, which goes when the first has its answer, or after `maxWaitMs` at most. So batches grow with
 * the load, whether requests come together or spread out. Every request of a batch was asked for before the
 * batch was sent: a read never joins a find already out, so none sees older data than it would alone.
 */
export function batches<K, V>(load: Load<K, V>, maxWaitMs: number): (key: K) => Promise<V> {
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
          // After the turn's sockets were all read (DataLoader's default tick ends after each socket).
          setImmediate(send);
        };
        const timer = setTimeout(go, maxWaitMs);
        void out.then(go);
      },
    },
  );
  return (key) => loader.load(key);
}
