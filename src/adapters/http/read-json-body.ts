import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { ValidationFailed } from '../../core/errors.js';
import { ApiError } from './api-error.js';
import { jsonNestingDepth, parseExactJson } from './json.js';

export const BODY_LIMIT_BYTES = 64 * 1024;
export const MAX_JSON_DEPTH = 32;

/** Reads a JSON request body within the limits and parses it exactly. Throws ApiError/ValidationFailed. */
export async function readJsonBody(ctx: Context): Promise<unknown> {
  if (!hasBody(ctx)) {
    throw new ValidationFailed('body', 'The request body is required: a JSON object (a NewPet).');
  }
  assertJsonContentType(ctx);
  const text = await readText(ctx);
  if (text.trim() === '') {
    throw new ValidationFailed('body', 'The request body is required: a JSON object (a NewPet).');
  }
  // The parser recurses, so hostile nesting is refused before it could exhaust the stack.
  if (jsonNestingDepth(text) > MAX_JSON_DEPTH) {
    throw new ApiError(400, 'malformed_json', `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`);
  }
  try {
    return parseExactJson(text);
  } catch (error) {
    throw new ApiError(400, 'malformed_json', `The request body is not valid JSON: ${(error as Error).message}.`);
  }
}

// Node's parsed headers, read directly: Koa's ctx.get lower-cases the name it is given on every call.
function hasBody(ctx: Context): boolean {
  const { 'content-length': length, 'transfer-encoding': transferEncoding } = ctx.req.headers;
  return (transferEncoding !== undefined && transferEncoding !== '') || (length !== undefined && length !== '' && length !== '0');
}

// What nearly every client sends, accepted without parsing the header with type-is.
const PLAIN_JSON_TYPES = new Set(['application/json', 'application/json; charset=utf-8', 'application/json; charset=UTF-8', 'application/json;charset=utf-8']);

function assertJsonContentType(ctx: Context): void {
  const headers = ctx.req.headers;
  const type = headers['content-type'];
  if (type !== undefined && PLAIN_JSON_TYPES.has(type) && headers['content-encoding'] === undefined) return;
  const unsupported = (detail: string) =>
    new ApiError(415, 'unsupported_media_type', `${detail} Send Content-Type: application/json.`, {
      Accept: 'application/json',
    });
  if (ctx.is('application/json') !== 'application/json') throw unsupported('The request body must be JSON.');
  const charset = ctx.request.charset;
  if (charset !== '' && charset.toLowerCase() !== 'utf-8') throw unsupported(`Charset ${charset} is not supported.`);
  const encoding = ctx.get('Content-Encoding');
  if (encoding !== '' && encoding.toLowerCase() !== 'identity') {
    throw unsupported(`Content-Encoding ${encoding} is not supported.`);
  }
}

async function readText(ctx: Context): Promise<string> {
  try {
    // Decoded whole by Buffer (raw-body's `encoding` goes through iconv-lite, slower for the same text): invalid
    // UTF-8 becomes U+FFFD either way, and a byte order mark is ignored, as RFC 8259 §8.1 allows and iconv did.
    const bytes = await getRawBody(ctx.req, { limit: BODY_LIMIT_BYTES, length: ctx.req.headers['content-length'] });
    const text = bytes.toString('utf8');
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } catch (error) {
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large') {
      // The rest of the body is not read, so the connection cannot be reused.
      ctx.set('Connection', 'close');
      throw new ApiError(413, 'payload_too_large', `The request body exceeds ${BODY_LIMIT_BYTES} bytes.`);
    }
    throw new ApiError(400, 'malformed_json', 'The request body could not be read completely.');
  }
}
