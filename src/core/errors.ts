/**
 * Every failure the core reports. The code is stable and machine-readable; adapters decide how to
 * present it (the HTTP adapter maps each code to a status in one table).
 */
export abstract class DomainError extends Error {
  abstract readonly code: DomainErrorCode;
}

export const DOMAIN_ERROR_CODES = [
  'validation_failed',
  'missing_api_key',
  'invalid_api_key',
  'pet_not_found',
  'storage_unavailable',
  'idempotency_key_reused',
] as const;
export type DomainErrorCode = (typeof DOMAIN_ERROR_CODES)[number];

export class PetNotFound extends DomainError {
  readonly code = 'pet_not_found';
  constructor(id: bigint) {
    super(`No pet with id ${id} exists.`);
  }
}

/** Input that breaks a rule of the catalogue; `field` names the offending field or parameter. */
export class ValidationFailed extends DomainError {
  readonly code = 'validation_failed';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

export class MissingApiKey extends DomainError {
  readonly code = 'missing_api_key';
  constructor() {
    super('This operation needs an API key: send "Authorization: Bearer <API_KEY>".');
  }
}

export class InvalidApiKey extends DomainError {
  readonly code = 'invalid_api_key';
  constructor(readonly malformed = false) {
    super(
      malformed
        ? 'The Authorization header is malformed: expected "Bearer <API_KEY>".'
        : 'The API key is not valid.',
    );
  }
}

/** Storage could not be reached in time; the operation had no effect that the caller can rely on. */
export class StorageUnavailable extends DomainError {
  readonly code = 'storage_unavailable';
  /** `cause` keeps the adapter's own failure for logs; it is never shown to clients. */
  constructor(options?: { readonly cause?: unknown }) {
    super('Storage is temporarily unavailable. Retry later.', options);
  }
}

/** The caller's idempotency key already names a create with other content, and has not expired. */
export class IdempotencyKeyReused extends DomainError {
  readonly code = 'idempotency_key_reused';
  constructor() {
    super('This Idempotency-Key was used with a different request body.');
  }
}
