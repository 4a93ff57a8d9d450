import type { DestinationStream, pino } from 'pino';

type SonicBoom = ReturnType<typeof pino.destination>;

/**
 * pino's destination for stdout: lines are joined here and handed to pino's own destination (sonic-boom) a
 * batch at a time, once `batchChars` have gathered or every `flushEveryMs`, and on exit. Not sonic-boom's own
 * minLength: its write() measures the whole pending batch (Buffer.byteLength) on every line, which made a
 * request line cost three times as much (docs/known-issues.md).
 */
export class BatchedLines implements DestinationStream {
  private pending = '';

  constructor(
    private readonly out: SonicBoom,
    private readonly batchChars: number,
    flushEveryMs: number,
  ) {
    setInterval(() => this.pass(), flushEveryMs).unref();
    // The event loop is gone at exit: what is pending goes out synchronously.
    process.once('exit', () => {
      this.pass();
      out.flushSync();
    });
  }

  write(line: string): void {
    this.pending += line;
    if (this.pending.length >= this.batchChars) this.pass();
  }

  /** pino's logger.flush(done). */
  flush(done?: (error?: Error) => void): void {
    this.pass();
    this.out.flush(done);
  }

  private pass(): void {
    if (this.pending === '') return;
    const batch = this.pending;
    this.pending = '';
    this.out.write(batch);
  }
}
