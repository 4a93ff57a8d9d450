import { write, writeSync } from 'node:fs';

// A Linux pipe holds 64 KiB: a batch that size is one write the reader can take whole. At 4 KiB the write
// (a thread-pool hop and a reader wake-up per batch) cost 6% of the service's CPU under load.
const BATCH_BYTES = 64 * 1024;
/** A reader that stopped reading must not grow the queue without end: past this, new lines are dropped. */
const MAX_QUEUED_BYTES = 16 * 1024 * 1024;
/** A full non-blocking pipe answers EAGAIN: give the reader this long, as sonic-boom does (100 ms). */
const RETRY_MS = 100;
const SYNC_RETRIES = 10;
/** UTF-8 needs at most 3 bytes for one UTF-16 code unit (a surrogate pair: 4 bytes for 2 units). */
const MAX_UTF8_PER_UNIT = 3;

interface Batch {
  /** The bytes to write. */
  readonly bytes: Buffer;
  readonly lines: number;
  /** The whole buffer the bytes were encoded into, reused once they are written. */
  readonly reusable?: Buffer;
}

/**
 * pino's destination for stdout: each line is encoded once, straight into a 64 KiB buffer, and a full buffer
 * is written in one go (or what is there on flush), never two writes in flight.
 *
 * Why not sonic-boom (pino.destination) with minLength: its write() calls Buffer.byteLength on the whole
 * accumulated string on every line, flattening the rope and rescanning the batch, so a line costs more the
 * fuller the batch is (16% of the service's CPU in the list profile). Why not an array of strings joined per
 * batch: that measured each line, joined them and encoded the join, three passes instead of one.
 * Write errors never throw into the service: the batch is dropped and counted (stdout may be gone).
 */
export class BatchedStdout {
  /** Lines dropped: lost to a write error, or refused while MAX_QUEUED_BYTES were waiting. */
  droppedLines = 0;
  /** The batch being filled. */
  private current: Buffer;
  private used = 0;
  private linesInCurrent = 0;
  /** Closed batches not yet handed to the kernel, oldest first. */
  private queue: Batch[] = [];
  private queuedBytes = 0;
  /** A written batch's buffer, kept for the next batch instead of allocating one. */
  private spare: Buffer | undefined;
  private writing = false;
  private waiters: Array<(error?: Error) => void> = [];

  constructor(
    private readonly fd = 1,
    private readonly batchBytes = BATCH_BYTES,
  ) {
    this.current = Buffer.allocUnsafe(batchBytes);
  }

  write(line: string): boolean {
    if (this.queuedBytes > MAX_QUEUED_BYTES) {
      this.droppedLines++;
      return true;
    }
    const mostBytes = line.length * MAX_UTF8_PER_UNIT;
    if (this.used + mostBytes > this.batchBytes) {
      // It might not fit: the batch is full enough to go.
      this.close();
      if (mostBytes > this.batchBytes) return this.enqueue({ bytes: Buffer.from(line), lines: 1 });
    }
    this.used += this.current.write(line, this.used);
    this.linesInCurrent++;
    return true;
  }

  /** pino's logger.flush(cb): writes what is queued now; `done` runs once all of it has been handed over. */
  flush(done?: (error?: Error) => void): void {
    if (done !== undefined) this.waiters.push(done);
    this.close();
    if (!this.writing) this.settle();
  }

  /**
   * On exit and after pino's fatal(): writes the queued lines synchronously. A batch already in flight stays
   * with libuv (sonic-boom's flushSync does the same).
   */
  flushSync(): void {
    this.close(false);
    const batches = this.writing ? this.queue.splice(1) : this.queue.splice(0);
    for (const { bytes, lines } of batches) {
      this.queuedBytes -= bytes.length;
      for (let offset = 0, retries = 0; offset < bytes.length; ) {
        try {
          offset += writeSync(this.fd, bytes, offset);
        } catch (error) {
          if (!isBusy(error) || ++retries > SYNC_RETRIES) {
            this.droppedLines += lines;
            break;
          }
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, RETRY_MS);
        }
      }
    }
  }

  /** Queues the batch being filled (if it holds a line) and starts a fresh one; sends unless told not to. */
  private close(send = true): void {
    if (this.linesInCurrent === 0) return;
    const batch = { bytes: this.current.subarray(0, this.used), lines: this.linesInCurrent, reusable: this.current };
    this.current = this.spare ?? Buffer.allocUnsafe(this.batchBytes);
    this.spare = undefined;
    this.used = 0;
    this.linesInCurrent = 0;
    this.enqueue(batch, send);
  }

  private enqueue(batch: Batch, send = true): true {
    this.queue.push(batch);
    this.queuedBytes += batch.bytes.length;
    if (send && !this.writing) this.send(0);
    return true;
  }

  /** Writes the oldest queued batch from `offset`; the next one follows when it is done. */
  private send(offset: number): void {
    const batch = this.queue[0];
    if (batch === undefined) {
      this.writing = false;
      return this.settle();
    }
    this.writing = true;
    const { bytes } = batch;
    write(this.fd, bytes, offset, bytes.length - offset, null, (error, written) => {
      if (error !== null && isBusy(error)) return void setTimeout(() => this.send(offset), RETRY_MS);
      if (error === null && offset + written < bytes.length) return this.send(offset + written);
      if (error !== null) this.droppedLines += batch.lines;
      this.queue.shift();
      this.queuedBytes -= bytes.length;
      this.spare = batch.reusable;
      this.send(0);
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
