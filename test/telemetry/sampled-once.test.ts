import { ROOT_CONTEXT, SamplingDecision, SpanKind, TraceFlags, trace } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import { AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { PooledIdGenerator } from '../../src/telemetry/pooled-id-generator.js';
import { SampledOnce } from '../../src/telemetry/sampled-once.js';

/* The request's sampling decision, taken before any span, and the SDK's span taking it (a real SDK tracer). */

function setUp(ratio: number) {
  const sampling = new SampledOnce(new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) }), new PooledIdGenerator());
  const tracer = new TracerProvider({ sampler: sampling, idGenerator: sampling.ids }).getTracer('test');
  return { sampling, tracer };
}

const caller = (traceFlags: TraceFlags) =>
  trace.setSpanContext(ROOT_CONTEXT, { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags, isRemote: true });

describe('SampledOnce', () => {
  it('drops a new trace at ratio 0, with a trace id of its own, and starts no span', () => {
    const { sampling } = setUp(0);
    const decided = sampling.decide(ROOT_CONTEXT, 'GET', SpanKind.SERVER);
    expect(decided.result.decision).toBe(SamplingDecision.NOT_RECORD);
    expect(decided.newTrace).toBe(true);
    expect(decided.traceId).toMatch(/^[0-9a-f]{32}$/);
  });

  it("keeps a sampled caller's trace at ratio 0, and the SDK's span continues it", () => {
    const { sampling, tracer } = setUp(0);
    const parent = caller(TraceFlags.SAMPLED);
    const decided = sampling.decide(parent, 'GET', SpanKind.SERVER);
    expect(decided).toMatchObject({ traceId: '0af7651916cd43dd8448eb211c80319c', newTrace: false, result: { decision: SamplingDecision.RECORD_AND_SAMPLED } });
    const span = sampling.startSpan(tracer, 'GET', { kind: SpanKind.SERVER }, parent, decided);
    expect(span.isRecording()).toBe(true);
    expect(span.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
  });

  it('starts a kept new trace with the id decided on, and leaves the decision out of its children', () => {
    const { sampling, tracer } = setUp(1);
    const decided = sampling.decide(ROOT_CONTEXT, 'GET', SpanKind.SERVER);
    const span = sampling.startSpan(tracer, 'GET', { kind: SpanKind.SERVER }, ROOT_CONTEXT, decided);
    expect(span.spanContext()).toMatchObject({ traceId: decided.traceId, traceFlags: TraceFlags.SAMPLED });
    // A child is decided by the configured sampler: a sampled parent keeps it.
    const child = tracer.startSpan('PetCatalog.getPet', {}, trace.setSpan(ROOT_CONTEXT, span));
    expect(child.spanContext().traceId).toBe(decided.traceId);
    expect(child.isRecording()).toBe(true);
  });

  it('withdraws the trace id when the SDK did not take it', () => {
    const { sampling, tracer } = setUp(1);
    const decided = sampling.decide(ROOT_CONTEXT, 'GET', SpanKind.SERVER);
    const suppressed = sampling.startSpan(tracer, 'GET', {}, suppressTracing(ROOT_CONTEXT), decided);
    expect(suppressed.isRecording()).toBe(false);
    expect(tracer.startSpan('other', {}, ROOT_CONTEXT).spanContext().traceId).not.toBe(decided.traceId);
  });

  it('answers other spans as the configured sampler does', () => {
    const sampling = new SampledOnce(new AlwaysOnSampler(), new PooledIdGenerator());
    expect(sampling.shouldSample(ROOT_CONTEXT, 'a'.repeat(32), 'x', SpanKind.INTERNAL, {}, []).decision).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(sampling.toString()).toBe('AlwaysOnSampler');
  });
});
