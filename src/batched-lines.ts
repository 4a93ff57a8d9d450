import type { DestinationStream, pino } from 'pino';

/** pino's destination (sonic-boom) in its documented `contentMode: 'buffer'`, whose write() takes a Buffer. */
export type BufferDestination = Pick<ReturnType<typeof pino.destination>, 'flush' | 'flushSync'> & {
  write(batch: Buffer): boolean;
};

/** What one UTF-16 code unit can take in UTF-8: a line of n units always fits in 3n bytes. */
const MOST_BYTES_PER_UNIT = 3;

/**
 * pino's destination for stdout: each line is encoded straight into a batch buffer, and the batch is handed to
 * pino's own destination (sonic-boom, created with `contentMode: 'buffer'`) once `batchBytes` are filled, every
 * `flushEveryMs`, and on exit. Not sonic-boom's own minLength: its write() measures the whole pending batch
 * (Buffer.byteLength) on every line (README, known issues); a joined string would be measured and encoded again.
 */
export class BatchedLines implements DestinationStream {
  private batch: Buffer;
  private filled = 0;

  constructor(
    private readonly out: BufferDestination,
    private readonly batchBytes: number,
    flushEveryMs: number,
  ) {
    this.batch = Buffer.allocUnsafe(batchBytes);
    setInterval(() => this.pass(), flushEveryMs).unref();
    // The event loop is gone at exit: what is pending goes out synchronously.
    process.once('exit', () => {
      this.pass();
      out.flushSync();
    });
  }

  write(line: string): void {
    const most = line.length * MOST_BYTES_PER_UNIT;
    if (this.filled + most > this.batchBytes) {
      this.pass();
      // Longer than a whole batch: it goes alone.
      if (most > this.batchBytes) return void this.out.write(Buffer.from(line));
    }
    this.filled += this.batch.write(line, this.filled);
  }

  /** pino's logger.flush(done). */
  flush(done?: (error?: Error) => void): void {
    this.pass();
    this.out.flush(done);
  }

  // sonic-boom may still be writing a batch it was handed, so every batch gets a buffer of its own.
  private pass(): void {
    if (this.filled === 0) return;
    const full = this.batch.subarray(0, this.filled);
    this.batch = Buffer.allocUnsafe(this.batchBytes);
    this.filled = 0;
    this.out.write(full);
  }
}
