import { describe, expect, it } from 'vitest';
import { ValidationFailed } from '../../src/core/errors.js';
import { rememberingValidator, validate } from '../../src/adapters/http/validate.js';
import { PetIdSchema } from '../../src/adapters/http/wire-schemas.js';

const outcome = (run: () => unknown) => {
  try {
    return { value: run() };
  } catch (error) {
    return { error: error instanceof ValidationFailed ? error.message : error };
  }
};

describe('rememberingValidator', () => {
  it('answers what validate() answers, for the first and for every later time a text is seen, across start-overs', () => {
    const petIdOf = rememberingValidator(PetIdSchema, 'petId');
    const texts = ['1', '9223372036854775807', '9223372036854775808', '-1', '0', '01', 'abc', '', ' 7', '1e3', '42'];
    // 3 passes over 5,000 distinct ids more than fills the memory (4,096), so it starts over at least once.
    const many = Array.from({ length: 5000 }, (_, n) => String(n * 7919));
    for (let pass = 0; pass < 3; pass++) {
      for (const text of [...texts, ...many]) {
        expect(outcome(() => petIdOf(text))).toEqual(outcome(() => validate(PetIdSchema, text, 'petId')));
      }
    }
    expect(petIdOf('9223372036854775807')).toBe(9223372036854775807n);
    expect(() => petIdOf('9223372036854775808')).toThrow(ValidationFailed);
  });
});
