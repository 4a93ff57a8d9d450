import {
  createContextKey,
  isSpanContextValid,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Sampler,
  type SamplingResult,
  type Span,
  type SpanKind,
  type SpanOptions,
  type Tracer,
} from '@opentelemetry/api';
import type { PooledIdGenerator } from './pooled-id-generator.js';

const DECIDED = createContextKey('animal-store-service sampling decision');
const NO_ATTRIBUTES: Attributes = Object.freeze({});
const NO_LINKS: Link[] = [];

/** A request's sampling decision and the trace it is in: the caller's, else a new one. */
export interface Decided {
  readonly traceId: string;
  readonly newTrace: boolean;
  readonly result: SamplingResult;
}

/**
 * The configured sampler, asked once per request, before any span: a request it drops needs no span at all
 * (request-tracing.ts). Given to the SDK as its sampler, so that the span of a request it keeps takes the decision
 * already made instead of asking again, and is asked for every other span (MongoDB's, the use cases') as configured.
 */
export class SampledOnce implements Sampler {
  constructor(
    private readonly configured: Sampler,
    readonly ids: PooledIdGenerator,
  ) {}

  /** The decision on a request whose caller's context is `parent`. */
  decide(parent: Context, spanName: string, kind: SpanKind): Decided {
    const caller = trace.getSpanContext(parent);
    const newTrace = caller === undefined || !isSpanContextValid(caller);
    const traceId = newTrace ? this.ids.requestTraceId() : caller.traceId;
    return { traceId, newTrace, result: this.configured.shouldSample(parent, traceId, spanName, kind, NO_ATTRIBUTES, NO_LINKS) };
  }

  /** The span of a request the sampler kept, started by the SDK with the decision made and, for a new trace, its id. */
  startSpan(tracer: Tracer, name: string, options: SpanOptions, parent: Context, decided: Decided): Span {
    if (decided.newTrace) this.ids.handOver(decided.traceId);
    try {
      return tracer.startSpan(name, options, parent.setValue(DECIDED, decided.result));
    } finally {
      // Not left for another span, should the SDK not have asked (it starts none in a context that suppresses tracing).
      this.ids.handOver(undefined);
    }
  }

  shouldSample(context: Context, traceId: string, spanName: string, spanKind: SpanKind, attributes: Attributes, links: Link[]): SamplingResult {
    const decided = context.getValue(DECIDED) as SamplingResult | undefined;
    return decided ?? this.configured.shouldSample(context, traceId, spanName, spanKind, attributes, links);
  }

  toString(): string {
    return this.configured.toString();
  }
}
