import { context, trace, TraceFlags } from '@opentelemetry/api';
import type { LoggerOptions } from 'pino';

const NO_TRACE: Readonly<Record<string, string>> = Object.freeze({});

/**
 * The trace and span of the active context, under the field names OpenTelemetry's log correlation uses, when that
 * span is sampled: an unsampled request runs without a span (request-tracing.ts), and its ids would name a trace
 * no backend holds.
 */
function traceLogFields(): Readonly<Record<string, string>> {
  const span = trace.getSpan(context.active());
  if (span === undefined) return NO_TRACE;
  const { traceId, spanId, traceFlags } = span.spanContext();
  if ((traceFlags & TraceFlags.SAMPLED) === 0) return NO_TRACE;
  return { trace_id: traceId, span_id: spanId, trace_flags: flagsText(traceFlags) };
}

/** Trace flags as W3C Trace Context writes them (traceparent, traceresponse, log correlation): two hex digits. */
export function flagsText(traceFlags: number): string {
  return traceFlags.toString(16).padStart(2, '0');
}

/**
 * pino's mixin options when tracing is on: every line written inside a sampled request's span carries its trace.
 * The three fields go onto the line's own object; pino's default would copy every field of the line into the mixin's.
 * Loaded only then (logger.ts), so tracing off loads nothing of OpenTelemetry.
 */
export const TRACE_LOG_OPTIONS: Pick<LoggerOptions, 'mixin' | 'mixinMergeStrategy'> = {
  mixin: traceLogFields,
  mixinMergeStrategy: (line, fields) => {
    if (fields === NO_TRACE) return line;
    return Object.isExtensible(line) ? Object.assign(line, fields) : { ...fields, ...line };
  },
};
