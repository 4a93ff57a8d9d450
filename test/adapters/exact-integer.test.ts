import { describe, expect, it } from 'vitest';
import { exactInteger, parseExactJson } from '../../src/adapters/http/json.js';

describe('exactInteger', () => {
  it.each([
    ['1', 1n], ['1.0', 1n], ['1e3', 1000n], ['1.5e1', 15n], ['-0', 0n], ['0.000e5', 0n], ['-2.50E1', -25n],
    ['9223372036854775807.000', 9223372036854775807n], ['100e-2', 1n],
  ])('reads %s as the integer %s', (text, value) => {
    expect(exactInteger(text)).toBe(value);
  });

  it.each(['1.5', '1e-1', '1.00000000000000001', '1e41', 'abc', '', '1.', '.5', '+1', '0x10', '1e99999999999'])(
    'reads %s as no integer (a fraction, not a numeral, or far beyond int64)',
    (text) => {
      expect(exactInteger(text)).toBeUndefined();
    },
  );
});

describe('parseExactJson, small integers', () => {
  // Small ones come from a table of shared bigints: the edges of the table and either side of it.
  it.each([['0', 0n], ['-0', 0n], ['1', 1n], ['1023', 1023n], ['1024', 1024n], ['-1', -1n], ['999999999999999', 999999999999999n]])(
    'reads %s as the bigint %s',
    (text, value) => {
      expect(parseExactJson(`{"categoryId":${text}}`)).toStrictEqual({ categoryId: value });
    },
  );
});
