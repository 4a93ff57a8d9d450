/** Failures the HTTP adapter detects itself, before or around the core; their codes are listed in the README. */
export type ApiErrorCode =
  | 'not_found'
  | 'method_not_allowed'
  | 'not_implemented'
  | 'malformed_json'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'internal_error';

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
