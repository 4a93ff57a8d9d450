/** Failures the HTTP adapter detects itself, before or around the core; their codes are listed in docs/operations.md, "Error codes". */
export const API_ERROR_CODES = [
  'malformed_request',
  'malformed_json',
  'invalid_cursor',
  'invalid_idempotency_key',
  'not_found',
  'method_not_allowed',
  'request_timeout',
  'operation_removed',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'headers_too_large',
  'internal_error',
  'not_implemented',
] as const;
export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ApiErrorCode,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}
