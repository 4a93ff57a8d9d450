import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/http-harness.js';
import { fuzzParameters } from './fuzz-settings.js';
import { jsonText, newPetNode, PET_STATUSES, validNewPet, type NewPetFields } from './json-bodies.js';
import { expectPetShape, petText, type StoredPet } from './response-invariants.js';

/*
 * Model-based: random sequences of createPet, listPets and walks along rel="next" links, checked step by step
 * against a plain array. A walk must visit every pet that matched when it started exactly once, in id order,
 * however many pets are added while it is under way.
 */

interface Walk {
  readonly limit: number;
  readonly status: string | undefined;
  readonly matchingAtStart: readonly bigint[];
  readonly seen: bigint[];
  next: string | undefined;
}

interface Model {
  /** Every pet the server holds, in id order: shared by all runs, since the server is. */
  readonly pets: StoredPet[];
  walk?: Walk;
}

interface Real {
  readonly server: TestServer;
}

const matching = (model: Model, status: string | undefined, afterId = 0n) =>
  model.pets.filter((pet) => pet.id > afterId && (status === undefined || pet.status === status));

const NEXT = /^<([^>]+)>; rel="next"$/;

/** GETs a page and checks it is exactly what the model predicts: the pets, and a next link iff more match. */
async function expectPage(real: Real, model: Model, path: string, limit: number, status: string | undefined, afterId: bigint) {
  const response = await real.server.request('GET', path);
  expect(response.status, path).toBe(200);
  const expected = matching(model, status, afterId);
  const page = (response.json as unknown[]).map(expectPetShape);
  expect(page.map(petText)).toEqual(expected.slice(0, limit).map(petText));
  const link = response.headers.get('link');
  expect(link !== null, `next link on ${path}`).toBe(expected.length > limit);
  return { page, next: link === null ? undefined : NEXT.exec(link)![1] };
}

class CreatePet implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pet: NewPetFields) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const response = await real.server.createPet(jsonText(newPetNode(this.pet)));
    expect(response.status).toBe(201);
    const created = expectPetShape(response.json);
    model.pets.push(created);
    expect(created.id).toBeGreaterThan(model.pets.at(-2)?.id ?? 0n);
    expect(response.text).toBe(petText({ id: created.id, ...this.pet }));
  }
  toString = () => `createPet(${JSON.stringify(this.pet, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v))})`;
}

class ListPets implements fc.AsyncCommand<Model, Real> {
  constructor(readonly limit: number, readonly status: string | undefined) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const status = this.status === undefined ? '' : `&status=${this.status}`;
    await expectPage(real, model, `/v1/pets?limit=${this.limit}${status}`, this.limit, this.status, 0n);
  }
  toString = () => `listPets(${this.limit}, ${this.status})`;
}

class StartWalk implements fc.AsyncCommand<Model, Real> {
  constructor(readonly limit: number, readonly status: string | undefined) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const status = this.status === undefined ? '' : `&status=${this.status}`;
    const walk: Walk = {
      limit: this.limit,
      status: this.status,
      matchingAtStart: matching(model, this.status).map((pet) => pet.id),
      seen: [],
      next: `/v1/pets?limit=${this.limit}${status}`,
    };
    model.walk = walk;
    await new ContinueWalk().run(model, real);
  }
  toString = () => `startWalk(${this.limit}, ${this.status})`;
}

class ContinueWalk implements fc.AsyncCommand<Model, Real> {
  check = (model: Readonly<Model>) => model.walk?.next !== undefined;
  async run(model: Model, real: Real): Promise<void> {
    const walk = model.walk!;
    const { page, next } = await expectPage(real, model, walk.next!, walk.limit, walk.status, walk.seen.at(-1) ?? 0n);
    walk.seen.push(...page.map((pet) => pet.id));
    walk.next = next;
    if (next === undefined) {
      // Done: every pet that matched at the start, once each, in order; later ones may follow them.
      expect(new Set(walk.seen).size).toBe(walk.seen.length);
      expect(walk.seen.slice(0, walk.matchingAtStart.length)).toEqual(walk.matchingAtStart);
      expect(walk.seen).toEqual(matching(model, walk.status).map((pet) => pet.id));
    }
  }
  toString = () => 'continueWalk';
}

class GetPet implements fc.AsyncCommand<Model, Real> {
  constructor(readonly index: number) {}
  check = (model: Readonly<Model>) => model.pets.length > 0;
  async run(model: Model, real: Real): Promise<void> {
    const pet = model.pets[this.index % model.pets.length]!;
    const response = await real.server.request('GET', `/v1/pets/${pet.id}`);
    expect(response.status).toBe(200);
    expect(response.text).toBe(petText(pet));
  }
  toString = () => `getPet(#${this.index})`;
}

const limit = fc.oneof(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 100 }));
const status = fc.option(fc.constantFrom(...PET_STATUSES), { nil: undefined });

const commands = fc.commands(
  [
    validNewPet.map((pet) => new CreatePet(pet)),
    validNewPet.map((pet) => new CreatePet(pet)),
    fc.tuple(limit, status).map(([l, s]) => new ListPets(l, s)),
    fc.tuple(limit, status).map(([l, s]) => new StartWalk(l, s)),
    fc.constant(new ContinueWalk()),
    fc.constant(new ContinueWalk()),
    fc.nat().map((index) => new GetPet(index)),
  ],
  { maxCommands: 40 },
);

describe('listPets and createPet against an in-memory model', () => {
  let server: TestServer;
  const pets: StoredPet[] = [];

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.stop();
    console.log(`fuzz model: ${pets.length} pets created`);
  });

  it('agrees with the model on every page, and walks visit every pet exactly once under inserts', { timeout: 300_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(commands, (cmds) => fc.asyncModelRun(() => ({ model: { pets }, real: { server } }), cmds)),
      fuzzParameters('model commands', 0.1),
    );
  });
});
