import { z } from 'zod';
import { EXAMPLE_NEW_PET, EXAMPLE_PET, PARAMETER_EXAMPLES } from './openapi-examples.js';
import { API_HEADERS, DEPRECATION_HEADERS, header } from './openapi-headers.js';
import { ERRORS, errorResponse, jsonContent } from './openapi-responses.js';
import { ref, toSchema, type Json } from './openapi-schemas.js';
import { ALL_PET_OPERATIONS, type PetOperation, type SuccessResponse } from '../pet-operations.js';
import { IdempotencyKeySchema } from '../wire-schemas.js';

/*
 * paths of the interface, derived from the route table (pet-operations.ts) and the wire schemas. What is
 * written here is only what no schema holds: parameter prose and the headers particular to one operation.
 */

const PARAMETER_PROSE: Readonly<Record<string, Json>> = {
  status: { description: 'When present, only animals with this status are returned; absent, the list is not filtered (animals without a status included).' },
  cursor: {
    description:
      'Opaque position from a `rel="next"` Link of a previous page; continue with the same `limit` and `status`. ' +
      'A tampered or malformed cursor, or one issued for another `status`, is 400 (`invalid_cursor`). Absent, the list ' +
      'starts at the first animal. Added beyond v1.0.0.',
    'x-stability': 'beta',
  },
  petId: { description: 'Identifier of the animal to retrieve (int64, written as decimal digits).' },
};

const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  'x-stability': 'beta',
  description:
    'Makes retries safe (draft-ietf-httpapi-idempotency-key-header): 1 to 255 printable ASCII characters, ' +
    'bare (no space or `"`) or as a quoted sf-string (no `"` or `\\` inside), scoped to your API key; any other ' +
    'value, an empty one included, is 400 (`invalid_idempotency_key`). A retry with the same body answers the animal the ' +
    'first request created (201, same Location and body, `Idempotent-Replayed: true`), also when that request ' +
    'failed or was still running, and creates nothing. Another body is 422 for 24 h (IDEMPOTENCY_TTL_MS); after ' +
    'that the key is free for another body. Added beyond v1.0.0.',
  schema: toSchema(IdempotencyKeySchema, 'input'),
  example: PARAMETER_EXAMPLES['Idempotency-Key'],
};

function parameter(name: string, where: 'query' | 'path', schema: z.ZodType, required: boolean): Json {
  const io = where === 'query' && name === 'cursor' ? 'input' : 'output';
  return { name, in: where, required, ...PARAMETER_PROSE[name], schema: toSchema(schema, io), example: PARAMETER_EXAMPLES[name] };
}

function parameters(operation: PetOperation): Json[] {
  const query = Object.entries(operation.query?.shape ?? {}).map(([name, schema]) =>
    parameter(name, 'query', schema as z.ZodType, !(schema as z.ZodType).safeParse(undefined).success),
  );
  const path = Object.entries(operation.pathParams ?? {}).map(([name, schema]) => parameter(name, 'path', schema, true));
  return [...path, ...query, ...(operation.body === undefined ? [] : [IDEMPOTENCY_KEY])];
}

/** The component a wire schema is registered as (`.meta({ id })` in wire-schemas.ts). */
function componentId(schema: z.ZodType): string {
  const id = z.globalRegistry.get(schema)?.id;
  if (id === undefined) throw new Error('A body or response schema of the route table has no component id');
  return id;
}

function successResponse({ status, schema, description, headers }: SuccessResponse): Json {
  const own = Object.fromEntries(Object.entries(headers ?? {}).map(([name, id]) => [name, header(id)]));
  const response: Json = { description, headers: { ...API_HEADERS, ...own } };
  if (schema === undefined) return { [status]: response };
  const schemaId = componentId(schema);
  return { [status]: { ...response, content: jsonContent(schemaId, schemaId === 'Pets' ? [EXAMPLE_PET] : EXAMPLE_PET) } };
}

function responses(operation: PetOperation): Json {
  const all: Json = successResponse(operation.success);
  for (const [status, error] of Object.entries(operation.errors)) {
    const own = typeof error !== 'string';
    // Shared responses are referenced; getPet's carry the deprecation headers, so they are written out.
    all[status] = !own && operation.deprecated === undefined
      ? ref('responses', error)
      : errorResponse(own ? { ...error, status: Number(status), message: error.description } : ERRORS[error]);
  }
  if (operation.deprecated !== undefined) {
    for (const response of Object.values(all) as Json[]) response.headers = { ...(response.headers as Json), ...DEPRECATION_HEADERS };
  }
  return Object.fromEntries(Object.entries(all).sort(([a], [b]) => a.localeCompare(b)));
}

function operationObject(operation: PetOperation): Json {
  const { body, deprecated } = operation;
  const sunset = deprecated === undefined ? {} : { deprecated: true, 'x-sunset': new Date(deprecated.sunset).toISOString().slice(0, 10) };
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    description: operation.description,
    ...sunset,
    tags: ['animals'],
    parameters: parameters(operation),
    ...(body === undefined ? {} : { requestBody: { required: true, content: jsonContent(componentId(body), EXAMPLE_NEW_PET) } }),
    responses: responses(operation),
  };
}

/** paths for the operations of a route table (the interface's by default), relative to the /v1 server. */
export function petPaths(operations: readonly PetOperation[] = ALL_PET_OPERATIONS): Json {
  const paths: Record<string, Json> = {};
  for (const operation of operations) {
    paths[operation.path] = { ...paths[operation.path], [operation.method]: operationObject(operation) };
  }
  return paths;
}
