import { expect } from 'vitest';
import type { TestResponse } from '../support/http-harness.js';

export interface ErrorBody {
  readonly code: string;
  readonly message: string;
  readonly status: number;
}

/** Asserts a JSON Error response: exactly {code, message, status}, status matching HTTP, code snake_case. */
export function expectError(
  response: TestResponse,
  status: number,
  code: string,
  message?: RegExp,
): ErrorBody {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json(;|$)/);
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  // Plain JSON.parse on purpose: `status` must be an ordinary number on the wire.
  const body = JSON.parse(response.text) as ErrorBody;
  expect(Object.keys(body).sort()).toEqual(['code', 'message', 'status']);
  expect(body.status).toBe(status);
  expect(body.code).toBe(code);
  expect(body.code).toMatch(/^[a-z]+(_[a-z]+)*$/);
  expect(typeof body.message).toBe('string');
  expect(body.message.length).toBeGreaterThan(0);
  if (message !== undefined) expect(body.message).toMatch(message);
  return body;
}

/** Asserts a 400 validation_failed whose message names `field`. */
export function expectInvalid(response: TestResponse, field: string): ErrorBody {
  return expectError(response, 400, 'validation_failed', new RegExp(`\\b${field}\\b`));
}

export function expectJsonContentType(response: TestResponse): void {
  expect(response.headers.get('content-type')).toMatch(/^application\/json(;|$)/);
}

/** The id of a Pet JSON text, as exact digits. */
export function idOf(response: TestResponse): bigint {
  return (response.json as { id: bigint }).id;
}
