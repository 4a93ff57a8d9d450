import type { Context } from 'koa';

const JSON_TYPE = 'application/json; charset=utf-8';
const JSON_HEADERS = Object.freeze({ 'Content-Type': JSON_TYPE });

/**
 * Sets a JSON response through Koa: status, headers, then the body. The JSON is written by the service itself
 * (JSON.stringify cannot write bigint): text, or UTF-8 bytes kept ready (json.ts).
 */
export function sendJson(ctx: Context, status: number, json: string | Buffer, headers?: Readonly<Record<string, string>>): void {
  // ctx.response itself rather than ctx's aliases of it: every response passes here, and each alias is a hop.
  const response = ctx.response;
  response.status = status;
  // The type is set before the body, so that Koa keeps it rather than guessing text/plain or octet-stream. Not in
  // one object spread from `headers`: such objects outlived V8's scavenges, about 90 bytes per list with its Link
  // (measured) that only a mark-compact freed, and the mark-compacts decided p99 (BENCHMARKS.md).
  if (headers !== undefined) response.set(headers);
  response.set(JSON_HEADERS);
  response.body = json;
}
