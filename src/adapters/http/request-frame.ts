import type Router from '@koa/router';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { BlockList } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Context, Next } from 'koa';
import type { PetCatalog } from '../../core/pet-catalog.js';
import type { ApiKeyId } from '../../ports/api-key-verifier.js';
import type { RateLimits } from '../../ports/rate-limiter.js';
import { authenticateRequest } from './authenticate.js';
import { clientAddress } from './client-address.js';
import { applyCors } from './cors.js';
import { GET_PET_DEPRECATION_HEADERS, isGetPet } from './deprecation.js';
import { bareStatusError, isUnexpected, toErrorResponse } from './error-responses.js';
import { routeTemplate, type RequestObserver } from './observe-requests.js';
import type { RequestLine } from './request-line-writer.js';
import { ReplyBatch } from './reply-batch.js';
import { routeDispatcher } from './route-dispatch.js';
import { SECURITY_HEADERS } from './request-context.js';
import type { Reply } from './send-json.js';

export interface FrameDeps {
  readonly catalog: PetCatalog;
  readonly rateLimits: RateLimits;
  readonly observer: RequestObserver;
  /** Dispatches the routes (route-dispatch.ts); labels requests stopped before routing (401, 405) by route template. */
  readonly router: Router;
  /** Exact origins allowed to call from a browser; empty means CORS is off. */
  readonly corsOrigins: readonly string[];
  /** Proxies whose X-Forwarded-For is believed; undefined means none. */
  readonly trustedProxies: BlockList | undefined;
  readonly onUnexpectedError: (error: unknown, ctx: Context) => void;
}

/** What the frame keeps for one request, as ctx.state: one object of one shape. */
export class RequestState {
  apiKeyId: ApiKeyId | null = null;
  /** Set by sendJson; the frame writes it. */
  reply: Reply | undefined = undefined;
  /** True once logged and counted; the server's own timeout answer may do it first (client-errors.ts). */
  observed = false;
  readonly started = performance.now();
  constructor(
    readonly requestId: string,
    readonly clientAddress: string,
  ) {}
}

/** Paths under /v1 that need no key: the published contract. */
const PUBLIC_PATHS = new Set(['/v1/openapi.json']);
const JSON_TYPE = 'application/json; charset=utf-8';
// Only ids that are safe to echo and to log are taken from the client.
const CLIENT_REQUEST_ID = /^[\w.:-]{1,128}$/;
const SECURITY_HEADER_ENTRIES = Object.entries(SECURITY_HEADERS);
const DEPRECATION_HEADER_ENTRIES = Object.entries(GET_PET_DEPRECATION_HEADERS);
const IN_FLIGHT = Symbol('request in flight');

/**
 * The one middleware around the routes: everything every request needs, in order, in one async frame
 * (a stack of five middlewares cost a promise, a closure and Koa's getters each, on every request).
 * Koa's respond() is bypassed for JSON: the frame writes status and headers in one writeHead, and the body
 * goes out with the other replies of the event loop's turn (reply-batch.ts).
 */
export function requestFrame(deps: FrameDeps) {
  const corsOrigins = deps.corsOrigins.length > 0 ? new Set(deps.corsOrigins) : undefined;
  const dispatchRoute = routeDispatcher(deps.router);
  const observe = (ctx: Context, status: number) => {
    if (!(ctx.state as RequestState).observed) deps.observer.record(requestLine(ctx, status, routeTemplate(ctx, deps.router)));
  };
  const replies = new ReplyBatch(observe, deps.onUnexpectedError);
  return async function frame(ctx: Context, next: Next): Promise<void> {
    // 1. Identify and time the request; remember it on its connection for the server's timeout answer.
    const req = ctx.req;
    const state = new RequestState(requestIdOf(req), clientAddress(req, deps.trustedProxies));
    ctx.state = state;
    const socket = req.socket as Duplex & { [IN_FLIGHT]?: Context | undefined };
    socket[IN_FLIGHT] = ctx;
    const path = ctx.path;
    try {
      // 2. CORS, then the key and its quota (before routing, so a caller without a key learns nothing else).
      if (corsOrigins === undefined || !applyCors(ctx, corsOrigins)) {
        if (needsKey(path)) state.apiKeyId = authenticateRequest(ctx, deps.catalog, deps.rateLimits, state.clientAddress);
        // 3. The route (listPets reads its query through query.ts, bounded: issue 11, D1); next() when none.
        await dispatchRoute(ctx, path, next);
      }
      if (state.reply === undefined) {
        const bare = bareStatusError(ctx);
        if (bare !== undefined) throw bare;
      }
    } catch (error) {
      // 4. Every failure becomes a JSON Error body, in the one mapping of error-responses.ts.
      const { body, headers } = toErrorResponse(error);
      state.reply = { status: body.status, json: JSON.stringify(body), headers };
      if (isUnexpected(error, body.status)) deps.onUnexpectedError(error, ctx);
    }
    if (socket[IN_FLIGHT] === ctx) socket[IN_FLIGHT] = undefined;
    // 5. Write the response, then log and count it once (a JSON reply once its body is sent).
    const getPet = isGetPet(req.method ?? '', path);
    if (state.reply === undefined) observe(ctx, leaveToKoa(ctx, state, getPet));
    else replies.send(ctx, writeHead(ctx, state, state.reply, getPet), state.reply.json);
  };
}

/** The request the server is reading or answering on `socket`, if any. */
export function inFlightRequest(socket: Duplex): Context | undefined {
  return (socket as Duplex & { [IN_FLIGHT]?: Context })[IN_FLIGHT];
}

/** The log line of a request the frame has seen, as answered with `status`. */
export function requestLine(ctx: Context, status: number, route: string | null): RequestLine {
  const state = ctx.state as RequestState;
  return {
    requestId: state.requestId,
    method: ctx.req.method ?? null,
    route,
    status,
    durationMs: Math.round((performance.now() - state.started) * 1000) / 1000,
    apiKeyId: state.apiKeyId,
    clientAddress: state.clientAddress,
  };
}

function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : randomUUID();
}

function needsKey(path: string): boolean {
  return (path === '/v1' || path.startsWith('/v1/')) && !PUBLIC_PATHS.has(path);
}

// The head straight to Node in one writeHead (Koa's respond() and body setter re-derive what we already know);
// the body follows through ReplyBatch.
function writeHead(ctx: Context, state: RequestState, reply: Reply, getPet: boolean): number {
  ctx.respond = false;
  const res = ctx.res;
  const headers = ['Content-Type', JSON_TYPE, 'Content-Length', String(Buffer.byteLength(reply.json)), 'X-Request-Id', state.requestId];
  // A header a route set itself (the document's Cache-Control, a 405's Allow) wins over the defaults.
  const preset = res.getHeaderNames().length > 0;
  for (const [name, value] of SECURITY_HEADER_ENTRIES) if (!preset || !res.hasHeader(name)) headers.push(name, value);
  if (getPet) for (const [name, value] of DEPRECATION_HEADER_ENTRIES) headers.push(name, value);
  const own = reply.headers;
  if (own !== undefined) for (const name in own) headers.push(name, own[name]!);
  res.writeHead(reply.status, headers);
  return reply.status;
}

// Routes that are not JSON (the docs page and assets, /metrics, a CORS preflight) are sent by Koa.
function leaveToKoa(ctx: Context, state: RequestState, getPet: boolean): number {
  const res = ctx.res;
  if (!res.hasHeader('X-Request-Id')) res.setHeader('X-Request-Id', state.requestId);
  for (const [name, value] of SECURITY_HEADER_ENTRIES) if (!res.hasHeader(name)) res.setHeader(name, value);
  if (getPet) for (const [name, value] of DEPRECATION_HEADER_ENTRIES) res.setHeader(name, value);
  return ctx.status;
}
