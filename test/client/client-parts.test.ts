import { describe, expect, it } from 'vitest';
import { parseExactJson, stringifyExactJson } from '../../client/src/exact-json.js';
import { nextLinkTarget } from '../../client/src/next-link.js';
import { backoffDelayMs, resolveRetryPolicy, retryAfterMs } from '../../client/src/retry-policy.js';

describe('nextLinkTarget', () => {
  it.each([
    ['</v1/pets?cursor=a>; rel="next"', '/v1/pets?cursor=a'],
    ['</v1/pets?cursor=a>; rel=next', '/v1/pets?cursor=a'],
    ['</v1/pets>; rel="successor-version", </v1/pets?cursor=b>; rel="next"', '/v1/pets?cursor=b'],
    ['</p?cursor=c>; title="a, b; c"; REL="prefetch Next"', '/p?cursor=c'],
  ])('finds the next target in %s', (header, target) => {
    expect(nextLinkTarget(header)).toBe(target);
  });

  it.each([null, '', '</v1/pets>; rel="successor-version"', '</v1/pets?x=1>; rel="nextish"'])('finds none in %s', (header) => {
    expect(nextLinkTarget(header)).toBeUndefined();
  });
});

describe('exact JSON', () => {
  it('parses integers as bigint and other numbers as number, and writes bigints as digits', () => {
    expect(parseExactJson('{"a":9223372036854775807,"b":-9223372036854775808,"c":1.5}')).toEqual({
      a: 9223372036854775807n,
      b: -9223372036854775808n,
      c: 1.5,
    });
    expect(stringifyExactJson({ categoryId: -9223372036854775808n, status: undefined })).toBe('{"categoryId":-9223372036854775808}');
  });
});

describe('the retry policy', () => {
  it('reads Retry-After as seconds or as an HTTP date, and ignores anything else', () => {
    const now = Date.UTC(2030, 0, 1);
    expect(retryAfterMs('5', now)).toBe(5000);
    expect(retryAfterMs(new Date(now + 3000).toUTCString(), now)).toBe(3000);
    expect(retryAfterMs(new Date(now - 3000).toUTCString(), now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });

  it('doubles the backoff per retry up to the cap, jittered between half and all of it', () => {
    const policy = resolveRetryPolicy({ baseDelayMs: 100, maxDelayMs: 350 });
    expect([1, 2, 3, 4].map((retry) => backoffDelayMs(policy, retry, () => 1))).toEqual([100, 200, 350, 350]);
    expect([1, 2, 3, 4].map((retry) => backoffDelayMs(policy, retry, () => 0))).toEqual([50, 100, 175, 175]);
  });

  it('has bounded defaults and refuses settings that would not retry sensibly', () => {
    expect(resolveRetryPolicy()).toMatchObject({ maxAttempts: 4, baseDelayMs: 250, maxDelayMs: 4000, maxTotalDelayMs: 15_000 });
    expect(() => resolveRetryPolicy({ maxAttempts: 0 })).toThrow(RangeError);
    expect(() => resolveRetryPolicy({ maxAttempts: 2.5 })).toThrow(RangeError);
    expect(() => resolveRetryPolicy({ maxTotalDelayMs: Number.NaN })).toThrow(RangeError);
  });
});
