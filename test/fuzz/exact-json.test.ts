import fc from 'fast-check';
import { parse } from 'lossless-json';
import { describe, expect, it } from 'vitest';
import { exactInteger, parseExactJson } from '../../src/adapters/http/json.js';
import { fuzzParameters } from './fuzz-settings.js';
import { anyJson, hostileKey, hostileNumberText, hostileString, jsonText, JsonObject, RawNumber } from './json-bodies.js';

// parseExactJson reads plain bodies with JSON.parse and everything else with lossless-json: whichever path a
// text takes, the result (or the refusal) must be what lossless-json alone gives.
const exactOnly = (text: string) => parse(text, null, (n: string) => exactInteger(n) ?? Number(n));

function outcome(read: (text: string) => unknown, text: string): { value: unknown } | { error: string } {
  try {
    return { value: read(text) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** Bodies shaped like a NewPet and otherwise, plain and hostile, and texts cut or bent out of JSON. */
const texts = fc.oneof(
  anyJson.map((node) => jsonText(node)),
  fc.record({ name: hostileString, categoryId: fc.oneof(hostileNumberText, fc.integer().map(String)), key: hostileKey }).map(
    ({ name, categoryId, key }) => jsonText(new JsonObject([['name', name], ['categoryId', new RawNumber(categoryId)], [key, new RawNumber('7')]])),
  ),
  fc.jsonValue().map((value) => JSON.stringify(value)),
  fc.tuple(anyJson.map((node) => jsonText(node)), fc.nat(20)).map(([text, cut]) => text.slice(0, Math.max(0, text.length - cut))),
  fc.constantFrom(
    '{"name":"a","name":"b","categoryId":1}', '{"a":{"b":1,"b":2}}', '{"__proto__":{"x":1},"categoryId":1}', '[1,2,-0,-5]',
    '{"n":01}', '{"n":-}', '{"n":1.}', '{"n":123456789012345}', '{"n":1234567890123456}', '{"n":"1e5","m":2}',
    '{"s":"a:b\\":c","n":3}', '{"n":1E2}', '{"n":[1,[2,[3]]]}', ' {"n" : 4 } ', '{"n":4}x', '"\\ud800"', '{"n":"\u0001"}',
  ),
);

describe('parseExactJson', () => {
  it('gives what lossless-json gives, for plain and hostile texts alike', () => {
    fc.assert(
      fc.property(texts, (text) => {
        expect(outcome(parseExactJson, text)).toEqual(outcome(exactOnly, text));
      }),
      fuzzParameters('exact json: fast path = lossless-json', 2),
    );
  });

  it('reads the common body to bigints, and refuses a repeated key as the exact parser does', () => {
    expect(parseExactJson('{"name":"Rex","categoryId":3,"tags":[1,-2]}')).toEqual({ name: 'Rex', categoryId: 3n, tags: [1n, -2n] });
    expect(() => parseExactJson('{"name":"a","name":"b"}')).toThrow(/Duplicate key 'name'/);
    expect(parseExactJson('{"categoryId":9223372036854775807}')).toEqual({ categoryId: 9223372036854775807n });
  });
});
