import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../../src/adapters/http/cursor.js';
import { PET_STATUSES } from '../../src/core/pet.js';
import { integerOf } from '../fuzz/json-bodies.js';
import { startTestServer, type TestServer } from '../support/http-harness.js';

/*
 * The document is the truth: generated createPet bodies and listPets query strings (valid, near-valid and
 * invalid) are judged by the served document's own schemas (Ajv 2020 over the served JSON, read as any tool
 * reads it: numbers as doubles, int64 as an annotation) and by the running service. What the document
 * accepts must be 201/200, what it rejects 400, except the documented exceptions (the document's
 * description and the listPets operation name them), where the service must follow its exact rule:
 *   1. int64 near the bounds: within 2048 of ±2^63 a double cannot tell 2^63 - 1 from 2^63.
 *   2. fractions below double precision: 1.00000000000000001 reads as the integer 1.
 *   3. a cursor matching its pattern that this service did not issue for the same status: 400 invalid_cursor.
 *   4. unknown query parameters: OpenAPI cannot forbid them; the service answers 400.
 */

type Json = Record<string, any>;
const TWO_63 = 2n ** 63n;
const JSON_NUMBER_TEXT = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** Exception 1 or 2: a number text a double-based validator and the exact service may judge differently. */
function isNumberException(text: string): boolean {
  if (!JSON_NUMBER_TEXT.test(text)) return false;
  const exact = integerOf(text);
  const double = Number(text);
  const nearBound = (value: bigint) => (value < 0n ? -value : value) >= TWO_63 - 2048n && (value < 0n ? -value : value) <= TWO_63 + 2048n;
  if (exact !== undefined) return nearBound(exact);
  return Number.isInteger(double);
}

const int64Text = fc.oneof(
  fc.bigInt({ min: -TWO_63, max: TWO_63 - 1n }).map(String),
  fc.bigInt({ min: -1000n, max: 1000n }).map(String),
  fc.tuple(fc.bigInt({ min: TWO_63 - 3000n, max: TWO_63 + 3000n }), fc.boolean()).map(([n, negative]) => String(negative ? -n : n)),
);
const numberText = fc.oneof(
  int64Text,
  int64Text.map((n) => `${n}.0`),
  fc.tuple(fc.integer({ min: -999, max: 999 }), fc.integer({ min: -3, max: 20 })).map(([m, e]) => `${m}e${e}`),
  fc.tuple(fc.integer({ min: 0, max: 99 }), fc.integer({ min: 1, max: 99 })).map(([m, f]) => `${m}.${f}`),
  fc.constantFrom('1.00000000000000001', '1e400', '-0', '0.0', '1E2', '1e-1', '100000000000000000000', '9.223372036854775807e18'),
);
const nameValue = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 10 }),
  fc.integer({ min: 250, max: 260 }).map((n) => '🐕'.repeat(n)),
  fc.integer({ min: 250, max: 260 }).map((n) => 'n'.repeat(n)),
  fc.constantFrom('', ' ', '\t\n', '\u00a0', 'Rex', ' Rex '),
).map((name) => JSON.stringify(name));
const otherJson = fc.constantFrom('null', 'true', '[]', '{}', '"5"', '5');
const member = (name: string, value: fc.Arbitrary<string>) => fc.option(value.map((text) => `"${name}":${text}`), { nil: undefined });

/** Close to valid: a usable name and an integer however written, so that both sides of the line are tried. */
const nearValidBody = fc
  .tuple(
    fc.oneof(fc.string({ minLength: 1, maxLength: 20 }).filter((n) => /\S/.test(n)), fc.integer({ min: 250, max: 260 }).map((n) => '🐕'.repeat(n))),
    fc.oneof(int64Text, int64Text.map((n) => `${n}.0`), fc.integer({ min: -99, max: 99 }).map((n) => `${n}e2`)),
    fc.option(fc.constantFrom(...PET_STATUSES), { nil: undefined }),
  )
  .map(([name, categoryId, status]) => `{"name":${JSON.stringify(name)},"categoryId":${categoryId}${status === undefined ? '' : `,"status":"${status}"`}}`);

const bodyText = fc.oneof(
  { weight: 4, arbitrary: nearValidBody },
  { weight: 5, arbitrary: fc
    .tuple(
      member('name', fc.oneof({ weight: 4, arbitrary: nameValue }, otherJson)),
      member('categoryId', fc.oneof({ weight: 4, arbitrary: numberText }, otherJson)),
      member('status', fc.oneof(fc.constantFrom(...PET_STATUSES).map((s) => `"${s}"`), fc.constantFrom('"Available"', '""', 'null', '1'))),
      member('id', numberText),
    )
    .map((members) => `{${members.filter((m) => m !== undefined).join(',')}}`) },
  { weight: 1, arbitrary: otherJson },
);

const validCursor = fc.tuple(fc.bigInt({ min: -TWO_63, max: TWO_63 - 1n }), fc.option(fc.constantFrom(...PET_STATUSES), { nil: undefined }));
const queryPairs = fc.uniqueArray(
  fc.oneof(
    fc.oneof(numberText, fc.constantFrom('010', '+5', ' 1', 'abc', '', '0x10', '1.', '.5')).map((v) => ['limit', v] as const),
    fc.oneof(fc.constantFrom(...PET_STATUSES), fc.constantFrom('Sold', '', 'unknown')).map((v) => ['status', v] as const),
    fc.oneof(
      validCursor.map(([id, status]) => ['cursor', encodeCursor(id, status)] as const),
      fc.constantFrom('', 'not a cursor!', 'x'.repeat(65), 'AAAA').map((v) => ['cursor', v] as const),
    ),
    fc.constantFrom(['page', '2'] as const, ['limit', '3'] as const),
  ),
  { maxLength: 4, selector: ([key, value]) => `${key}=${value}` },
);

describe('the served document and the service judge the same requests the same way', () => {
  let server: TestServer;
  let newPet: ValidateFunction;
  let listQuery: ValidateFunction;
  let parameterNames: Set<string>;

  beforeAll(async () => {
    server = await startTestServer();
    const doc = JSON.parse((await server.request('GET', '/v1/openapi.json')).text) as Json;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addFormat('int64', true);
    ajv.addSchema(doc, 'doc');
    const anchored = (schema: Json) => JSON.parse(JSON.stringify(schema).replace(/"\$ref":"#\//g, '"$ref":"doc#/')) as Json;
    newPet = ajv.compile(anchored(doc.paths['/pets'].post.requestBody.content['application/json'].schema));
    const parameters = doc.paths['/pets'].get.parameters as Json[];
    parameterNames = new Set(parameters.map((p) => p.name as string));
    listQuery = ajv.compile(anchored({
      type: 'object',
      properties: Object.fromEntries(parameters.map((p) => [p.name, p.schema])),
      required: parameters.filter((p) => p.required).map((p) => p.name),
    }));
  });
  afterAll(() => server.stop());

  it('createPet: a body the document accepts is 201, one it rejects is 400', async () => {
    const seen = { 201: 0, 400: 0 };
    await fc.assert(
      fc.asyncProperty(bodyText, async (text) => {
        const categoryId = /"categoryId":([^,}]+)/.exec(text)?.[1];
        const response = await server.createPet(text);
        const byDocument = newPet(JSON.parse(text));
        if (categoryId !== undefined && isNumberException(categoryId)) {
          // Exceptions 1 and 2: the service's exact rule decides.
          const exact = integerOf(categoryId);
          const ok = exact !== undefined && exact >= -TWO_63 && exact < TWO_63;
          if (!ok) expect(response.status, text).toBe(400);
          return;
        }
        expect(response.status, `${text} (document ${byDocument ? 'accepts' : 'rejects'})`).toBe(byDocument ? 201 : 400);
        seen[byDocument ? 201 : 400]++;
      }),
      { numRuns: 150 },
    );
    // Both sides of the line were tried, not only one.
    expect(seen[201]).toBeGreaterThan(10);
    expect(seen[400]).toBeGreaterThan(10);
  });

  it('listPets: a query the document accepts is 200, one it rejects is 400', async () => {
    const seen = { 200: 0, 400: 0 };
    await fc.assert(
      fc.asyncProperty(queryPairs, async (pairs) => {
        const query = pairs.map(([key, value]) => `${key}=${encodeURIComponent(value)}`).join('&');
        const response = await server.request('GET', `/v1/pets?${query}`);
        const values: Json = {};
        for (const [key, value] of pairs) {
          // As a tool reads an integer parameter: a JSON number is a number; anything else stays text.
          const read = key === 'limit' && JSON_NUMBER_TEXT.test(value) ? Number(value) : value;
          values[key] = key in values ? [values[key], read].flat() : read;
        }
        const limitException = pairs.some(([key, value]) => key === 'limit' && isNumberException(value));
        const unknown = pairs.some(([key]) => !parameterNames.has(key));
        const cursor = pairs.find(([key]) => key === 'cursor')?.[1];
        const status = pairs.find(([key]) => key === 'status')?.[1];
        const foreignCursor = cursor !== undefined && /^[A-Za-z0-9_-]{1,64}$/.test(cursor) && !issuedFor(cursor, status);
        if (unknown || foreignCursor) {
          expect(response.status, query).toBe(400); // exceptions 3 and 4
          return;
        }
        if (limitException) return; // exception 2: 1.00000000000000001 and the like; the unit tests pin the exact rule
        expect(response.status, `${query} (document ${listQuery(values) ? 'accepts' : 'rejects'})`).toBe(listQuery(values) ? 200 : 400);
        seen[listQuery(values) ? 200 : 400]++;
      }),
      { numRuns: 150 },
    );
    expect(seen[200]).toBeGreaterThan(15);
    expect(seen[400]).toBeGreaterThan(15);
  });
});

/** Whether the cursor is one the service issues for this status filter. */
function issuedFor(cursor: string, status: string | undefined): boolean {
  if (status !== undefined && !(PET_STATUSES as readonly string[]).includes(status)) return true; // the status fails first
  const bytes = Buffer.from(cursor, 'base64url');
  if (bytes.length !== 22) return false;
  const id = bytes.readBigInt64BE(1);
  return encodeCursor(id, status as (typeof PET_STATUSES)[number] | undefined) === cursor;
}
