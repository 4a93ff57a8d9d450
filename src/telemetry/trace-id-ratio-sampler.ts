import { SamplingDecision, type Context, type Sampler, type SamplingResult } from '@opentelemetry/api';

/** Each character's value as a hex digit, either case (as the API's isValidTraceId takes them); 16 for any other. */
const HEX_DIGIT = new Uint8Array(128).fill(16);
for (let digit = 0; digit < 16; digit++) {
  const text = digit.toString(16);
  HEX_DIGIT[text.charCodeAt(0)] = digit;
  HEX_DIGIT[text.toUpperCase().charCodeAt(0)] = digit;
}

const SAMPLED: SamplingResult = Object.freeze({ decision: SamplingDecision.RECORD_AND_SAMPLED });
const DROPPED: SamplingResult = Object.freeze({ decision: SamplingDecision.NOT_RECORD });

/**
 * The `traceidratio` sampler of OTEL_TRACES_SAMPLER: the SDK's TraceIdRatioBasedSampler decision for decision (a
 * valid trace id's four 32-bit words XORed, sampled below ratio × (2^32 - 1); tested against it), read in one pass
 * through a table. The SDK's checks the id, then parses it with two branches a digit, which random ids mispredict;
 * asked for every request, a decision cost three times this one's (BENCHMARKS.md, issue 42, nineteenth session).
 */
export class TraceIdRatioSampler implements Sampler {
  readonly #ratio: number;
  readonly #upperBound: number;

  constructor(ratio: number) {
    this.#ratio = Number.isNaN(ratio) ? 0 : Math.min(Math.max(ratio, 0), 1);
    this.#upperBound = this.#ratio === 1 ? 2 ** 32 : Math.floor(this.#ratio * 0xffffffff);
  }

  shouldSample(_context: Context, traceId: string): SamplingResult {
    const words = wordsXored(traceId);
    return words >= 0 && words < this.#upperBound ? SAMPLED : DROPPED;
  }

  toString(): string {
    return `TraceIdRatioBased{${this.#ratio}}`;
  }
}

/** The trace id's four 32-bit words XORed, or -1 if it is none: not 32 hex digits, or all zeros (W3C Trace Context). */
function wordsXored(traceId: string): number {
  if (typeof traceId !== 'string' || traceId.length !== 32) return -1;
  let xored = 0;
  let digits = 0;
  let any = 0;
  for (let start = 0; start < 32; start += 8) {
    let word = 0;
    for (let i = start; i < start + 8; i++) {
      const code = traceId.charCodeAt(i);
      const digit = code < 128 ? HEX_DIGIT[code]! : 16;
      digits |= digit;
      word = (word << 4) | (digit & 15);
    }
    any |= word;
    xored = (xored ^ word) >>> 0;
  }
  // Only a character that is no hex digit sets a bit above 15.
  return digits > 15 || any === 0 ? -1 : xored;
}
