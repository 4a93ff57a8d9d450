import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import type { Clock } from '../../ports/clock.js';
import { ApiError } from './api-error.js';
import type { IdempotencyStore, StoredResponse } from '../../ports/idempotency-store.js';

/*
 * Idempotency-Key (draft-ietf-httpapi-idempotency-key-header): the first completed response for a key
 * is stored and replayed for retries with the same body; another body is 422, a retry while the first
 * is still running is 409. Keys are scoped to the caller's API key and the operation.
 * Exactly once: the operation gets a creation key (the scoped key and the body's fingerprint, hashed) that
 * the store keeps with what it creates, so a retry after a failure that left a pet stored (a lost or late
 * answer from storage, a response that could not be recorded) returns that pet instead of making another.
 * The fingerprint is part of it so that, once the record has expired, the key with another body creates.
 */

export interface IdempotencySettings {
  readonly store: IdempotencyStore;
  readonly clock: Clock;
  /** How long a completed response is replayed (IDEMPOTENCY_TTL_MS, default 24 h). */
  readonly ttlMs: number;
}

/** An unfinished claim older than this is treated as abandoned by a crashed instance. */
const IN_FLIGHT_LEASE_MS = 60_000;

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

/** What runIdempotently answers: the response, and whether it is the replay of an earlier one. */
export interface IdempotentOutcome {
  readonly response: StoredResponse;
  readonly replayed: boolean;
}

/**
 * Runs `operation` at most once per key; replays the stored response for retries. `operation` must pass the
 * creation key it gets (undefined without an Idempotency-Key) to the store, which makes it exactly once.
 */
export async function runIdempotently(
  ctx: Context,
  settings: IdempotencySettings,
  body: unknown,
  operation: (creationKey: string | undefined) => Promise<StoredResponse>,
): Promise<IdempotentOutcome> {
  // Node joins a repeated header of this name with ", " into one string (which the key's grammar then refuses).
  const header = ctx.req.headers['idempotency-key'];
  const clientKey = parseIdempotencyKey(typeof header === 'string' && header !== '' ? header : undefined);
  if (clientKey === undefined) return { response: await operation(undefined), replayed: false };
  const key = sha256(`${String(ctx.state.apiKeyId)}\n${ctx.method} ${ctx.path}\n${clientKey}`);
  const fingerprint = sha256(canonicalJson(body));
  const now = settings.clock.now();
  const existing = await settings.store.claim({ key, fingerprint, now, ttlMs: settings.ttlMs, leaseMs: IN_FLIGHT_LEASE_MS });
  if (existing !== undefined) {
    if (existing.fingerprint !== fingerprint) {
      throw new ApiError(422, 'idempotency_key_reused', 'This Idempotency-Key was used with a different request body.');
    }
    if (existing.state === 'in_progress') {
      throw new ApiError(409, 'idempotency_key_in_use', 'A request with this Idempotency-Key is still in progress; retry later.', {
        'Retry-After': '1',
      });
    }
    return { response: existing.response, replayed: true };
  }
  let response: StoredResponse;
  try {
    response = await operation(sha256(`${key}\n${fingerprint}`));
  } catch (error) {
    // A pet may have been stored all the same; the retry this release allows finds it by its creation key.
    await settings.store.release(key).catch(() => undefined);
    throw error;
  }
  // Done is done: when the response cannot be recorded (the store logs why), it is answered all the same. The
  // claim then lapses with its lease, and a retry after that finds the pet again by its creation key.
  await settings.store.complete(key, response).catch(() => undefined);
  return { response, replayed: false };
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
