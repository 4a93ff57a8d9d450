// The built service with the SDK's in-memory span exporter instead of one the OTEL_* variables choose, as the
// start command's preload would start it: the SDK first, then the service's modules, which it patches as they load.
// Its spans are read over IPC ('spans'); `X-Test-Throw: plain` makes a team middleware fail unexpectedly.
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { startTracing } from '../../dist/telemetry/start-tracing.js';

const finished = new InMemorySpanExporter();
await startTracing([new SimpleSpanProcessor({ exporter: finished })]);

const { loadConfig } = await import('../../dist/config/load-config.js');
const { createLogger } = await import('../../dist/telemetry/logger.js');
const { startService } = await import('../../dist/server/start-service.js');

const config = { ...loadConfig(), tracing: true };
const logger = await createLogger(config);
const throwing = (ctx, next) => {
  if (ctx.get('X-Test-Throw') === 'plain') throw new Error('an unexpected failure');
  return next();
};
const service = await startService(config, { logger, middleware: [throwing] });
logger.info({ url: `${service.url}/v1` }, 'listening');
logger.flush();

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
