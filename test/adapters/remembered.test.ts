import { describe, expect, it, vi } from 'vitest';
import { ValidationFailed } from '../../src/core/errors.js';
import { queryOf } from '../../src/adapters/http/query.js';
import { remembered } from '../../src/adapters/http/remembered.js';
import { validate } from '../../src/adapters/http/validate.js';
import { ListPetsQuerySchema, PetIdSchema } from '../../src/adapters/http/wire-schemas.js';

const outcome = (run: () => unknown) => {
  try {
    return { value: run() };
  } catch (error) {
    return { error: error instanceof ValidationFailed ? error.message : error };
  }
};

describe('remembered', () => {
  it('answers what the schema answers for path ids, the first and every later time, across start-overs', () => {
    const petIdOf = remembered((text) => validate(PetIdSchema, text, 'petId'));
    const texts = ['1', '9223372036854775807', '9223372036854775808', '-1', '0', '01', 'abc', '', ' 7', '1e3', '42'];
    // 3 passes over 5,000 distinct ids more than fill the memory (4,096), so it starts over at least once.
    const many = Array.from({ length: 5000 }, (_, n) => String(n * 7919));
    for (let pass = 0; pass < 3; pass++) {
      for (const text of [...texts, ...many]) {
        expect(outcome(() => petIdOf(text))).toEqual(outcome(() => validate(PetIdSchema, text, 'petId')));
      }
    }
    expect(petIdOf('9223372036854775807')).toBe(9223372036854775807n);
  });

  it('answers what the schema answers for list queries, and the answers it keeps cannot be altered', () => {
    const listQueryOf = remembered((target) => Object.freeze(validate(ListPetsQuerySchema, queryOf(target), 'query')));
    const targets = ['/v1/pets', '/v1/pets?limit=20', '/v1/pets?status=available&limit=2e1', '/v1/pets?limit=0', '/v1/pets?limit=20&limit=3',
      '/v1/pets?status=lost', '/v1/pets?cursor=abc&status=sold', `/v1/pets?cursor=${'a'.repeat(300)}`, `/v1/pets?x=${'y'.repeat(2000)}`];
    for (let pass = 0; pass < 2; pass++) {
      for (const target of targets) {
        expect(outcome(() => listQueryOf(target))).toEqual(outcome(() => validate(ListPetsQuerySchema, queryOf(target), 'query')));
      }
    }
    const kept = listQueryOf('/v1/pets?limit=20') as { limit: number };
    expect(() => {
      kept.limit = 100;
    }).toThrow(TypeError);
    expect(listQueryOf('/v1/pets?limit=20')).toEqual({ limit: 20 });
  });

  it('works out refusals and long texts every time, and each other text once', () => {
    const parse = vi.fn((text: string) => {
      if (text === 'bad') throw new ValidationFailed('x', 'x: bad.');
      return text.length;
    });
    const lengthOf = remembered(parse);
    const long = 'z'.repeat(257);
    for (let i = 0; i < 3; i++) {
      expect(lengthOf('abc')).toBe(3);
      expect(() => lengthOf('bad')).toThrow(ValidationFailed);
      expect(lengthOf(long)).toBe(257);
    }
    expect(parse.mock.calls.map(([text]) => (text.length > 10 ? 'long' : text))).toEqual(['abc', 'bad', 'long', 'bad', 'long', 'bad', 'long']);
  });

  it('keeps no undefined answer: it is worked out every time and takes no room from the answers kept', () => {
    const lookUp = vi.fn((text: string) => (text.startsWith('known') ? Object.freeze({ text }) : undefined));
    const find = remembered(lookUp);
    const known = find('known 1');
    // More unknown texts than the memory holds: had they been kept, it would have started over and lost 'known 1'.
    for (let n = 0; n < 5000; n++) expect(find(`unknown ${n}`)).toBeUndefined();
    expect(find('unknown 0')).toBeUndefined();
    expect(find('known 1')).toBe(known);
    expect(lookUp.mock.calls.filter(([text]) => text === 'known 1')).toHaveLength(1);
    expect(lookUp.mock.calls.filter(([text]) => text === 'unknown 0')).toHaveLength(2);
  });
});
