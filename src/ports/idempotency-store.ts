/*
 * Where Idempotency-Key records live. The HTTP adapter decides what a replay looks like; storage adapters
 * (memory, MongoDB, chosen with STORAGE) keep the records. Every adapter must pass
 * test/contract/idempotency-store-contract.ts.
 */

/** What a completed request answered, replayed verbatim for retries. */
export interface StoredResponse {
  readonly status: number;
  readonly location?: string;
  readonly body: string;
}

export type IdempotencyRecord =
  | { readonly state: 'in_progress'; readonly fingerprint: string }
  | { readonly state: 'done'; readonly fingerprint: string; readonly response: StoredResponse };

export interface IdempotencyClaim {
  /** Scoped key: the caller's key id, the operation and the client's Idempotency-Key, hashed. */
  readonly key: string;
  /** SHA-256 of the canonical request body. */
  readonly fingerprint: string;
  /** Current time, epoch ms (from the Clock port, so expiry is testable). */
  readonly now: number;
  /** How long a completed record is kept. */
  readonly ttlMs: number;
  /** How long an unfinished claim blocks others before it counts as abandoned (a crashed instance). */
  readonly leaseMs: number;
}

export interface IdempotencyStore {
  /**
   * Atomically claims the key. Returns undefined when the caller now owns it (no live record existed),
   * or the live record another request left. Expired records and abandoned claims count as absent.
   */
  claim(claim: IdempotencyClaim): Promise<IdempotencyRecord | undefined>;
  /** Stores the response of the owner's request; kept until `now + ttlMs` of the claim. */
  complete(key: string, response: StoredResponse): Promise<void>;
  /** Gives up a claim whose request failed, so the client may retry with the same key. */
  release(key: string): Promise<void>;
  /** Stops background work (sweeps); idempotent. */
  close(): Promise<void>;
}
