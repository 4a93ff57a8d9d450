import { write, writeSync } from 'node:fs';

// A Linux pipe holds 64 KiB: a batch that size is one write the reader can take whole. At 4 KiB the write
// (a thread-pool hop and a reader wake-up per batch) cost 6% of the service's CPU under load.
const BATCH_BYTES = 64 * 1024;
/** A reader that stopped reading must not grow the queue without end: past this, new lines are dropped. */
const MAX_QUEUED_BYTES = 16 * 1024 * 1024;
/** A full non-blocking pipe answers EAGAIN: give the reader this long, as sonic-boom does (100 ms). */
const RETRY_MS = 100;
const SYNC_RETRIES = 10;

/**
 * pino's destination for stdout: lines are kept in an array with a running byte count and written in one
 * go once 64 KiB have gathered (or on flush), never two writes in flight.
 *
 * Why not sonic-boom (pino.destination) with minLength: its write() calls Buffer.byteLength on the whole
 * accumulated string on every line, flattening the rope and rescanning the batch, so a line costs more the
 * fuller the batch is (16% of the service's CPU in the list profile). Here each line is measured once.
 * Write errors never throw into the service: the batch is dropped and counted (stdout may be gone).
 */
export class BatchedStdout {
  /** Lines dropped: lost to a write error, or refused while MAX_QUEUED_BYTES were waiting. */
  droppedLines = 0;
  private lines: string[] = [];
  private bytes = 0;
  private writing = false;
  private waiters: Array<(error?: Error) => void> = [];

  constructor(
    private readonly fd = 1,
    private readonly batchBytes = BATCH_BYTES,
  ) {}

  write(line: string): boolean {
    if (this.bytes > MAX_QUEUED_BYTES) {
      this.droppedLines++;
      return true;
    }
    this.lines.push(line);
    this.bytes += Buffer.byteLength(line);
    if (this.bytes >= this.batchBytes && !this.writing) this.send(this.take(), 0);
    return true;
  }

  /** pino's logger.flush(cb): writes what is queued now; `done` runs once all of it has been handed over. */
  flush(done?: (error?: Error) => void): void {
    if (done !== undefined) this.waiters.push(done);
    if (this.writing) return; // the write in flight starts the next one when it completes
    if (this.lines.length > 0) this.send(this.take(), 0);
    else this.settle();
  }

  /**
   * On exit and after pino's fatal(): writes the queued lines synchronously. A batch already in flight stays
   * with libuv (sonic-boom's flushSync does the same).
   */
  flushSync(): void {
    if (this.lines.length === 0) return;
    const { buffer, count } = this.take();
    for (let offset = 0, retries = 0; offset < buffer.length; ) {
      try {
        offset += writeSync(this.fd, buffer, offset);
      } catch (error) {
        if (!isBusy(error) || ++retries > SYNC_RETRIES) return void (this.droppedLines += count);
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, RETRY_MS);
      }
    }
  }

  private take(): { buffer: Buffer; count: number } {
    const batch = { buffer: Buffer.from(this.lines.join('')), count: this.lines.length };
    this.lines = [];
    this.bytes = 0;
    return batch;
  }

  private send(batch: { buffer: Buffer; count: number }, offset: number): void {
    this.writing = true;
    write(this.fd, batch.buffer, offset, batch.buffer.length - offset, null, (error, written) => {
      if (error !== null && isBusy(error)) return void setTimeout(() => this.send(batch, offset), RETRY_MS);
      if (error === null && offset + written < batch.buffer.length) return this.send(batch, offset + written);
      if (error !== null) this.droppedLines += batch.count;
      this.writing = false;
      if (this.lines.length > 0 && (this.bytes >= this.batchBytes || this.waiters.length > 0)) this.send(this.take(), 0);
      else if (this.lines.length === 0) this.settle();
    });
  }

  private settle(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const done of waiters) done();
  }
}

function isBusy(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'EAGAIN' || code === 'EBUSY';
}
