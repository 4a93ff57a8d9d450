import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isInteger, parse } from 'lossless-json';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateContract, REGENERATE_COMMAND } from '../../client/scripts/generate-contract.js';
import { startTestServer, type TestServer } from '../support/http-harness.js';

const CONTRACT = fileURLToPath(new URL('../../client/src/contract.ts', import.meta.url));

describe('client/src/contract.ts', () => {
  let server: TestServer;
  let served: unknown;

  beforeAll(async () => {
    server = await startTestServer();
    const text = await (await fetch(`${server.url}/v1/openapi.json`)).text();
    served = parse(text, null, (value) => (isInteger(value) ? BigInt(value) : Number(value)));
  });
  afterAll(() => server.stop());

  it('is exactly what the served OpenAPI document generates', () => {
    const generated = generateContract(served);
    if (process.env.UPDATE_CONTRACT === '1') writeFileSync(CONTRACT, generated);
    const committed = readFileSync(CONTRACT, 'utf8');
    expect(committed, `client/src/contract.ts differs from the served document; regenerate it: ${REGENERATE_COMMAND}`).toBe(generated);
  });

  it('types every int64 field as bigint and lists every error code the document publishes', () => {
    const generated = generateContract(served);
    expect(generated).toMatch(/readonly id: bigint;/);
    expect(generated).toMatch(/readonly categoryId: bigint;/);
    const doc = served as { components: { schemas: { Error: { properties: { code: { enum: string[] } } } } } };
    const codes = doc.components.schemas.Error.properties.code.enum;
    expect(codes.length).toBeGreaterThan(10);
    expect(generated).toContain(`export const ERROR_CODES = [${codes.map((code) => `'${code}'`).join(', ')}] as const;`);
  });
});

describe('generateContract', () => {
  const minimal = (petStatus: Record<string, unknown>) => ({
    paths: {
      '/pets': { get: { operationId: 'listPets', parameters: [] }, post: { operationId: 'createPet' } },
      '/pets/{petId}': { get: { operationId: 'getPet', deprecated: true, 'x-sunset': '2030-12-05' } },
    },
    components: {
      schemas: {
        PetStatus: petStatus,
        NewPet: { type: 'object', properties: { n: { type: 'integer' } }, required: [] },
        Pet: { type: 'object', properties: { id: { type: 'integer', format: 'int64' } }, required: ['id'] },
        Error: { type: 'object', properties: { code: { type: 'string', enum: ['a_b'] } }, required: ['code'] },
      },
    },
  });

  it('maps int64 to bigint, other integers to number, and marks optional members', () => {
    const generated = generateContract(minimal({ type: 'string', enum: ['x'] }));
    expect(generated).toContain('  readonly id: bigint;');
    expect(generated).toContain('  readonly n?: number;');
    expect(generated).toContain("getPet: { method: 'GET', path: '/pets/{petId}', deprecated: true, sunset: '2030-12-05' },");
  });

  it('lists every operation of the document that takes the key, in its order, with its query parameters', () => {
    const document = minimal({ type: 'string', enum: ['x'] });
    const paths = document.paths as Record<string, Record<string, unknown>>;
    paths['/pets/{petId}']!.delete = { operationId: 'deletePet' };
    paths['/pets/{petId}']!.parameters = [];
    paths['/pets/{petId}/photos'] = { get: { operationId: 'listPhotos', parameters: [{ name: 'size', in: 'query', schema: { type: 'integer' } }] } };
    paths['/openapi.json'] = { get: { operationId: 'getOpenApiDocument', security: [] } };
    const generated = generateContract(document);
    const table = generated.slice(generated.indexOf('export const OPERATIONS'));
    expect(table.match(/^  \w+(?=:)/gm)).toEqual(['  listPets', '  createPet', '  getPet', '  deletePet', '  listPhotos']);
    expect(table).toContain("deletePet: { method: 'DELETE', path: '/pets/{petId}' },");
    expect(generated).toContain('/** Query parameters of listPhotos (GET /pets/{petId}/photos). */\nexport interface ListPhotosParams {\n  readonly size?: number;\n}');
    expect(generated).not.toContain('ListPetsParams');
  });

  it('refuses a construct it does not translate instead of loosening the type', () => {
    expect(() => generateContract(minimal({ type: 'string', enum: [1] }))).toThrow(/PetStatus is not a string enum/);
    const document = minimal({ type: 'string', enum: ['x'] });
    document.components.schemas.Pet.properties.id = { oneOf: [] } as never;
    expect(() => generateContract(document)).toThrow(/Pet\.properties\.id uses oneOf/);
  });
});
