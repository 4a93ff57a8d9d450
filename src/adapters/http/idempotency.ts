import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import type { Clock } from '../../ports/clock.js';
import type { IdempotentCreate } from '../../ports/pet-repository.js';
import { ApiError } from './api-error.js';

/*
 * Idempotency-Key (draft-ietf-httpapi-idempotency-key-header): a retry with the same key and body answers the pet
 * the first request stored, marked as a replay; another body is 422 (IdempotencyKeyReused) while the key lives.
 * Keys are scoped to the caller's API key and the operation. The store keeps the key on the pet it creates, in
 * the same write, so a retry after a failure that left a pet stored (a lost or late answer) finds that pet.
 */

export interface IdempotencySettings {
  readonly clock: Clock;
  /** How long a key refuses another body (IDEMPOTENCY_TTL_MS, default 24 h). */
  readonly ttlMs: number;
}

// sf-string ("...") as the draft writes it, or the bare token most clients send: printable ASCII, 1..255.
const KEY = /^(?:"([\x20\x21\x23-\x5b\x5d-\x7e]{1,255})"|([\x21\x23-\x7e]{1,255}))$/;

export function parseIdempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = KEY.exec(header.trim());
  if (match === null) {
    throw new ApiError(400, 'invalid_idempotency_key', 'Idempotency-Key must be 1 to 255 printable ASCII characters.');
  }
  return match[1] ?? match[2];
}

/** The request's Idempotency-Key as the store takes it, or undefined without one; 400 for a malformed key. */
export function idempotentCreateOf(ctx: Context, settings: IdempotencySettings, body: unknown): IdempotentCreate | undefined {
  // Node joins a repeated header of this name with ", " into one string (which the key's grammar then refuses).
  const header = ctx.req.headers['idempotency-key'];
  const clientKey = parseIdempotencyKey(typeof header === 'string' && header !== '' ? header : undefined);
  if (clientKey === undefined) return undefined;
  const now = settings.clock.now();
  return {
    key: sha256(`${String(ctx.state.apiKeyId)}\n${ctx.method} ${ctx.path}\n${clientKey}`),
    fingerprint: sha256(canonicalJson(body)),
    expiresAt: now + settings.ttlMs,
    now,
  };
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64url');
}

/** JSON with sorted keys and exact integers, so formatting differences do not change the fingerprint. */
export function canonicalJson(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
