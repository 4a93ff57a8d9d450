import { isInteger, parse, stringify } from 'lossless-json';

/*
 * JSON with exact int64: integer tokens become bigint and bigints are written as bare digits, so an id or a
 * categoryId never passes through a JS number (which would round 9223372036854775807 to ...6000).
 */

/** Parses JSON text; integers become bigint, other numbers number. Throws SyntaxError on bad JSON. */
export function parseExactJson(text: string): unknown {
  return parse(text, null, (token) => (isInteger(token) ? BigInt(token) : Number(token)));
}

/** Serialises a value; bigints are written as JSON integers. */
export function stringifyExactJson(value: unknown): string {
  const text = stringify(value);
  if (text === undefined) throw new TypeError('The value has no JSON representation');
  return text;
}
