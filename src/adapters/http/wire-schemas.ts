import { z } from 'zod';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, LIST_LIMIT_MIN } from '../../core/pet-catalog.js';
import { DOMAIN_ERROR_CODES } from '../../core/errors.js';
import { API_ERROR_CODES } from './api-error.js';
import { INT64_MAX, INT64_MIN, PET_NAME_MAX_LENGTH, PET_STATUSES, isValidPetName } from '../../core/pet.js';
import { exactInteger, JSON_NUMBER } from './json.js';

/*
 * The wire contract, defined once: these schemas validate requests, give the handlers their types and
 * generate the OpenAPI document. Integers arrive as bigint (see json.ts), so int64 is checked exactly.
 * Where zod cannot say a rule in JSON Schema (code points), the check is the core's and `.meta` states it
 * for the document, next to the check.
 */

export const ERROR_CODES = [...DOMAIN_ERROR_CODES, ...API_ERROR_CODES] as const;

const INT64_RANGE = `an integer from ${INT64_MIN} to ${INT64_MAX}`;

// What validators reading JSON numbers as doubles judge differently from the service, said where the number is.
const EXACT_INT64 =
  'Exact: a validator that reads numbers as doubles cannot tell values within 2048 of the int64 bounds from ' +
  'values out of range (it takes 9223372036854775808 for the maximum; the service answers 400).';
const EXACT_INTEGER =
  'Written as JSON Schema counts integers: `1`, `1.0` and `1e0` are the same. The value must be an exact integer: ' +
  '`1.00000000000000001` is 400, though a validator reading doubles takes it for 1.';

const int64 = (field: string, description: string) =>
  z.int64({ error: `${field} must be ${INT64_RANGE}` }).meta({ description: `${description} ${EXACT_INT64}` });

export const PetStatusSchema = z
  .enum(PET_STATUSES, { error: `status must be one of ${PET_STATUSES.join(', ')}` })
  .meta({ id: 'PetStatus', description: 'Availability status of an animal.' });

const nameMessage = `name must be a string of 1 to ${PET_NAME_MAX_LENGTH} characters (code points), not blank`;
// JSON Schema counts maxLength in code points, and so does the core: 255 emoji are a valid name.
const PetName = z
  .string({ error: nameMessage })
  .refine(isValidPetName, { error: nameMessage })
  .meta({ description: "The animal's name.", minLength: 1, maxLength: PET_NAME_MAX_LENGTH, pattern: '\\S' });

// Unknown members (a client-sent `id`, say) are dropped, never stored or echoed.
export const NewPetSchema = z
  .object(
    {
      name: PetName,
      categoryId: int64('categoryId', `Identifier of the category the animal belongs to. ${EXACT_INTEGER}`),
      status: PetStatusSchema.optional(),
    },
    { error: 'The request body must be a JSON object (a NewPet)' },
  )
  .meta({ id: 'NewPet' });

export const PetSchema = NewPetSchema.extend({
  id: int64('id', 'Unique identifier, assigned by the service on creation.'),
}).meta({ id: 'Pet' });

export const PetsSchema = z.array(PetSchema).meta({ id: 'Pets' });

export const ErrorSchema = z
  .object({
    code: z.enum(ERROR_CODES).meta({ description: 'Machine-readable error code, stable snake_case: one of the values listed here.' }),
    message: z.string().meta({ description: 'Human-readable description.' }),
    status: z.int().min(100).max(599).meta({ description: 'The HTTP status code of the response.' }),
  })
  .meta({ id: 'Error' });

export const CursorSchema = z
  .string({ error: 'cursor must be a single opaque value from a rel="next" link' })
  .regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'cursor must be a single opaque value from a rel="next" link' });

const limitMessage = `limit must be an integer from ${LIST_LIMIT_MIN} to ${LIST_LIMIT_MAX}`;

// Query values arrive as strings (arrays when repeated): parse them strictly, never coerce loosely. limit is
// read as the body reads numbers: a JSON number whose value is an integer (`20`, `20.0`, `2e1`).
export const ListPetsQuerySchema = z.strictObject(
  {
    limit: z
      .string({ error: limitMessage })
      .regex(JSON_NUMBER, { error: limitMessage })
      .transform((text) => Number(exactInteger(text) ?? Number.NaN))
      .pipe(z.int({ error: limitMessage }).min(LIST_LIMIT_MIN, { error: limitMessage }).max(LIST_LIMIT_MAX, { error: limitMessage }))
      .default(LIST_LIMIT_DEFAULT)
      .meta({
        description:
          `Maximum number of animals returned, ${LIST_LIMIT_MIN} to ${LIST_LIMIT_MAX}, written as a JSON number: ` +
          '`20`, `20.0` and `2e1` are the same integer; `020`, `+20` and `20.5` are 400.',
      }),
    status: PetStatusSchema.optional(),
    cursor: CursorSchema.optional(),
  },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown query parameter: ${issue.keys.join(', ')}` : undefined) },
);

const petIdMessage = `petId must be ${INT64_RANGE}`;

export const PetIdSchema = z
  .string()
  .regex(/^-?\d{1,19}$/, { error: petIdMessage })
  .transform(BigInt)
  .pipe(z.int64({ error: petIdMessage }));

export const HealthSchema = z
  .object({ status: z.enum(['ok', 'ready', 'unavailable']) })
  .meta({ id: 'Health', description: 'Liveness or readiness of the service.' });

const idempotencyKeyMessage =
  'Idempotency-Key must be 1 to 255 printable ASCII characters: a bare token (no space, no ") or a quoted string (no " or \\ inside).';

// An sf-string ("...") as the draft writes it, or the bare token most clients send; the key is what is inside
// the quotes. An empty value is malformed, not absent. The document's pattern is this regex's source.
export const IdempotencyKeySchema = z
  .string({ error: idempotencyKeyMessage })
  .min(1, { error: idempotencyKeyMessage })
  .max(257, { error: idempotencyKeyMessage })
  .regex(/^(?:"[\x20\x21\x23-\x5b\x5d-\x7e]{1,255}"|[\x21\x23-\x7e]{1,255})$/, { error: idempotencyKeyMessage })
  .transform((value) => (value.startsWith('"') ? value.slice(1, -1) : value));
