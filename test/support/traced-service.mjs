// The built service with the SDK's in-memory span exporter instead of one the OTEL_* variables choose, as the
// start command's preload would start it: the SDK first, then the service's modules, which it patches as they load.
// Its spans are read over IPC ('spans'); `X-Test-Throw: plain` makes a team middleware fail unexpectedly.
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { startTracing } from '../../dist/telemetry/start-tracing.js';

const finished = new InMemorySpanExporter();
await startTracing([new SimpleSpanProcessor({ exporter: finished })]);

const { startThrowingService } = await import('./start-throwing-service.mjs');
const service = await startThrowingService({ tracing: true });

const plain = (span) => ({
  name: span.name,
  kind: span.kind,
  traceId: span.spanContext().traceId,
  spanId: span.spanContext().spanId,
  traceState: span.spanContext().traceState?.serialize(),
  parent: span.parentSpanContext === undefined ? undefined : { ...span.parentSpanContext, traceState: undefined },
  attributes: span.attributes,
  status: span.status,
  events: span.events.map((event) => ({ name: event.name, attributes: event.attributes })),
  resource: span.resource.attributes,
});
process.on('message', (message) => {
  if (message === 'spans') process.send(finished.getFinishedSpans().map(plain));
});
process.on('SIGTERM', () => void service.stop().then(() => process.exit(0)));
