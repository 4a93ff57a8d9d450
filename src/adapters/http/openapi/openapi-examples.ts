import { encodeCursor } from '../cursor.js';
import type { ErrorBody } from '../error-responses.js';

/*
 * The document's examples, chosen so that example-driven tools (Postman, Dredd, Prism) run without edits
 * against a fresh service: every value is valid, the cursor is a real one for the example status, and the
 * example petId is the id the first created animal gets (on a fresh service with no animal it is a 404).
 * They are examples only: the one `default` in the documents is limit's, the only one the interface has.
 */

export const EXAMPLE_PET_ID = 1n;
export const EXAMPLE_STATUS = 'available';

export const EXAMPLE_NEW_PET = { name: 'Rex', categoryId: 1n, status: EXAMPLE_STATUS };
export const EXAMPLE_PET = { id: EXAMPLE_PET_ID, ...EXAMPLE_NEW_PET };

/** Values of the operations' parameters, by parameter name. */
export const PARAMETER_EXAMPLES: Readonly<Record<string, unknown>> = {
  limit: 20,
  status: EXAMPLE_STATUS,
  // A cursor sealed for the example status: continues after the first animal.
  cursor: encodeCursor(EXAMPLE_PET_ID, EXAMPLE_STATUS),
  petId: EXAMPLE_PET_ID,
  'Idempotency-Key': '5b6f2a9e-3c1d-4e8f-9a07-6d2b8c4e1f30',
};

export const NEXT_LINK_EXAMPLE = `</v1/pets?limit=20&cursor=${encodeCursor(20n, undefined)}>; rel="next"`;

export const REQUEST_ID_EXAMPLE = '7c1e9f6a-2b3d-4c5e-8f90-a1b2c3d4e5f6';

export const errorExample = (status: number, code: ErrorBody['code'], message: string): ErrorBody => ({ code, message, status });
