import { randomBytes } from 'node:crypto';
import { ROOT_CONTEXT, SamplingDecision, SpanKind, type Sampler } from '@opentelemetry/api';
import { TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { TraceIdRatioSampler } from '../../src/telemetry/trace-id-ratio-sampler.js';

/* The service's traceidratio sampler decides every trace id as the SDK's TraceIdRatioBasedSampler does. */

const RATIOS = [0, 1e-6, 0.001, 0.01, 0.3, 0.5, 0.999, 1];
const randomIds = Array.from({ length: 20_000 }, () => randomBytes(16).toString('hex'));
const decisions = (sampler: Sampler, ids: readonly string[]) =>
  ids.map((id) => sampler.shouldSample(ROOT_CONTEXT, id, 'GET', SpanKind.SERVER, {}, []).decision);

describe('TraceIdRatioSampler', () => {
  it.each(RATIOS)('decides 20,000 random trace ids as the SDK does at ratio %s', (ratio) => {
    const ours = decisions(new TraceIdRatioSampler(ratio), randomIds);
    expect(ours).toEqual(decisions(new TraceIdRatioBasedSampler(ratio), randomIds));
    // Not a constant answer: between the extremes both decisions occur.
    if (ratio >= 0.3 && ratio <= 0.5) expect(new Set(ours)).toEqual(new Set([SamplingDecision.NOT_RECORD, SamplingDecision.RECORD_AND_SAMPLED]));
  });

  const edges = [
    'f'.repeat(32), // the words XOR to 0: sampled wherever the bound is above 0
    'F'.repeat(32), // upper-case digits are taken, as the API's isValidTraceId takes them
    '0'.repeat(31) + '1',
    'ABCDEF0123456789abcdef0123456789',
    '0'.repeat(32), // all zeros: no trace id
    'g'.repeat(32),
    'a'.repeat(31),
    'a'.repeat(33),
    '',
    'é' + 'a'.repeat(31),
    '\u0130' + 'a'.repeat(31), // a character whose low byte is a hex digit's
    'a'.repeat(31) + ':',
  ];
  it.each(RATIOS)('decides valid and invalid ids at the edges as the SDK does at ratio %s', (ratio) => {
    expect(decisions(new TraceIdRatioSampler(ratio), edges)).toEqual(decisions(new TraceIdRatioBasedSampler(ratio), edges));
  });

  it('samples no id that is not a trace id, even at ratio 1', () => {
    const sampler: Sampler = new TraceIdRatioSampler(1);
    for (const id of ['0'.repeat(32), 'g'.repeat(32), 'a'.repeat(31), undefined as unknown as string]) {
      expect(sampler.shouldSample(ROOT_CONTEXT, id, 'GET', SpanKind.SERVER, {}, []).decision).toBe(SamplingDecision.NOT_RECORD);
    }
  });

  it.each([0.25, 2, -1, Number.NaN])('names itself as the SDK does for ratio %s', (ratio) => {
    expect(new TraceIdRatioSampler(ratio).toString()).toBe(new TraceIdRatioBasedSampler(ratio).toString());
  });
});
