import { z } from 'zod';
import { INT64_MAX, INT64_MIN } from '../../../core/pet.js';
import { ErrorSchema, HealthSchema, NewPetSchema, PetSchema, PetsSchema, PetStatusSchema } from '../wire-schemas.js';

/*
 * JSON Schema from the zod wire schemas (OpenAPI 3.1 schemas are JSON Schema 2020-12): nothing here
 * restates a field, a type or a bound.
 */

export type Json = Record<string, unknown>;

export const ref = (kind: string, id: string) => ({ $ref: `#/components/${kind}/${id}` });

function jsonSchemaOptions(io: 'input' | 'output') {
  return {
    io,
    target: 'draft-2020-12' as const,
    unrepresentable: 'any' as const,
    uri: (id: string) => `#/components/schemas/${id}`,
    override: (context: { zodSchema: z.core.$ZodType; jsonSchema: Json }) => {
      // bigint is how int64 travels inside the service; on the wire it is a bare JSON integer.
      if (context.zodSchema._zod.def.type === 'bigint') Object.assign(context.jsonSchema, { type: 'integer', format: 'int64' });
    },
  };
}

/**
 * The int64 bounds, added after zod (whose output must survive JSON.stringify) as bigints: the document is
 * written with lossless-json, so they keep every digit (JSON.stringify would print 9223372036854776000).
 */
function withInt64Bounds(node: unknown): void {
  if (typeof node !== 'object' || node === null) return;
  const schema = node as Json;
  if (schema.format === 'int64') Object.assign(schema, { minimum: INT64_MIN, maximum: INT64_MAX });
  for (const child of Object.values(schema)) withInt64Bounds(child);
}

const strip = ({ $schema: _s, $id: _i, ...schema }: Json): Json => {
  withInt64Bounds(schema);
  return schema;
};

/** One schema (a parameter's, say); a registered schema (PetStatus) becomes a reference to its component. */
export function toSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const inner = schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodType) : schema;
  const id = z.globalRegistry.get(inner)?.id;
  if (id !== undefined) return ref('schemas', id);
  return strip(z.toJSONSchema(schema, jsonSchemaOptions(io)) as Json);
}

/** components.schemas: responses as output (no unknown member), request bodies as input (unknown members dropped). */
export function componentSchemas(): Json {
  const responses = z.registry<{ id: string }>();
  for (const [id, schema] of [['Pet', PetSchema], ['Pets', PetsSchema], ['Error', ErrorSchema], ['PetStatus', PetStatusSchema], ['Health', HealthSchema]] as const) {
    responses.add(schema, { id });
  }
  const requests = z.registry<{ id: string }>();
  requests.add(NewPetSchema, { id: 'NewPet' }).add(PetStatusSchema, { id: 'PetStatus' });
  const out = z.toJSONSchema(responses, jsonSchemaOptions('output')).schemas as Record<string, Json>;
  const input = z.toJSONSchema(requests, jsonSchemaOptions('input')).schemas as Record<string, Json>;
  const all = { ...out, NewPet: input.NewPet! };
  return Object.fromEntries(Object.entries(all).map(([id, schema]) => [id, strip(schema)]));
}
