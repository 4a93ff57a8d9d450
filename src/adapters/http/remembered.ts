/** How many answers a remembered() function keeps before it starts over. */
const REMEMBERED = 4096;
/** Longer texts are worked out every time: a remembered answer must not cost more memory than it saves work. */
const LONGEST_REMEMBERED = 256;

/**
 * `work` with its answers for the last REMEMBERED texts kept: clients send the same path ids, list queries and
 * cursors again and again (zod costs 0.4 to 1.2 µs a time, a cursor's seal a SHA-256). Only for answers nothing
 * can alter (a primitive, or a frozen object), and only successes are kept: a refusal is worked out, and its
 * message written, every time, and so is an undefined answer (no such thing), which is not kept either.
 */
export function remembered<T extends string | number | bigint | boolean | Readonly<object> | undefined>(work: (text: string) => T): (text: string) => T {
  const answers = new Map<string, T>();
  return (text) => {
    if (text.length > LONGEST_REMEMBERED) return work(text);
    let answer = answers.get(text);
    if (answer === undefined) {
      answer = work(text);
      if (answer === undefined) return answer;
      if (answers.size >= REMEMBERED) answers.clear();
      answers.set(text, answer);
    }
    return answer;
  };
}
