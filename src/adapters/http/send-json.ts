import type { Context } from 'koa';

/** A JSON response, written by the request frame in one writeHead (see request-frame.ts). */
export interface Reply {
  readonly status: number;
  /** JSON we serialized ourselves (JSON.stringify cannot write bigint): text, or UTF-8 bytes kept ready (json.ts). */
  readonly json: string | Buffer;
  /** Headers particular to this response, beyond those every response carries. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Hands the response to the request frame; nothing is written until the handler returns. */
export function sendJson(ctx: Context, status: number, json: string | Buffer, headers?: Readonly<Record<string, string>>): void {
  ctx.state.reply = headers === undefined ? { status, json } : { status, json, headers };
}
