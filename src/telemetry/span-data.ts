import { createTraceState, type Attributes, type HrTime, type Link, type SpanContext, type SpanKind, type SpanStatusCode } from '@opentelemetry/api';
import { hrTimeDuration, type InstrumentationScope } from '@opentelemetry/core';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace';

/**
 * A batch of finished spans as plain data, to cross to the export worker (span-export-worker.ts) by structured clone:
 * every field of the SDK's `ReadableSpan`, its methods and class instances aside (a trace state travels as its
 * header text, a resource as its attributes). Each span is one flat tuple, and each resource and scope is sent once
 * a batch: a clone pays for every key, array and object, and the request thread pays for the clone (512 spans of
 * lists: 320 µs flat, 534 µs as nested tuples, 706 µs to encode them as protobuf; BENCHMARKS.md, issue 42).
 */
export interface SpanBatch {
  readonly resources: readonly (readonly [attributes: Attributes, schemaUrl: string | undefined])[];
  readonly scopes: readonly InstrumentationScope[];
  readonly spans: readonly SpanTuple[];
}

/** A context a span refers to, but for its trace id where it is the span's own (a parent's always is). */
type ContextTuple = readonly [spanId: string, traceFlags: number, traceState: string | undefined, isRemote: boolean | undefined];
type LinkTuple = readonly [traceId: string, ...context: ContextTuple, attributes: Attributes | undefined, droppedAttributesCount: number | undefined];

// Empty link and event arrays are left out, and the duration is worked out again from the start and end, as the
// SDK works it out.
type SpanTuple = readonly [
  name: string,
  kind: SpanKind,
  traceId: string,
  ...context: ContextTuple,
  ...parent: ContextTuple | readonly [undefined, undefined, undefined, undefined],
  startSeconds: number,
  startNanos: number,
  endSeconds: number,
  endNanos: number,
  statusCode: SpanStatusCode,
  statusMessage: string | undefined,
  attributes: Attributes,
  links: readonly LinkTuple[] | undefined,
  events: TimedEvent[] | undefined,
  scope: number,
  resource: number,
  droppedAttributesCount: number,
  droppedEventsCount: number,
  droppedLinksCount: number,
];

/** The batch's spans as data (the main thread's side). */
export function spanBatch(spans: readonly ReadableSpan[]): SpanBatch {
  const resources: Resource[] = [];
  const scopes: InstrumentationScope[] = [];
  const tuples = spans.map((span): SpanTuple => {
    const { traceId, ...context } = span.spanContext();
    const parent = span.parentSpanContext;
    return [
      span.name,
      span.kind,
      traceId,
      ...contextTuple(context),
      ...(parent === undefined ? NO_PARENT : contextTuple(parent)),
      ...span.startTime,
      ...span.endTime,
      span.status.code,
      span.status.message,
      span.attributes,
      span.links.length === 0 ? undefined : span.links.map(linkTuple),
      span.events.length === 0 ? undefined : span.events,
      indexIn(scopes, span.instrumentationScope),
      indexIn(resources, span.resource),
      span.droppedAttributesCount,
      span.droppedEventsCount,
      span.droppedLinksCount,
    ];
  });
  return { resources: resources.map(({ attributes, schemaUrl }) => [attributes, schemaUrl]), scopes, spans: tuples };
}

const NO_PARENT = [undefined, undefined, undefined, undefined] as const;

/** Where `item` is in `list` (a batch holds one or two), added if it is not. */
function indexIn<T>(list: T[], item: T): number {
  const index = list.indexOf(item);
  return index >= 0 ? index : list.push(item) - 1;
}

const contextTuple = (context: Omit<SpanContext, 'traceId'>): ContextTuple => [
  context.spanId,
  context.traceFlags,
  context.traceState?.serialize(),
  context.isRemote,
];

const linkTuple = ({ context, attributes, droppedAttributesCount }: Link): LinkTuple => [
  context.traceId,
  ...contextTuple(context),
  attributes,
  droppedAttributesCount,
];

/** The batch's spans as objects implementing `ReadableSpan`, for an exporter (the worker's side). */
export function readableSpans(batch: SpanBatch): ReadableSpan[] {
  const resources = batch.resources.map(([attributes, schemaUrl]) => resourceFromAttributes(attributes, { schemaUrl }));
  return batch.spans.map((span) => {
    const [name, kind, traceId, spanId, traceFlags, traceState, isRemote, parentId, parentFlags, parentState, parentRemote,
      startSeconds, startNanos, endSeconds, endNanos, statusCode, statusMessage, attributes, links, events,
      scope, resource, droppedAttributesCount, droppedEventsCount, droppedLinksCount] = span;
    const spanContext = spanContextOf(traceId, [spanId, traceFlags, traceState, isRemote]);
    const startTime: HrTime = [startSeconds, startNanos];
    const endTime: HrTime = [endSeconds, endNanos];
    return {
      name,
      kind,
      spanContext: () => spanContext,
      parentSpanContext: parentId === undefined ? undefined : spanContextOf(traceId, [parentId, parentFlags!, parentState, parentRemote]),
      startTime,
      endTime,
      duration: hrTimeDuration(startTime, endTime),
      status: statusMessage === undefined ? { code: statusCode } : { code: statusCode, message: statusMessage },
      attributes,
      links: (links ?? []).map(([linkTrace, linkSpan, linkFlags, linkState, linkRemote, linkAttributes, linkDropped]) => ({
        context: spanContextOf(linkTrace, [linkSpan, linkFlags, linkState, linkRemote]),
        attributes: linkAttributes,
        droppedAttributesCount: linkDropped,
      })),
      events: events ?? [],
      instrumentationScope: batch.scopes[scope]!,
      resource: resources[resource]!,
      ended: true,
      droppedAttributesCount,
      droppedEventsCount,
      droppedLinksCount,
    };
  });
}

function spanContextOf(traceId: string, [spanId, traceFlags, traceState, isRemote]: ContextTuple): SpanContext {
  const context: SpanContext = { traceId, spanId, traceFlags };
  if (traceState !== undefined) context.traceState = createTraceState(traceState);
  if (isRemote !== undefined) context.isRemote = isRemote;
  return context;
}
