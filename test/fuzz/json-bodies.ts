import fc from 'fast-check';

/*
 * JSON request bodies as a small syntax tree, so that the fuzzer controls what a JS value cannot hold:
 * integers beyond 2^53 and beyond int64 written digit by digit, `1e400`, `-0`, `__proto__` as a plain key,
 * duplicate keys and every-character \u escapes. newPetOutcome() is the oracle: what the service must answer.
 */

export class RawNumber {
  constructor(readonly text: string) {}
}

export class JsonObject {
  constructor(readonly entries: readonly (readonly [string, JsonNode])[]) {}
}

export type JsonNode = null | boolean | string | RawNumber | JsonObject | readonly JsonNode[];

export interface BodyOptions {
  /** Write every non-ASCII character (lone surrogates included) as a \uXXXX escape. */
  readonly escapeAll: boolean;
}

const escapeNonAscii = (json: string) =>
  json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** JSON text of a node; lone surrogates are always escaped (JSON.stringify does), so the text is valid UTF-16. */
export function jsonText(node: JsonNode, options: BodyOptions = { escapeAll: false }): string {
  const str = (s: string) => (options.escapeAll ? escapeNonAscii(JSON.stringify(s)) : JSON.stringify(s));
  const write = (n: JsonNode): string => {
    if (n instanceof RawNumber) return n.text;
    if (n instanceof JsonObject) return `{${n.entries.map(([key, value]) => `${str(key)}:${write(value)}`).join(',')}}`;
    if (Array.isArray(n)) return `[${n.map(write).join(',')}]`;
    if (typeof n === 'string') return str(n);
    return JSON.stringify(n);
  };
  return write(node);
}

export function depthOf(node: JsonNode): number {
  if (node instanceof JsonObject) return 1 + Math.max(0, ...node.entries.map(([, value]) => depthOf(value)));
  if (Array.isArray(node)) return 1 + Math.max(0, ...node.map(depthOf));
  return 0;
}

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

export const int64Text = fc.bigInt({ min: INT64_MIN, max: INT64_MAX }).map(String);

/** Number texts a JSON parser may get wrong: beyond double and int64 precision, exponents, fractions. */
export const hostileNumberText = fc.oneof(
  int64Text,
  fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
  fc.constantFrom(
    '1e400', '-1e400', '1e-400', '99999999999999999999999', '9223372036854775808', '-9223372036854775809',
    '9223372036854775807', '-9223372036854775808', '18446744073709551616', '1.0', '1e3', '1E2', '0.5', '-0', '0',
    '-0.0', '123456789012345678901234567890.5', '4.9e-324', '1.7976931348623157e308',
  ),
);

/** Strings that look like something else to a lenient layer: NaN, operators, prototypes, blanks. */
export const hostileString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 24 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.constantFrom(
    '', ' ', '\t\n', '\u00a0', '\u2028', '\ufeff', '\u200b', 'NaN', 'Infinity', '-Infinity', 'undefined', 'null',
    'true', '0x10', '1e3', '$gt', '$ne', '$where', '{"$gt":""}', '__proto__', 'constructor', 'prototype',
    'available ', 'AVAILABLE', 'Available', 'sold\u0000', '\ud800', '\udfff', '\ud83d\ude00', 'e\u0301', '\u202eevil',
  ),
  fc.integer({ min: 250, max: 260 }).chain((n) => fc.string({ unit: 'binary', minLength: n, maxLength: n })),
);

/** MongoDB query operators; an adapter that passed them through would turn a value into a query. */
const operatorObject: fc.Arbitrary<JsonNode> = fc
  .tuple(
    fc.constantFrom('$gt', '$ne', '$where', '$regex', '$in', '$exists', '$expr', '$function', '$lookup'),
    fc.constantFrom<JsonNode>('', null, true, '.*', [new RawNumber('1')], new JsonObject([['$gt', '']])),
  )
  .map(([op, value]) => new JsonObject([[op, value]]));

/** Keys with a meaning to JavaScript or MongoDB, plus the pet's own, plus arbitrary ones. */
export const hostileKey = fc.oneof(
  fc.constantFrom(
    '__proto__', 'constructor', 'prototype', 'polluted', 'id', '_id', '$gt', '$where', 'toString', 'hasOwnProperty',
    'valueOf', '__defineGetter__', 'name', 'categoryId', 'status', '',
  ),
  fc.string({ unit: 'binary', maxLength: 10 }),
);

/** Something sent under a `__proto__` or `constructor` key, hoping to land on Object.prototype. */
export const POLLUTION_MARKERS = ['polluted', 'isAdmin'] as const;
const pollutionPayload: fc.Arbitrary<JsonNode> = fc.constantFrom<JsonNode>(
  new JsonObject([['polluted', true], ['isAdmin', true]]),
  new JsonObject([['prototype', new JsonObject([['polluted', 'yes']])]]),
  new JsonObject([['__proto__', new JsonObject([['polluted', new RawNumber('1')]])]]),
);

const leaf: fc.Arbitrary<JsonNode> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  hostileString,
  hostileNumberText.map((text) => new RawNumber(text)),
  operatorObject,
  pollutionPayload,
);

/** Any JSON value, up to a few levels deep, with unique keys per object. */
export const anyJson: fc.Arbitrary<JsonNode> = fc.letrec<{ node: JsonNode }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', maxDepth: 4 },
    leaf,
    fc.array(tie('node'), { maxLength: 4 }),
    fc
      .uniqueArray(fc.tuple(hostileKey, tie('node')), { selector: ([key]) => key, maxLength: 4 })
      .map((entries) => new JsonObject(entries)),
  ),
})).node;

/** Wraps a node in `levels` arrays or objects. */
export function nest(node: JsonNode, levels: number, asObject: boolean): JsonNode {
  let result = node;
  for (let i = 0; i < levels; i++) result = asObject ? new JsonObject([['a', result]]) : [result];
  return result;
}

export interface NewPetFields {
  readonly name: string;
  readonly categoryId: bigint;
  readonly status?: string;
}

export const PET_STATUSES = ['available', 'pending', 'sold'] as const;

const validName = fc
  .oneof(fc.string({ unit: 'binary', minLength: 1, maxLength: 255 }), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }))
  .filter((name) => name.length <= 255 && /\S/.test(name));

/** A NewPet that the service must accept, with its parts as they will read back. */
export const validNewPet: fc.Arbitrary<NewPetFields> = fc.record(
  { name: validName, categoryId: fc.bigInt({ min: INT64_MIN, max: INT64_MAX }), status: fc.constantFrom(...PET_STATUSES) },
  { requiredKeys: ['name', 'categoryId'] },
);

export function newPetNode(pet: NewPetFields): JsonObject {
  const entries: [string, JsonNode][] = [['name', pet.name], ['categoryId', new RawNumber(String(pet.categoryId))]];
  if (pet.status !== undefined) entries.push(['status', pet.status]);
  return new JsonObject(entries);
}

/** A NewPet-shaped object whose every field may be valid, missing or hostile, plus hostile extra members. */
export const newPetLikeNode: fc.Arbitrary<JsonNode> = fc
  .record({
    name: fc.option(fc.oneof(validName, hostileString, anyJson), { nil: undefined }),
    categoryId: fc.option(
      fc.oneof(
        int64Text.map((text) => new RawNumber(text)),
        hostileNumberText.map((text) => new RawNumber(text)),
        int64Text,
        anyJson,
      ),
      { nil: undefined },
    ),
    status: fc.option(fc.oneof(fc.constantFrom(...PET_STATUSES), hostileString, anyJson), { nil: undefined }),
    extras: fc.uniqueArray(
      fc.tuple(hostileKey.filter((key) => !['name', 'categoryId', 'status'].includes(key)), fc.oneof(anyJson, pollutionPayload)),
      { selector: ([key]) => key, maxLength: 3 },
    ),
  })
  .chain(({ name, categoryId, status, extras }) => {
    const entries: (readonly [string, JsonNode])[] = [...extras];
    if (name !== undefined) entries.push(['name', name]);
    if (categoryId !== undefined) entries.push(['categoryId', categoryId]);
    if (status !== undefined) entries.push(['status', status]);
    return fc.shuffledSubarray(entries, { minLength: entries.length }).map((shuffled) => new JsonObject(shuffled));
  });

export type CreateOutcome =
  | { readonly kind: 'created'; readonly pet: NewPetFields }
  | { readonly kind: 'error'; readonly status: 400; readonly code: 'malformed_json' | 'validation_failed' };

const MAX_DEPTH = 32;

/**
 * The integer a decimal numeral denotes, as JSON Schema counts integers (`1.0` and `1e3` are), or undefined
 * for a fraction or a value far outside int64. Written apart from the service's parser, on purpose.
 */
export function integerOf(text: string): bigint | undefined {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (match === null) return undefined;
  const [, sign, whole = '', fraction = '', exponent = '0'] = match;
  const mantissa = BigInt(`${whole}${fraction}`);
  if (mantissa === 0n) return 0n;
  const scale = Number(exponent) - fraction.length;
  if (scale > 40) return undefined;
  let value: bigint;
  if (scale >= 0) value = mantissa * 10n ** BigInt(scale);
  else {
    if (-scale > whole.length + fraction.length) return undefined;
    const divisor = 10n ** BigInt(-scale);
    if (mantissa % divisor !== 0n) return undefined;
    value = mantissa / divisor;
  }
  return sign === '-' ? -value : value;
}

/** What POST /v1/pets must answer for this body (sent as application/json with a valid key). */
export function newPetOutcome(node: JsonNode): CreateOutcome {
  if (depthOf(node) > MAX_DEPTH) return { kind: 'error', status: 400, code: 'malformed_json' };
  const invalid = { kind: 'error', status: 400, code: 'validation_failed' } as const;
  if (!(node instanceof JsonObject)) return invalid;
  const field = (key: string) => node.entries.find(([k]) => k === key)?.[1];
  const name = field('name');
  const categoryId = field('categoryId');
  const status = field('status');
  // Length in code points, as JSON Schema counts it.
  if (typeof name !== 'string' || name.length < 1 || [...name].length > 255 || !/\S/.test(name)) return invalid;
  const id = categoryId instanceof RawNumber ? integerOf(categoryId.text) : undefined;
  if (id === undefined || id < INT64_MIN || id > INT64_MAX) return invalid;
  if (status !== undefined && !(typeof status === 'string' && (PET_STATUSES as readonly string[]).includes(status))) return invalid;
  return { kind: 'created', pet: status === undefined ? { name, categoryId: id } : { name, categoryId: id, status } };
}
