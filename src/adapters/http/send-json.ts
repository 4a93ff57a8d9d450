import type { Context } from 'koa';

/** Sends JSON text we serialized ourselves (Koa's own JSON.stringify cannot write bigint). */
export function sendJson(ctx: Context, status: number, json: string): void {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.body = json;
}
