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

/** How many valid inputs a rememberingValidator keeps before it starts over. */
const REMEMBERED = 4096;

/**
 * validate() for a path parameter: the answers for the last REMEMBERED valid texts are kept, since clients ask
 * for the same ids again and again. Only for schemas whose output is a primitive (nothing can alter a kept
 * answer), and only successes are kept: a refusal is worked out, and its message written, every time.
 */
export function rememberingValidator<S extends z.ZodType<string | number | bigint | boolean, string>>(
  schema: S,
  fallbackField: string,
): (text: string) => z.output<S> {
  const valid = new Map<string, z.output<S>>();
  return (text) => {
    let value = valid.get(text);
    if (value === undefined) {
      value = validate(schema, text, fallbackField);
      if (valid.size >= REMEMBERED) valid.clear();
      valid.set(text, value);
    }
    return value;
  };
}
