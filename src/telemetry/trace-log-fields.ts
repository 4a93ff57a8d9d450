import { context, isSpanContextValid, trace } from '@opentelemetry/api';
import type { LoggerOptions } from 'pino';

const NO_TRACE: Readonly<Record<string, string>> = Object.freeze({});

/** The trace and span of the active context, under the field names OpenTelemetry's log correlation uses. */
function traceLogFields(): Readonly<Record<string, string>> {
  const spanContext = trace.getSpan(context.active())?.spanContext();
  if (spanContext === undefined || !isSpanContextValid(spanContext)) return NO_TRACE;
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId, trace_flags: `0${spanContext.traceFlags.toString(16)}` };
}

/**
 * pino's mixin options when tracing is on: every line written inside a traced context carries its trace. The
 * three fields go onto the line's own object; pino's default would copy every field of the line into the mixin's.
 * Loaded only then (logger.ts), so tracing off loads nothing of OpenTelemetry.
 */
export const TRACE_LOG_OPTIONS: Pick<LoggerOptions, 'mixin' | 'mixinMergeStrategy'> = {
  mixin: traceLogFields,
  mixinMergeStrategy: (line, fields) => {
    if (fields === NO_TRACE) return line;
    return Object.isExtensible(line) ? Object.assign(line, fields) : { ...fields, ...line };
  },
};
