import type { Context } from 'koa';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Sets a JSON response through Koa: status, headers, then the body. The JSON is written by the service itself
 * (JSON.stringify cannot write bigint): text, or UTF-8 bytes kept ready (json.ts).
 */
export function sendJson(ctx: Context, status: number, json: string | Buffer, headers?: Readonly<Record<string, string>>): void {
  ctx.status = status;
  if (headers !== undefined) ctx.set(headers);
  // Set before the body, so that Koa keeps it rather than guessing text/plain or octet-stream.
  ctx.set('Content-Type', JSON_TYPE);
  ctx.body = json;
}
