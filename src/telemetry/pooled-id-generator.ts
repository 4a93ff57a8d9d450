import { randomFillSync } from 'node:crypto';
import { INVALID_SPANID, INVALID_TRACEID } from '@opentelemetry/api';
import type { NodeSDKConfiguration } from '@opentelemetry/sdk-node';

const ZERO = '0'.charCodeAt(0);

type IdGenerator = NodeSDKConfiguration['idGenerator'];

/** Random bytes drawn at a time: the trace ids of 256 requests. */
const POOL_BYTES = 4096;

/**
 * Trace and span ids cut from one hex string of random bytes drawn POOL_BYTES at a time. Every request draws a
 * trace id for its sampling decision, sampled or not; the SDK's generator would make each with its own Math.random
 * calls and Buffer-to-hex conversion. The SDK's own ids (its documented `idGenerator` option) are copies: a cut is a
 * slice of the pool's string, and V8 keeps a slice's whole parent alive.
 */
export class PooledIdGenerator implements IdGenerator {
  private hex = '';
  private offset = 0;
  private handedOver: string | undefined;

  /** A trace id for a request's sampling decision (sampled-once.ts): a cut of the pool, to live no longer than the request. */
  requestTraceId(): string {
    return this.next(32, INVALID_TRACEID);
  }

  /**
   * The SDK's, for a span it records: the handed-over id, else a new one; a copy either way, as the span holds it
   * until exported (a second or more), and with a cut, its whole 8 KB pool: promoted to the old generation, to be
   * marked and swept there (BENCHMARKS.md, issue 42).
   */
  generateTraceId(): string {
    const id = this.handedOver ?? this.next(32, INVALID_TRACEID);
    this.handedOver = undefined;
    return ownCopy(id);
  }

  /**
   * The id the next generateTraceId answers: a new trace's, drawn before its sampling decision (the ratio samplers
   * decide by it), and taken by the SDK as it starts that trace's first span (sampled-once.ts); undefined withdraws it.
   */
  handOver(traceId: string | undefined): void {
    this.handedOver = traceId;
  }

  /** The SDK's, for a span it records: a copy, as generateTraceId's. */
  generateSpanId(): string {
    return ownCopy(this.next(16, INVALID_SPANID));
  }

  private next(chars: number, invalid: string): string {
    if (this.offset + chars > this.hex.length) {
      this.hex = randomFillSync(Buffer.allocUnsafe(POOL_BYTES)).toString('hex');
      this.offset = 0;
    }
    const id = this.hex.slice(this.offset, (this.offset += chars));
    // All zeros is no id (W3C Trace Context); one chance in 2^64 or 2^128. The first digit spares the comparison.
    return id.charCodeAt(0) === ZERO && id === invalid ? this.next(chars, invalid) : id;
  }
}

/** The same hex digits in a string of their own, sharing no memory with the pool. */
function ownCopy(id: string): string {
  return Buffer.from(id, 'hex').toString('hex');
}
