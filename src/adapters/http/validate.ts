import type { z } from 'zod';
import { ValidationFailed } from '../../core/errors.js';

/** Parses `value` with `schema`, or throws ValidationFailed naming the first offending field. */
export function validate<S extends z.ZodType>(schema: S, value: unknown, fallbackField: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : issue.path.map(String).join('.');
  return failWith(field || fallbackField, issue.message);
}

function failWith(field: string, message: string): never {
  throw new ValidationFailed(field, message.startsWith(field) ? `${message}.` : `${field}: ${message}.`);
}
