import { EXPOSE_HEADERS } from '../cors.js';
import { GET_PET_DEPRECATION_HEADERS } from '../deprecation.js';
import { DOCS_CSP } from './docs-page.js';
import { NEXT_LINK_EXAMPLE, REQUEST_ID_EXAMPLE } from './openapi-examples.js';
import { ref, type Json } from './openapi-schemas.js';
import { SECURITY_HEADERS } from '../request-context.js';

/*
 * Every response header the service sends, as components.headers, and the sets each kind of response carries.
 * test/support/openapi-conformance.ts fails any response with a header its documented response does not declare.
 */

const text = (description: string, example: string) => ({ description, schema: { type: 'string' }, example });

export const HEADERS: Json = {
  XRequestId: text('Echo of the client\'s X-Request-Id when safe (at most 128 of [A-Za-z0-9_.:-]), else a generated id.', REQUEST_ID_EXAMPLE),
  TraceResponse: text(
    'W3C Trace Context `traceresponse`, when the deployment traces requests and recorded this one: the trace and the span that answered, for a report to quote.',
    '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  ),
  XContentTypeOptions: text('Always `nosniff`.', SECURITY_HEADERS['X-Content-Type-Options']!),
  ContentSecurityPolicy: text('Nothing in a JSON response may run or be framed; the /docs page has its own policy.', SECURITY_HEADERS['Content-Security-Policy']!),
  CacheControl: text('`no-store` on every API response; documentation and assets say how long to keep them.', SECURITY_HEADERS['Cache-Control']!),
  AccessControlAllowOrigin: text(
    'CORS: the calling origin, when the deployment lists it in CORS_ORIGINS (the documents themselves: `*`).',
    'https://shop.animal-store.example',
  ),
  AccessControlExposeHeaders: text('CORS: the headers a browser script may read, when the origin is allowed.', EXPOSE_HEADERS),
  Vary: text('`Origin` when CORS is on: the CORS headers depend on it.', 'Origin'),
  RateLimit: text('Quota left in the current window (IETF RateLimit header fields draft); sent once 90% of it is used.', '"per-key";r=599;t=42'),
  RateLimitPolicy: text('The quota policy: requests (q) per window of w seconds.', '"per-key";q=6000;w=60'),
  RetryAfter: { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 }, example: 5 },
  WWWAuthenticate: text('RFC 6750 bearer challenge.', 'Bearer realm="animal-store", error="invalid_token", error_description="The API key is not valid."'),
  Allow: text('The methods the resource supports.', 'HEAD, GET, POST'),
  Accept: text('The media types the operation accepts.', 'application/json'),
  Location: text('Path of the created animal.', '/v1/pets/1'),
  Link: text('RFC 8288 links: rel="next" on lists when more animals match.', NEXT_LINK_EXAMPLE),
  IdempotentReplayed: text('Present (value `true`) when the animal was created by an earlier request with the same Idempotency-Key and body.', 'true'),
  Deprecation: text('RFC 9745 structured date of the deprecation.', GET_PET_DEPRECATION_HEADERS.Deprecation!),
  Sunset: text('RFC 8594 removal date.', GET_PET_DEPRECATION_HEADERS.Sunset!),
  GetPetLink: text('Successor of this deprecated operation (rel="successor-version").', GET_PET_DEPRECATION_HEADERS.Link!),
};

/** Headers only the reference page and its assets send (operations document). */
export const DOCS_HEADERS: Json = {
  ETag: text('Validator for If-None-Match: an unchanged asset answers 304.', '"q1w2e3r4t5y6u7i8o9p0a1s2d3f"'),
  DocsContentSecurityPolicy: text('The reference page loads only this origin\'s assets.', DOCS_CSP),
  ReferrerPolicy: text('The page leaks no referrer.', 'no-referrer'),
};

const set = (entries: Record<string, string>): Json =>
  Object.fromEntries(Object.entries(entries).map(([name, id]) => [name, ref('headers', id)]));

/** On every response of the service, whichever path. */
export const BASE_HEADERS = set({
  'X-Request-Id': 'XRequestId',
  traceresponse: 'TraceResponse',
  'X-Content-Type-Options': 'XContentTypeOptions',
  'Content-Security-Policy': 'ContentSecurityPolicy',
  'Cache-Control': 'CacheControl',
  'Access-Control-Allow-Origin': 'AccessControlAllowOrigin',
  'Access-Control-Expose-Headers': 'AccessControlExposeHeaders',
  Vary: 'Vary',
});

/** On every response to a request under /v1 that needs a key. */
export const API_HEADERS = { ...BASE_HEADERS, ...set({ RateLimit: 'RateLimit', 'RateLimit-Policy': 'RateLimitPolicy' }) };

/** On every response of the deprecated getPet, errors included. */
export const DEPRECATION_HEADERS = set({ Deprecation: 'Deprecation', Sunset: 'Sunset', Link: 'GetPetLink' });

/** Headers by name, for responses that add one of them to a set. */
export const header = (id: string): Json => ref('headers', id);
