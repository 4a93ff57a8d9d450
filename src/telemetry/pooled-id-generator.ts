import { randomFillSync } from 'node:crypto';
import { INVALID_SPANID, INVALID_TRACEID } from '@opentelemetry/api';
import type { NodeSDKConfiguration } from '@opentelemetry/sdk-node';

const ZERO = '0'.charCodeAt(0);

type IdGenerator = NodeSDKConfiguration['idGenerator'];

/** Random bytes drawn at a time: the ids of about 170 requests (a trace id and a server span id each). */
const POOL_BYTES = 4096;

/**
 * Trace and span ids for the SDK (its documented `idGenerator` option), cut from one hex string of random bytes
 * drawn POOL_BYTES at a time. Every request asks for both (its traceresponse names them, sampled or not); the SDK's
 * generator makes each with its own Math.random calls and Buffer-to-hex conversion.
 */
export class PooledIdGenerator implements IdGenerator {
  private hex = '';
  private offset = 0;
  private handedOver: string | undefined;

  generateTraceId(): string {
    const id = this.handedOver;
    if (id === undefined) return this.next(32, INVALID_TRACEID);
    this.handedOver = undefined;
    return id;
  }

  /**
   * The id the next generateTraceId answers: a new trace's, drawn before its sampling decision (the ratio samplers
   * decide by it), and taken by the SDK as it starts that trace's first span (sampled-once.ts); undefined withdraws it.
   */
  handOver(traceId: string | undefined): void {
    this.handedOver = traceId;
  }

  generateSpanId(): string {
    return this.next(16, INVALID_SPANID);
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
