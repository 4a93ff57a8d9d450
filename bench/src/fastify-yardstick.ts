import Fastify, { type FastifyError } from 'fastify';
import { decodeCursor, errorBody, PetStore, STATUSES, type NewPet, type Status } from './yardstick-store.js';

/*
 * The Fastify 5 yardstick: the service's three routes under /v1, validated by route schemas (Ajv) and
 * serialized by response schemas (fast-json-stringify); nothing else: no auth (the Authorization header is
 * ignored), no logs, metrics or limits. One error handler keeps the service's error body.
 */
const store = new PetStore();
const status = { type: 'string', enum: STATUSES } as const;
const pet = {
  type: 'object',
  required: ['id', 'name', 'categoryId'],
  properties: { id: { type: 'integer' }, name: { type: 'string' }, categoryId: { type: 'integer' }, status },
} as const;
const error = {
  type: 'object',
  properties: { code: { type: 'string' }, message: { type: 'string' }, status: { type: 'integer' } },
} as const;

// Ajv keeps unknown members so that additionalProperties: false rejects them, as the service does for the query.
const app = Fastify({ logger: false, ajv: { customOptions: { removeAdditional: false } } });

app.setErrorHandler((err: FastifyError, _request, reply) => {
  const code = err.statusCode ?? 500;
  return reply.code(code).send(errorBody(code, err.validation ? 'validation_failed' : 'internal_error', err.message));
});

interface ListQuery { limit: number; status?: Status; cursor?: string }

app.get<{ Querystring: ListQuery }>('/v1/pets', {
  schema: {
    querystring: {
      type: 'object',
      additionalProperties: false,
      properties: {
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
        status,
        cursor: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
      },
    },
    response: { 200: { type: 'array', items: pet }, '4xx': error },
  },
}, (request, reply) => {
  const { limit, status: wanted, cursor } = request.query;
  const afterId = cursor === undefined ? 0 : decodeCursor(cursor, wanted);
  if (afterId === undefined) return reply.code(400).send(errorBody(400, 'invalid_cursor', 'cursor is not one this service issued.'));
  const { pets, link } = store.list({ limit, status: wanted, afterId });
  if (link !== undefined) reply.header('link', link);
  return pets;
});

app.post<{ Body: NewPet }>('/v1/pets', {
  schema: {
    body: {
      type: 'object',
      required: ['name', 'categoryId'],
      properties: { name: { type: 'string', minLength: 1, maxLength: 255, pattern: '\\S' }, categoryId: { type: 'integer' }, status },
    },
    response: { 201: pet, '4xx': error },
  },
}, (request, reply) => {
  const created = store.add(request.body);
  return reply.code(201).header('location', `/v1/pets/${created.id}`).send(created);
});

app.get<{ Params: { petId: string } }>('/v1/pets/:petId', {
  schema: {
    params: { type: 'object', properties: { petId: { type: 'string', pattern: '^-?\\d{1,19}$' } } },
    response: { 200: pet, '4xx': error },
  },
}, (request, reply) => {
  const found = store.get(Number(request.params.petId));
  return found ?? reply.code(404).send(errorBody(404, 'pet_not_found'));
});

const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? '127.0.0.1' });
process.stdout.write(`Fastify yardstick listening on ${address}/v1\n`);
