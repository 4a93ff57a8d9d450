/** Answers kept before the memory starts over, and the longest text kept: bounded, so that clients cannot grow it. */
const KEPT = 4096;
const LONGEST_KEPT = 256;

/**
 * `work` with its answers for the last `kept` keys remembered: the same pets, ids, list queries and cursors come
 * again and again. Only for pure work whose answer cannot be altered (a primitive or a frozen object); a throw is
 * not kept, so a refusal is worked out (and its message written) every time.
 */
export function recentAnswers<K, T>(work: (key: K) => T, kept = KEPT): (key: K) => T {
  const answers = new Map<K, T>();
  return (key) => {
    let answer = answers.get(key);
    if (answer === undefined) {
      answer = work(key);
      if (answers.size >= kept) answers.clear();
      answers.set(key, answer);
    }
    return answer;
  };
}

/** recentAnswers for texts a client sends: a text too long to be worth keeping is worked out every time. */
export function memoized<T>(work: (text: string) => T): (text: string) => T {
  const remembered = recentAnswers(work);
  return (text) => (text.length > LONGEST_KEPT ? work(text) : remembered(text));
}
