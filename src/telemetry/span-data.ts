import { createTraceState, type Attributes, type HrTime, type Link, type SpanContext, type SpanKind, type SpanStatus } from '@opentelemetry/api';
import type { InstrumentationScope } from '@opentelemetry/core';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace';

/**
 * A batch of finished spans as plain data, to cross to the export worker (span-export-worker.ts) by structured clone:
 * every field of the SDK's `ReadableSpan`, its methods and class instances aside (a trace state travels as its
 * header text, a resource as its attributes). Spans and contexts are tuples, and each resource and scope is sent
 * once a batch: a clone writes every key of every object, and a batch of keyed spans took 2.3 times as long to post.
 */
export interface SpanBatch {
  readonly resources: readonly (readonly [attributes: Attributes, schemaUrl: string | undefined])[];
  readonly scopes: readonly InstrumentationScope[];
  readonly spans: readonly SpanTuple[];
}

type ContextTuple = readonly [traceId: string, spanId: string, traceFlags: number, traceState: string | undefined, isRemote: boolean | undefined];

type SpanTuple = readonly [
  name: string,
  kind: SpanKind,
  context: ContextTuple,
  parent: ContextTuple | undefined,
  startTime: HrTime,
  endTime: HrTime,
  duration: HrTime,
  status: SpanStatus,
  attributes: Attributes,
  links: readonly (readonly [ContextTuple, Attributes | undefined, number | undefined])[],
  events: TimedEvent[],
  scope: number,
  resource: number,
  dropped: readonly [attributes: number, events: number, links: number],
];

/** The batch's spans as data (the main thread's side). */
export function spanBatch(spans: readonly ReadableSpan[]): SpanBatch {
  const resources: Resource[] = [];
  const scopes: InstrumentationScope[] = [];
  const tuples = spans.map((span): SpanTuple => [
    span.name,
    span.kind,
    contextTuple(span.spanContext()),
    span.parentSpanContext && contextTuple(span.parentSpanContext),
    span.startTime,
    span.endTime,
    span.duration,
    span.status,
    span.attributes,
    span.links.map((link) => [contextTuple(link.context), link.attributes, link.droppedAttributesCount]),
    span.events,
    indexIn(scopes, span.instrumentationScope),
    indexIn(resources, span.resource),
    [span.droppedAttributesCount, span.droppedEventsCount, span.droppedLinksCount],
  ]);
  return { resources: resources.map(({ attributes, schemaUrl }) => [attributes, schemaUrl]), scopes, spans: tuples };
}

/** Where `item` is in `list` (a batch holds one or two), added if it is not. */
function indexIn<T>(list: T[], item: T): number {
  const index = list.indexOf(item);
  return index >= 0 ? index : list.push(item) - 1;
}

const contextTuple = (context: SpanContext): ContextTuple => [
  context.traceId,
  context.spanId,
  context.traceFlags,
  context.traceState?.serialize(),
  context.isRemote,
];

/** The batch's spans as objects implementing `ReadableSpan`, for an exporter (the worker's side). */
export function readableSpans(batch: SpanBatch): ReadableSpan[] {
  const resources = batch.resources.map(([attributes, schemaUrl]) => resourceFromAttributes(attributes, { schemaUrl }));
  return batch.spans.map(([name, kind, context, parent, startTime, endTime, duration, status, attributes, links, events, scope, resource, dropped]) => {
    const spanContext = spanContextOf(context);
    return {
      name,
      kind,
      spanContext: () => spanContext,
      parentSpanContext: parent && spanContextOf(parent),
      startTime,
      endTime,
      duration,
      status,
      attributes,
      links: links.map(([linked, linkAttributes, droppedAttributesCount]): Link => ({
        context: spanContextOf(linked),
        attributes: linkAttributes,
        droppedAttributesCount,
      })),
      events,
      instrumentationScope: batch.scopes[scope]!,
      resource: resources[resource]!,
      ended: true,
      droppedAttributesCount: dropped[0],
      droppedEventsCount: dropped[1],
      droppedLinksCount: dropped[2],
    };
  });
}

function spanContextOf([traceId, spanId, traceFlags, traceState, isRemote]: ContextTuple): SpanContext {
  const context: SpanContext = { traceId, spanId, traceFlags };
  if (traceState !== undefined) context.traceState = createTraceState(traceState);
  if (isRemote !== undefined) context.isRemote = isRemote;
  return context;
}
