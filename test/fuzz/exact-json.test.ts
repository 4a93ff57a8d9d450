import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseExactJson } from '../../src/adapters/http/json.js';
import { fuzzParameters } from './fuzz-settings.js';
import { anyJson, hostileKey, hostileNumberText, hostileString, jsonText, JsonObject, RawNumber } from './json-bodies.js';

// parseExactJson is lossless-json with exact integers: the oracle is V8's JSON.parse, which must read the same
// structure and strings, and every number as the same double (an integer as a bigint of that value or closer).

/** A parse result with every number as a double, and -0 as 0 (an integer has no signed zero: -0 reads as 0n). */
function asJsonParseReads(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number') return value === 0 ? 0 : value;
  if (Array.isArray(value)) return value.map(asJsonParseReads);
  if (typeof value === 'object' && value !== null) {
    const object: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) Object.defineProperty(object, key, { value: asJsonParseReads(item), enumerable: true, writable: true, configurable: true });
    return object;
  }
  return value;
}

/** Bodies shaped like a NewPet and otherwise, plain and hostile (no repeated keys: JSON.parse keeps the last), and texts cut short. */
const texts = fc.oneof(
  anyJson.map((node) => jsonText(node)),
  fc.record({ name: hostileString, categoryId: fc.oneof(hostileNumberText, fc.integer().map(String)), key: hostileKey })
    .filter(({ key }) => key !== 'name' && key !== 'categoryId')
    .map(({ name, categoryId, key }) => jsonText(new JsonObject([['name', name], ['categoryId', new RawNumber(categoryId)], [key, new RawNumber('7')]]))),
  fc.jsonValue().map((value) => JSON.stringify(value)),
  fc.tuple(anyJson.map((node) => jsonText(node)), fc.nat(20)).map(([text, cut]) => text.slice(0, Math.max(0, text.length - cut))),
  fc.constantFrom(
    '{"__proto__":{"x":1},"categoryId":1}', '[1,2,-0,-5]', '{"n":01}', '{"n":-}', '{"n":1.}', '{"n":123456789012345}',
    '{"n":1234567890123456}', '{"n":"1e5","m":2}', '{"s":"a:b\\":c","n":3}', '{"n":1E2}', '{"n":[1,[2,[3]]]}', ' {"n" : 4 } ',
    '{"n":4}x', '"\\ud800"', '{"n":"\u0001"}',
  ),
);

describe('parseExactJson', () => {
  it('reads what JSON.parse reads, every number as the same double, and refuses what it refuses', () => {
    fc.assert(
      fc.property(texts, (text) => {
        let expected: unknown;
        try {
          expected = JSON.parse(text);
        } catch {
          expect(() => parseExactJson(text)).toThrow();
          return;
        }
        expect(asJsonParseReads(parseExactJson(text))).toEqual(asJsonParseReads(expected));
      }),
      fuzzParameters('exact json = JSON.parse up to number precision', 2),
    );
  });

  it('reads the common body to bigints, and refuses a repeated key as the exact parser does', () => {
    expect(parseExactJson('{"name":"Rex","categoryId":3,"tags":[1,-2]}')).toEqual({ name: 'Rex', categoryId: 3n, tags: [1n, -2n] });
    expect(() => parseExactJson('{"name":"a","name":"b"}')).toThrow(/Duplicate key 'name'/);
    expect(parseExactJson('{"categoryId":9223372036854775807}')).toEqual({ categoryId: 9223372036854775807n });
  });
});
