import type { Context } from 'koa';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Sets a JSON response through Koa: status, headers, then the body. The JSON is written by the service itself
 * (JSON.stringify cannot write bigint): text, or UTF-8 bytes kept ready (json.ts).
 */
export function sendJson(ctx: Context, status: number, json: string | Buffer, headers?: Readonly<Record<string, string>>): void {
  // ctx.response itself rather than ctx's aliases of it: every response passes here, and each alias is a hop.
  const response = ctx.response;
  response.status = status;
  if (headers !== undefined) response.set(headers);
  // Set before the body, so that Koa keeps it rather than guessing text/plain or octet-stream.
  response.set('Content-Type', JSON_TYPE);
  response.body = json;
}
