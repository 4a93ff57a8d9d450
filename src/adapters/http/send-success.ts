import type { Context } from 'koa';
import type { JsonSuccess, NoContentSuccess, SuccessResponse } from './pet-operations.js';
import { sendJson } from './send-json.js';

type Headers = Readonly<Record<string, string>>;

/**
 * Answers an operation's success as its route table entry says: its status with its JSON body, or 204 with
 * no content when the entry names no schema (Koa then sends no Content-Type or Content-Length either).
 */
export function sendSuccess(ctx: Context, success: JsonSuccess, json: string | Buffer, headers?: Headers): void;
export function sendSuccess(ctx: Context, success: NoContentSuccess, headers?: Headers): void;
export function sendSuccess(ctx: Context, success: SuccessResponse, jsonOrHeaders?: string | Buffer | Headers, headers?: Headers): void {
  if (success.schema !== undefined) {
    sendJson(ctx, success.status, jsonOrHeaders as string | Buffer, headers);
    return;
  }
  ctx.status = success.status;
  if (jsonOrHeaders !== undefined) ctx.set(jsonOrHeaders as Headers);
}
