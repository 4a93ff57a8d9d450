import type { ErrorCode } from './contract.js';

/**
 * What went wrong: a code the service publishes (ErrorCode, generated from its OpenAPI document), or one of
 * the client's own: `network_error` when no response arrived (connection refused or reset, DNS, timeout)
 * after the last attempt, `unexpected_response` when a response is not what the contract describes
 * (a proxy's HTML 502, a body that is not an Error or a Pet, a next link to another origin).
 */
export type AnimalStoreErrorCode = ErrorCode | 'network_error' | 'unexpected_response';

export interface AnimalStoreErrorDetails {
  readonly code: AnimalStoreErrorCode;
  readonly message: string;
  /** The HTTP status; undefined when no response arrived (network_error). */
  readonly status: number | undefined;
  /** The response's X-Request-Id, or for a network error the X-Request-Id the last attempt sent. */
  readonly requestId: string | undefined;
  /** Attempts made, retries included. */
  readonly attempts: number;
  /** The response's Retry-After in seconds, when it had one. */
  readonly retryAfterSeconds?: number | undefined;
  /** createPet only: the Idempotency-Key every attempt sent. Retry later with it, never with a new one. */
  readonly idempotencyKey?: string | undefined;
  readonly cause?: unknown;
}

/** The one error the client throws for a failed call (an aborted call rejects with the signal's reason). */
export class AnimalStoreError extends Error {
  override readonly name = 'AnimalStoreError';
  readonly code: AnimalStoreErrorCode;
  readonly status: number | undefined;
  readonly requestId: string | undefined;
  readonly attempts: number;
  readonly retryAfterSeconds: number | undefined;
  readonly idempotencyKey: string | undefined;

  constructor(details: AnimalStoreErrorDetails) {
    super(details.message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = details.code;
    this.status = details.status;
    this.requestId = details.requestId;
    this.attempts = details.attempts;
    this.retryAfterSeconds = details.retryAfterSeconds;
    this.idempotencyKey = details.idempotencyKey;
  }
}
