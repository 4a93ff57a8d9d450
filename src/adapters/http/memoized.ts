/** Answers kept before the memory starts over, and the longest text kept: bounded, so that clients cannot grow it. */
const KEPT = 4096;
const LONGEST_KEPT = 256;

/**
 * `work` with its recent answers kept by input text: clients send the same ids, list queries and cursors again
 * and again. Only for pure work whose answer cannot be altered (a primitive or a
 * frozen object); a throw is not kept, so a refusal is worked out (and its message written) every time.
 */
export function memoized<T>(work: (text: string) => T): (text: string) => T {
  const answers = new Map<string, T>();
  return (text) => {
    if (text.length > LONGEST_KEPT) return work(text);
    let answer = answers.get(text);
    if (answer === undefined) {
      answer = work(text);
      if (answers.size >= KEPT) answers.clear();
      answers.set(text, answer);
    }
    return answer;
  };
}
