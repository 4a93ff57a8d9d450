import { closeSync, mkdtempSync, openSync, readSync, rmSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** How much of the file's start is searched for the listening line. */
const HEAD_BYTES = 8192;
/** Emptied this often, so a long run's log (GBs at 9 MB/s) is dropped from the page cache before any writeback. */
const TRUNCATE_EVERY_MS = 5000;

/**
 * A service build's stdout, its request log (a line per request), written to a file rather than to a pipe
 * this process reads. The harness is the load generator and shares its CPU: reading the log pipe (4 to 9 MB/s,
 * a 64 KiB buffer per read in the generator's heap) put the generator up to 16 ms behind its schedule in the
 * service's runs only. Same build, same run, pipe against file (half-peak p99, median of 6 rounds): list 4.61
 * against 2.76 ms, filter 5.49 against 3.45; generator behind at worst 6 to 16 ms against 4 to 8. The service
 * does the same work either way: it formats and encodes every line and writes it to its stdout.
 */
export class LogFile {
  readonly fd: number;
  private readonly dir: string;
  private readonly path: string;
  private readonly timer: NodeJS.Timeout;

  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), 'animal-store-bench-'));
    this.path = join(this.dir, 'stdout.log');
    // Appending: after a truncation the service's next write lands at the new end, not at its old offset.
    this.fd = openSync(this.path, 'a+');
    this.timer = setInterval(() => this.empty(), TRUNCATE_EVERY_MS).unref();
  }

  /** The start of what the service wrote (the listening line is among its first lines). */
  head(): string {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const read = readSync(this.fd, buffer, 0, HEAD_BYTES, 0);
    return buffer.toString('utf8', 0, read);
  }

  /** Drops what was written so far; the service goes on writing at the (new) end. */
  empty(): void {
    truncateSync(this.path, 0);
  }

  remove(): void {
    clearInterval(this.timer);
    closeSync(this.fd);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
