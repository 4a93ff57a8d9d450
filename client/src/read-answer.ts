import { AnimalStoreError } from './animal-store-error.js';
import { ERROR_CODES, PET_STATUSES, type ErrorCode, type Pet } from './contract.js';
import { parseExactJson } from './exact-json.js';
import type { Answer } from './exchange.js';

/** What the error needs besides the answer. */
export interface CallContext {
  /** For messages: "POST /v1/pets". */
  readonly call: string;
  readonly attempts: number;
  readonly idempotencyKey?: string | undefined;
}

/** The answer's body when its status is `expected`; otherwise (or when it is not JSON) an AnimalStoreError. */
export function expectBody(answer: Answer, expected: number, context: CallContext): unknown {
  if (answer.kind !== 'response' || answer.status !== expected) throw errorFrom(answer, context);
  const body = tryParse(answer.text);
  if (body === undefined) throw errorFrom(answer, context, 'the body is not JSON');
  return body;
}

/** The error a failed answer stands for. */
export function errorFrom(answer: Answer, context: CallContext, problem?: string): AnimalStoreError {
  const common = { requestId: answer.requestId, attempts: context.attempts, idempotencyKey: context.idempotencyKey };
  if (answer.kind === 'network') {
    const reason = answer.cause instanceof Error ? answer.cause.message : String(answer.cause);
    const tries = context.attempts === 1 ? '' : ` (${context.attempts} attempts)`;
    return new AnimalStoreError({ ...common, code: 'network_error', status: undefined, message: `${context.call}: no response${tries}: ${reason}`, cause: answer.cause });
  }
  const retryAfter = answer.headers.get('retry-after');
  const retryAfterSeconds = retryAfter !== null && /^\s*\d+\s*$/.test(retryAfter) ? Number(retryAfter) : undefined;
  const body = problem === undefined ? errorBody(tryParse(answer.text)) : undefined;
  if (body !== undefined) return new AnimalStoreError({ ...common, ...body, status: answer.status, retryAfterSeconds });
  const message = `${context.call}: unexpected ${answer.status} response${problem === undefined ? '' : ` (${problem})`}`;
  return new AnimalStoreError({ ...common, code: 'unexpected_response', status: answer.status, message, retryAfterSeconds });
}

/** A Pet, members whitelisted, or undefined when the value is not one. */
export function toPet(value: unknown): Pet | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { id, name, categoryId, status } = value as Record<string, unknown>;
  if (typeof id !== 'bigint' || typeof name !== 'string' || typeof categoryId !== 'bigint') return undefined;
  if (status === undefined) return { id, name, categoryId };
  return PET_STATUSES.includes(status as never) ? { id, name, categoryId, status: status as Pet['status'] } : undefined;
}

function errorBody(value: unknown): { code: ErrorCode; message: string } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { code, message } = value as Record<string, unknown>;
  if (!ERROR_CODES.includes(code as never) || typeof message !== 'string') return undefined;
  return { code: code as ErrorCode, message };
}

function tryParse(text: string): unknown {
  try {
    return parseExactJson(text);
  } catch {
    return undefined;
  }
}
