import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import type { Logger } from 'pino';
import type { Pet } from '../../core/pet.js';
import type { Clock } from '../../ports/clock.js';
import type { IdempotentCreate } from '../../ports/pet-repository.js';
import { ApiError } from './api-error.js';
import type { RequestState } from './request-context.js';
import { IdempotencyKeySchema } from './wire-schemas.js';

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
  /** Logs each replayed create (replayLog); undefined below LOG_LEVEL=debug. */
  readonly logReplay?: (ctx: Context, pet: Pet) => void;
}

/** At LOG_LEVEL=debug: one line per replay, naming the pet the first request stored. The key itself is not logged. */
export function replayLog(logger: Logger) {
  return (ctx: Context, pet: Pet): void => {
    const { requestId, apiKeyId } = ctx.state as RequestState;
    logger.debug({ requestId, apiKeyId, petId: String(pet.id) }, 'idempotent replay');
  };
}

/** The key inside a present Idempotency-Key header (absent: undefined); 400 invalid_idempotency_key when malformed. */
function parseIdempotencyKey(header: unknown): string | undefined {
  if (header === undefined) return undefined;
  const parsed = IdempotencyKeySchema.safeParse(header);
  if (!parsed.success) throw new ApiError(400, 'invalid_idempotency_key', parsed.error.issues[0]!.message);
  return parsed.data;
}

/** The request's Idempotency-Key as the store takes it, or undefined without one; 400 for a malformed key. */
export function idempotentCreateOf(ctx: Context, settings: IdempotencySettings, body: unknown): IdempotentCreate | undefined {
  // Node joins a repeated header of this name with ", " into one string (which the key's grammar then refuses);
  // an empty value arrives as '' (absent is undefined) and is refused, not taken for no key.
  const clientKey = parseIdempotencyKey(ctx.req.headers['idempotency-key']);
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
