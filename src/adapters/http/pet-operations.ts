import type { z } from 'zod';
import { GET_PET_SUCCESSOR, GET_PET_SUNSET_AT } from './deprecation.js';
import type { ErrorName } from './openapi/openapi-responses.js';
import { ListPetsQuerySchema, NewPetSchema, PetIdSchema, PetSchema, PetsSchema } from './wire-schemas.js';

/*
 * The route table of the interface: what pet-routes.ts registers, what the OpenAPI document describes
 * (openapi-pet-paths.ts derives parameters, bodies and responses from it and the wire schemas) and which
 * methods CORS allows (cors.ts). The client's operations come from the document it serves.
 */

export interface OwnError {
  readonly code: string;
  readonly description: string;
  readonly headers?: Readonly<Record<string, string>>;
}

interface Success {
  readonly description: string;
  /** Headers: name to component id. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A success with a JSON body: its wire schema (a registered component). */
export interface JsonSuccess extends Success {
  readonly status: number;
  readonly schema: z.ZodType;
}

/** A success without a body: 204, the one success status HTTP sends without content. */
export interface NoContentSuccess extends Success {
  readonly status: 204;
  readonly schema?: undefined;
}

export type SuccessResponse = JsonSuccess | NoContentSuccess;

export interface PetOperation {
  readonly operationId: string;
  readonly method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI path template, relative to /v1. */
  readonly path: string;
  readonly summary: string;
  readonly description: string;
  readonly query?: z.ZodObject;
  readonly pathParams?: Readonly<Record<string, z.ZodType>>;
  /** The request body's wire schema (a registered component). */
  readonly body?: z.ZodType;
  readonly success: SuccessResponse;
  /** Error responses by status: a component name, or one only this operation gives (headers: name to component id). */
  readonly errors: Readonly<Record<number, ErrorName | OwnError>>;
  readonly deprecated?: { readonly sunset: number };
}

const COMMON_ERRORS = { 401: 'Unauthorized', 429: 'TooManyRequests', 500: 'InternalError', 503: 'ServiceUnavailable' } as const;
const sunsetDay = new Date(GET_PET_SUNSET_AT).toISOString().slice(0, 10);

export const PET_OPERATIONS = {
  listPets: {
    operationId: 'listPets',
    method: 'get',
    path: '/pets',
    summary: 'List animals',
    description:
      'Animals in ascending id order, at most `limit`. When more match, a `Link: <...>; rel="next"` header ' +
      'points to the next page; following it visits every matching animal exactly once. Unknown query parameters are 400.',
    query: ListPetsQuerySchema,
    success: { status: 200, schema: PetsSchema, description: 'A page of animals.', headers: { Link: 'Link' } },
    errors: { 400: 'BadRequest', ...COMMON_ERRORS },
  },
  createPet: {
    operationId: 'createPet',
    method: 'post',
    path: '/pets',
    summary: 'Add an animal',
    description: 'The service assigns the id. Unknown members of the body (a client-sent `id`, say) are ignored.',
    body: NewPetSchema,
    success: {
      status: 201,
      schema: PetSchema,
      description: 'The created animal (or, with Idempotent-Replayed, the replay of an earlier creation).',
      headers: { Location: 'Location', 'Idempotent-Replayed': 'IdempotentReplayed' },
    },
    errors: {
      400: 'BadRequest',
      413: 'PayloadTooLarge',
      415: 'UnsupportedMediaType',
      422: { code: 'idempotency_key_reused', description: 'This Idempotency-Key was used with a different body (`idempotency_key_reused`).' },
      ...COMMON_ERRORS,
      503: {
        code: 'storage_unavailable',
        headers: { 'Retry-After': 'RetryAfter' },
        description:
          'Storage did not answer in time (`storage_unavailable`). The animal may have been stored all the same: ' +
          'retry a create only with an `Idempotency-Key` (the same key and body), which then answers that animal, ' +
          'never without one, or it may be created twice.',
      },
    },
  },
  getPet: {
    operationId: 'getPet',
    method: 'get',
    path: '/pets/{petId}',
    summary: 'Get an animal (deprecated)',
    description: `Deprecated: removed on ${sunsetDay}; after that instant it answers 410. Use \`GET ${GET_PET_SUCCESSOR.replace('/v1', '')}\` with the \`status\` filter instead.`,
    pathParams: { petId: PetIdSchema },
    success: { status: 200, schema: PetSchema, description: 'The animal.' },
    errors: {
      400: 'BadRequest',
      404: 'NotFound',
      410: { code: 'operation_removed', description: `The operation was removed on ${sunsetDay} (\`operation_removed\`); use GET /pets.` },
      ...COMMON_ERRORS,
    },
    deprecated: { sunset: GET_PET_SUNSET_AT },
  },
} as const satisfies Record<string, PetOperation>;

/** The full path as @koa/router writes it (`/v1/pets/:petId`). */
export const routerPath = (operation: PetOperation): string => `/v1${operation.path.replace(/\{(\w+)\}/g, ':$1')}`;

/** Every operation of the route table, in its order. */
export const ALL_PET_OPERATIONS: readonly PetOperation[] = Object.values(PET_OPERATIONS);
