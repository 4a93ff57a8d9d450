import { describe, expect, it } from 'vitest';
import { memoized } from '../../src/adapters/http/memoized.js';

describe('memoized', () => {
  it('works an answer out once per text, and again for every refusal', () => {
    let calls = 0;
    const square = memoized((text) => {
      calls++;
      if (text === 'bad') throw new Error('refused');
      return Number(text) ** 2;
    });
    expect(square('3')).toBe(9);
    expect(square('3')).toBe(9);
    expect(calls).toBe(1);
    expect(() => square('bad')).toThrow('refused');
    expect(() => square('bad')).toThrow('refused');
    expect(calls).toBe(3);
  });

  it('keeps no answer for a long text, and at most 4,096 answers', () => {
    let calls = 0;
    const length = memoized((text) => ++calls && text.length);
    const long = 'x'.repeat(257);
    length(long);
    length(long);
    expect(calls).toBe(2);
    for (let n = 0; n < 4096; n++) length(String(n));
    calls = 0;
    length('0');
    expect(calls).toBe(0);
    length('4096');
    length('1');
    expect(calls).toBe(2);
  });
});
