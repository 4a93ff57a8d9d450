import type { ErrorBody } from '../error-responses.js';
import { errorExample } from './openapi-examples.js';
import { API_HEADERS, BASE_HEADERS, header } from './openapi-headers.js';
import { ref, type Json } from './openapi-schemas.js';

/*
 * components.responses: every error the service answers, with the headers it carries and a valid example.
 * An operation lists them by status (openapi-pet-paths.ts); requests that match no operation get one of them.
 */

export const jsonContent = (schemaId: string, example: unknown) => ({
  'application/json': { schema: ref('schemas', schemaId), example },
});

interface ErrorSpec {
  readonly status: number;
  readonly code: ErrorBody['code'];
  readonly description: string;
  readonly message: string;
  /** Headers beyond the API set, by name: component id. */
  readonly headers?: Record<string, string>;
  /** Answered before or without authentication (any path): no RateLimit headers. */
  readonly anyPath?: boolean;
}

export function errorResponse(spec: ErrorSpec): Json {
  const extra = Object.fromEntries(Object.entries(spec.headers ?? {}).map(([name, id]) => [name, header(id)]));
  return {
    description: spec.description,
    headers: { ...(spec.anyPath ? BASE_HEADERS : API_HEADERS), ...extra },
    content: jsonContent('Error', errorExample(spec.status, spec.code, spec.message)),
  };
}

const retryAfter = { 'Retry-After': 'RetryAfter' };

/** The reusable error responses, by component name. */
export const ERRORS = {
  BadRequest: { status: 400, code: 'validation_failed', message: 'name must be a string of 1 to 255 characters (code points), not blank',
    description: 'The request breaks the contract (`validation_failed`, `malformed_json`, `invalid_cursor`, ' +
      '`invalid_idempotency_key`), or is not valid HTTP at all (`malformed_request`, any path).' },
  Unauthorized: { status: 401, code: 'missing_api_key', message: 'An API key is required: send Authorization: Bearer <key>.',
    description: 'API key missing (`missing_api_key`) or invalid (`invalid_api_key`).', headers: { 'WWW-Authenticate': 'WWWAuthenticate' } },
  NotFound: { status: 404, code: 'pet_not_found', message: 'No pet with id 1.', description: 'No such resource (`pet_not_found`, `not_found`).' },
  MethodNotAllowed: { status: 405, code: 'method_not_allowed', message: 'DELETE is not allowed here; allowed: HEAD, GET, POST.',
    description: 'The path does not support this method (`method_not_allowed`).', headers: { Allow: 'Allow' } },
  RequestTimeout: { status: 408, code: 'request_timeout', message: 'The request did not arrive in time.', anyPath: true,
    description: 'The request head or body did not arrive in time (`request_timeout`); the connection is closed. Any path.' },
  PayloadTooLarge: { status: 413, code: 'payload_too_large', message: 'The request body exceeds 65536 bytes.',
    description: 'The body exceeds 64 KiB (`payload_too_large`).' },
  UnsupportedMediaType: { status: 415, code: 'unsupported_media_type', message: 'The request body must be JSON. Send Content-Type: application/json.',
    description: 'The body is not `application/json` (`unsupported_media_type`).', headers: { Accept: 'Accept' } },
  TooManyRequests: { status: 429, code: 'rate_limited', message: 'Too many requests; retry in 5 s.', headers: retryAfter,
    description: 'Quota spent (`rate_limited`): per API key, or failed authentications per client address. Retry after `Retry-After` seconds.' },
  HeadersTooLarge: { status: 431, code: 'headers_too_large', message: 'The request headers are too large.', anyPath: true,
    description: 'The request line and headers exceed 16 KiB (`headers_too_large`); the connection is closed. Any path.' },
  InternalError: { status: 500, code: 'internal_error', message: 'An unexpected error occurred.',
    description: 'Unexpected failure (`internal_error`); no detail is exposed.' },
  NotImplemented: { status: 501, code: 'not_implemented', message: 'The method PURGE is not supported.',
    description: 'An HTTP method the service does not know (`not_implemented`).' },
  ServiceUnavailable: { status: 503, code: 'storage_unavailable', message: 'Storage is temporarily unavailable. Retry later.', headers: retryAfter,
    description: 'Storage did not answer in time (`storage_unavailable`). Retry after `Retry-After` seconds.' },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorName = keyof typeof ERRORS;

export const errorResponses = (): Json =>
  Object.fromEntries(Object.entries(ERRORS).map(([name, spec]) => [name, errorResponse(spec)]));
