import { STATUS_CODES } from 'node:http';
import type { Context, Next } from 'koa';
import { DomainError, InvalidApiKey, type DomainErrorCode } from '../../core/errors.js';
import { ApiError } from './api-error.js';
import type { RequestState } from './request-context.js';
import { sendJson } from './send-json.js';

export interface ErrorBody {
  readonly code: string;
  readonly message: string;
  readonly status: number;
}

const REALM = 'realm="animal-store"';

/** The one table from domain error codes to HTTP; a new domain code does not compile until it is listed here. */
const DOMAIN_ERROR_STATUS = {
  validation_failed: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  pet_not_found: 404,
  storage_unavailable: 503,
  idempotency_key_reused: 422,
} as const satisfies Record<DomainErrorCode, number>;

function domainErrorHeaders(error: DomainError): Record<string, string> {
  if (error.code === 'missing_api_key') return { 'WWW-Authenticate': `Bearer ${REALM}` };
  if (error instanceof InvalidApiKey) {
    // RFC 6750 §3: invalid_request for a malformed header, invalid_token for an unknown key.
    const rfcError = error.malformed ? 'invalid_request' : 'invalid_token';
    return { 'WWW-Authenticate': `Bearer ${REALM}, error="${rfcError}", error_description="${error.message.replace(/"/g, "'")}"` };
  }
  if (error.code === 'storage_unavailable') return { 'Retry-After': '5' };
  return {};
}

interface ErrorResponse {
  readonly body: ErrorBody;
  readonly headers: Readonly<Record<string, string>>;
}

/** An error that names its own HTTP status, as ctx.throw and http-errors make them (Koa's own convention). */
interface HttpStatusError {
  readonly status: number;
  readonly message: string;
  /** True when the message is meant for the client (http-errors sets it for 4xx). */
  readonly expose?: boolean;
  readonly headers?: Readonly<Record<string, string>>;
}

function isHttpStatusError(error: unknown): error is HttpStatusError {
  const status = (error as { status?: unknown } | null)?.status;
  return error instanceof Error && typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599;
}

/** Any thrown value as the response the client sees. Unknown errors reveal nothing of their cause. */
export function toErrorResponse(error: unknown): ErrorResponse {
  if (error instanceof DomainError) {
    const status = DOMAIN_ERROR_STATUS[error.code];
    return { body: { code: error.code, message: error.message, status }, headers: domainErrorHeaders(error) };
  }
  if (error instanceof ApiError) {
    return { body: { code: error.code, message: error.message, status: error.status }, headers: error.headers };
  }
  if (isHttpStatusError(error)) {
    // "Bad Request" becomes bad_request: the codes the service's own errors use for the same statuses.
    const reason = STATUS_CODES[error.status] ?? 'Error';
    const code = reason.toLowerCase().replace(/[^a-z0-9]+/g, '_');
    const message = error.expose === true ? error.message : `${reason}.`;
    return { body: { code, message, status: error.status }, headers: { ...error.headers } };
  }
  return {
    body: { code: 'internal_error', message: 'An unexpected error occurred.', status: 500 },
    headers: {},
  };
}

/**
 * The one error mapping, as middleware: every failure below it, and the router's bare 404/405/501 answers,
 * become JSON Error bodies. What became a 5xx without being anticipated is emitted on the app's 'error' event.
 */
export function respondWithErrors() {
  return async function errorResponses(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
      const bare = bareStatusError(ctx);
      if (bare !== undefined) throw bare;
    } catch (error) {
      const { body, headers } = toErrorResponse(error);
      (ctx.state as RequestState).errorCode = body.code;
      sendJson(ctx, body.status, JSON.stringify(body), headers);
      if (isUnexpected(error, body.status)) ctx.app.emit('error', error, ctx);
    }
  };
}

/** Whether an error is one no layer anticipated: it is logged with its stack, the client sees a generic 500. */
export function isUnexpected(error: unknown, status: number): boolean {
  return status >= 500 && !(error instanceof DomainError || error instanceof ApiError);
}

/**
 * Koa and @koa/router leave unmatched paths and methods without a body (Koa would send text/plain); this is
 * the JSON error for them, or undefined when the request was answered.
 */
export function bareStatusError(ctx: Context): ApiError | undefined {
  // The router answers OPTIONS itself with an empty text/plain 200; the contract offers no OPTIONS, so it is a 405.
  const routerOptions = ctx.method === 'OPTIONS' && ctx.status === 200 && ctx.body === '';
  if (ctx.body != null && !routerOptions) return undefined;
  if (ctx.status === 404) {
    return new ApiError(404, 'not_found', `No route matches ${ctx.method} ${ctx.path}.`);
  }
  if (ctx.status === 405 || routerOptions) {
    const allow = String(ctx.response.get('Allow'));
    return new ApiError(405, 'method_not_allowed', `${ctx.method} is not allowed here; allowed: ${allow}.`, {
      Allow: allow,
    });
  }
  if (ctx.status === 501) {
    // The router lists the path's methods in Allow; the documented 501 carries no Allow.
    ctx.remove('Allow');
    return new ApiError(501, 'not_implemented', `The method ${ctx.method} is not supported.`);
  }
  return undefined;
}
