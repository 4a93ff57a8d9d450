import type { IncomingHttpHeaders } from 'node:http';
import type { RouterMiddleware } from '@koa/router';
import { context, propagation, SamplingDecision, SpanKind, SpanStatusCode, trace, type Attributes, type Context as OtelContext, type Span } from '@opentelemetry/api';
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_REQUEST_METHOD_ORIGINAL,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
} from '@opentelemetry/semantic-conventions';
import type { Context, Middleware, Next } from 'koa';
import { DomainError } from '../../core/errors.js';
import { PetCatalog } from '../../core/pet-catalog.js';
import { requestSampling } from '../../telemetry/start-tracing.js';
import { flagsText } from '../../telemetry/trace-log-fields.js';
import { dispatchedRoute } from './observe-requests.js';
import type { RequestState } from './request-context.js';

/*
 * The service's spans when tracing is on (start-service.ts loads this module only then): a server span per
 * request, a span per routed operation, a span per use case. Only a request the sampler records pays for more
 * than the sampling decision.
 */

const tracer = trace.getTracer('animal-store-service');

/** The methods the HTTP semantic conventions know; any other is `_OTHER`, and its span is named `HTTP`. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH', 'QUERY']);
const SERVER_SPAN = Object.freeze({ kind: SpanKind.SERVER });

/**
 * The first middleware, `first` (request-context.ts), within the request's server span: continuing the caller's
 * traceparent, sampled once by the configured sampler, and, when recorded, named in a `traceresponse` header (W3C
 * Trace Context Level 2) so a client can quote it. One middleware rather than a Koa layer of its own, which would
 * cost every request a dispatch. `untraced`: the paths of probes and scrapes, frequent and with nothing to follow.
 */
export function traceRequests(untraced: ReadonlySet<string>, first: Middleware): Middleware {
  const sampling = requestSampling();
  // Without the SDK (a start without the preload, which main.ts warns of) there is nothing to trace with.
  if (sampling === undefined) return first;
  const carriers = propagation.fields();
  return function serverSpan(ctx: Context, next: Next): Promise<unknown> {
    if (untraced.has(ctx.path)) return first(ctx, next);
    const { req } = ctx;
    const method = req.method ?? 'GET';
    const name = KNOWN_METHODS.has(method) ? method : 'HTTP';
    const parent = carries(req.headers, carriers) ? propagation.extract(context.active(), req.headers) : context.active();
    const decided = sampling.decide(parent, name, SpanKind.SERVER);
    // A request the sampler drops runs as it would untraced: no span, no context to carry, as nothing below could
    // record (use-case and MongoDB command spans need a recording parent; log lines take ids from sampled spans),
    // and no traceresponse, which would name a trace no backend holds; Node's header code for it was the largest part
    // of a dropped request's cost (BENCHMARKS.md, issue 42).
    if (decided.result.decision === SamplingDecision.NOT_RECORD) return first(ctx, next);
    const span = sampling.startSpan(tracer, name, SERVER_SPAN, parent, decided);
    const { traceId, spanId, traceFlags } = span.spanContext();
    ctx.response.set('traceresponse', traceResponse(traceId, spanId, flagsText(traceFlags)));
    return recorded(span, ctx, trace.setSpan(parent, span), first, next);
  };
}

/** Whether the request carries a header the propagators read: without one, there is nothing to extract. */
function carries(headers: IncomingHttpHeaders, fields: readonly string[]): boolean {
  for (const field of fields) if (headers[field] !== undefined) return true;
  return false;
}

/*
 * The recorded paths below hand their arguments to context.with instead of making a closure per request, as
 * linked-context.ts keeps the contexts free of them: less for a recorded request to leave to the collector.
 */
async function recorded(span: Span, ctx: Context, active: OtelContext, first: Middleware, next: Next): Promise<void> {
  try {
    await context.with(active, first, undefined, ctx, next);
  } catch (error) {
    // Only a failure of the error mapping itself gets here; Koa answers it with a 500.
    recordFailure(span, error);
    throw error;
  } finally {
    endServerSpan(span, ctx);
  }
}

/** W3C Trace Context Level 2: version 00, the trace, this server's span, the trace flags (two hex digits). */
function traceResponse(traceId: string, spanId: string, flags: string): string {
  return `00-${traceId}-${spanId}-${flags}`;
}

function endServerSpan(span: Span, ctx: Context): void {
  const attributes = requestAttributes(ctx);
  const route = dispatchedRoute(ctx);
  if (route !== null) {
    span.updateName(`${ctx.method} ${route}`);
    attributes[ATTR_HTTP_ROUTE] = route;
  }
  attributes[ATTR_HTTP_RESPONSE_STATUS_CODE] = ctx.status;
  // Semantic conventions: a server span is in error for a 5xx only; a 4xx is the client's.
  if (ctx.status >= 500) {
    attributes[ATTR_ERROR_TYPE] = String(ctx.status);
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.setAttributes(attributes);
  span.end();
}

/** The HTTP semantic-convention attributes of a request (stable names). */
function requestAttributes(ctx: Context): Attributes {
  const { method, req } = ctx;
  const attributes: Attributes = {
    [ATTR_HTTP_REQUEST_METHOD]: KNOWN_METHODS.has(method) ? method : '_OTHER',
    [ATTR_URL_PATH]: ctx.path,
    [ATTR_URL_SCHEME]: ctx.protocol,
    [ATTR_NETWORK_PROTOCOL_VERSION]: req.httpVersion,
  };
  if (!KNOWN_METHODS.has(method)) attributes[ATTR_HTTP_REQUEST_METHOD_ORIGINAL] = method;
  if (ctx.hostname !== '') {
    attributes[ATTR_SERVER_ADDRESS] = ctx.hostname;
    attributes[ATTR_SERVER_PORT] = serverPort(ctx);
  }
  // The address requestContext worked out, believing X-Forwarded-For only from TRUSTED_PROXIES.
  const client = (ctx.state as Partial<RequestState>).clientAddress;
  if (client !== undefined) attributes[ATTR_CLIENT_ADDRESS] = client;
  const userAgent = req.headers['user-agent'];
  if (userAgent !== undefined) attributes[ATTR_USER_AGENT_ORIGINAL] = userAgent;
  return attributes;
}

/** The port of the Host header, else the scheme's. */
function serverPort(ctx: Context): number {
  const port = /:(\d+)$/.exec(ctx.host)?.[1];
  if (port !== undefined) return Number(port);
  return ctx.protocol === 'https' ? 443 : 80;
}

/**
 * Each operation's route handler (pet-routes.ts), run in a span of its own, named by its operationId (`createPet`,
 * the route's name), for a recorded request only. The router has matched the route by then and says which one
 * (`ctx.routerName`, `ctx.routerPath`): nothing is matched twice. A wrapper rather than a middleware of its own:
 * the route's stack holds the one handler, traced or not.
 */
export function withOperationSpan(handler: RouterMiddleware): RouterMiddleware {
  return (ctx, next) => {
    if (trace.getActiveSpan()?.isRecording() !== true) return handler(ctx, next);
    const { routerName, routerPath } = ctx;
    if (routerName === undefined) return handler(ctx, next);
    const span = tracer.startSpan(routerName, { attributes: { [ATTR_HTTP_ROUTE]: routerPath } });
    return operation(span, handler, ctx, next);
  };
}

async function operation(span: Span, handler: RouterMiddleware, ctx: Parameters<RouterMiddleware>[0], next: Next): Promise<unknown> {
  try {
    return await context.with(trace.setSpan(context.active(), span), handler, undefined, ctx, next);
  } finally {
    span.end();
  }
}

/**
 * For the app's 'error' event (an error that became an unanticipated 5xx): its exception on the server span. The
 * error mapping emits it within the request's context, so the active span is the request's.
 */
export function recordUnexpectedError(error: unknown): void {
  const span = trace.getActiveSpan();
  if (span?.isRecording() === true) span.recordException(error instanceof Error ? error : String(error));
}

function recordFailure(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR });
}

const AsyncFunction = (async () => {}).constructor;

/**
 * The use cases that get a span: PetCatalog's async methods, the ones that reach storage. `authenticate`, a
 * synchronous check of every request in memory, gets none.
 */
export const TRACED_USE_CASES: readonly string[] = Object.getOwnPropertyNames(PetCatalog.prototype).filter(
  (name) => Reflect.get(PetCatalog.prototype, name) instanceof AsyncFunction,
);

/**
 * The catalog whose use cases each run in a span of their own, named by the core's method (`PetCatalog.addPet`),
 * beneath the operation's span (createPet).
 */
export class TracedPetCatalog extends PetCatalog {}

for (const name of TRACED_USE_CASES) {
  Object.defineProperty(TracedPetCatalog.prototype, name, {
    value: traced(`PetCatalog.${name}`, Reflect.get(PetCatalog.prototype, name) as UseCase),
    writable: true,
    configurable: true,
  });
}

type UseCase = (this: PetCatalog, ...args: unknown[]) => Promise<unknown>;

function traced(spanName: string, useCase: UseCase): UseCase {
  return function (...args) {
    // A request its sampler left unrecorded gets no use-case span either: it could never be exported.
    if (trace.getActiveSpan()?.isRecording() !== true) return useCase.apply(this, args);
    return useCaseInSpan(tracer.startSpan(spanName), useCase, this, args);
  };
}

async function useCaseInSpan(span: Span, useCase: UseCase, catalog: PetCatalog, args: unknown[]): Promise<unknown> {
  try {
    return await context.with(trace.setSpan(context.active(), span), useCase, catalog, ...args);
  } catch (error) {
    // A domain error is named by its code; anything else is unexpected and keeps its exception.
    if (error instanceof DomainError) span.setAttribute('error.type', error.code);
    else span.recordException(error as Error);
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}
