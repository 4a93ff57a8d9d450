import type Router from '@koa/router';
import { randomUUID } from 'node:crypto';
import type { BlockList } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Context, Next } from 'koa';
import type { ApiKeyId } from '../../ports/api-key-verifier.js';
import { msSince } from '../../telemetry/logger.js';
import { clientAddress } from './client-address.js';
import { GET_PET_DEPRECATION_HEADERS, isGetPet } from './deprecation.js';
import { routeTemplate, type RequestLine, type RequestObserver } from './observe-requests.js';

/**
 * Headers for a JSON API that never renders HTML (OWASP REST Security Cheat Sheet). CSP frame-ancestors
 * replaces X-Frame-Options, and a JSON body has no links to leak a referrer through.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'Cache-Control': 'no-store',
});

/** getPet's responses carry its deprecation notice as well: one set of headers, worked out once. */
const GET_PET_HEADERS = Object.freeze({ ...SECURITY_HEADERS, ...GET_PET_DEPRECATION_HEADERS });

/** The fixed headers of every response to `method` `path`: the security headers, and getPet's deprecation notice. */
function fixedHeadersOf(method: string, path: string): Readonly<Record<string, string>> {
  return isGetPet(method, path) ? GET_PET_HEADERS : SECURITY_HEADERS;
}

/** What the service keeps for one request, as ctx.state. */
export interface RequestState {
  readonly requestId: string;
  readonly clientAddress: string;
  readonly started: number;
  /** Set once the key is proved, before its quota is counted, so that a 429 names whom it throttled. */
  apiKeyId: ApiKeyId | null;
  /** The code of the error body answered (error-responses.ts), for the log line; null for any other answer. */
  errorCode: string | null;
  /** True once logged and counted; the server's own timeout answer may do it first (client-errors.ts). */
  observed: boolean;
}

export interface RequestContextDeps {
  /** Logs and counts each response; undefined on the metrics port below LOG_LEVEL=debug. */
  readonly observer?: RequestObserver;
  /** The routers that dispatch requests, in order: they name the route template of each response for its log line and counts. */
  readonly routers: readonly Router[];
  /** Proxies whose X-Forwarded-For is believed; undefined means none. */
  readonly trustedProxies?: BlockList;
}

// Only ids that are safe to echo and to log are taken from the client.
const CLIENT_REQUEST_ID = /^[\w.:-]{1,128}$/;
const IN_FLIGHT = Symbol('request in flight');
type ServingSocket = Duplex & { [IN_FLIGHT]?: Context | undefined };
type Writable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * The first middleware: identifies the request (X-Request-Id, client address), sets the headers every response
 * carries (and getPet's deprecation notice), and once the rest of the chain has answered, logs and counts it.
 */
export function requestContext(deps: RequestContextDeps) {
  return async function requestContext(ctx: Context, next: Next): Promise<void> {
    // Node's parsed header, read directly: Koa's ctx.get lower-cases the name it is given on every call.
    const given = ctx.req.headers['x-request-id'];
    // Koa's fresh ctx.state, filled field by field (no object built to be copied in).
    const state = ctx.state as Writable<RequestState>;
    state.requestId = typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : randomUUID();
    state.clientAddress = clientAddress(ctx.req, deps.trustedProxies);
    state.started = performance.now();
    state.apiKeyId = null;
    state.errorCode = null;
    state.observed = false;
    // ctx.response itself rather than ctx's aliases of it, as in send-json.ts.
    const response = ctx.response;
    response.set('X-Request-Id', state.requestId);
    response.set(fixedHeadersOf(ctx.method, ctx.path));
    // Remembered on the connection, so that the server's own timeout answer can name this request.
    const socket = ctx.req.socket as ServingSocket;
    socket[IN_FLIGHT] = ctx;
    await next();
    if (socket[IN_FLIGHT] === ctx) socket[IN_FLIGHT] = undefined;
    if (deps.observer !== undefined && !state.observed) deps.observer.record(requestLine(ctx, ctx.status, routeTemplate(ctx, deps.routers)));
  };
}

/** The request the server is reading or answering on `socket`, if any. */
export function inFlightRequest(socket: Duplex): Context | undefined {
  return (socket as ServingSocket)[IN_FLIGHT];
}

/** The log line of a request, as answered with `status` (and the error body's `code`, if any). */
export function requestLine(ctx: Context, status: number, route: string | null, code?: string): RequestLine {
  const state = ctx.state as RequestState;
  return {
    requestId: state.requestId,
    method: ctx.method,
    route,
    status,
    code: code ?? state.errorCode,
    durationMs: msSince(state.started),
    apiKeyId: state.apiKeyId,
    clientAddress: state.clientAddress,
  };
}
