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

/** How many answers a remembered() function keeps before it starts over. */
const REMEMBERED = 4096;
/** Longer texts are worked out every time: a remembered answer must not cost more memory than it saves work. */
const LONGEST_REMEMBERED = 256;

/**
 * `parse` with its answers for the last REMEMBERED texts kept: clients send the same path ids and the same
 * list queries again and again, and zod costs 0.4 to 1.2 µs a time. Only for answers nothing can alter (a
 * primitive, or a frozen object), and only successes are kept: a refusal is worked out, and its message
 * written, every time.
 */
export function remembered<T extends string | number | bigint | boolean | Readonly<object>>(parse: (text: string) => T): (text: string) => T {
  const answers = new Map<string, T>();
  return (text) => {
    if (text.length > LONGEST_REMEMBERED) return parse(text);
    let answer = answers.get(text);
    if (answer === undefined) {
      answer = parse(text);
      if (answers.size >= REMEMBERED) answers.clear();
      answers.set(text, answer);
    }
    return answer;
  };
}
