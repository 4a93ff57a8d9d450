import { context, isSpanContextValid, trace } from '@opentelemetry/api';

/**
 * pino's mixin when tracing is on: the trace and span of the active context in every line it logs, under the
 * field names OpenTelemetry's log correlation uses. Loaded only then (logger.ts), so tracing off loads nothing of it.
 */
export function traceLogFields(): Record<string, string> {
  // A fresh object each line: pino merges the line's own fields into it.
  const spanContext = trace.getSpan(context.active())?.spanContext();
  if (spanContext === undefined || !isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId, trace_flags: `0${spanContext.traceFlags.toString(16)}` };
}
