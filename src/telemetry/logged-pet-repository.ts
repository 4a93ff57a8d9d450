import { DomainError } from '../core/errors.js';
import type { NewPet, Pet, PetId } from '../core/pet.js';
import type { Added, IdempotentCreate, PetListQuery, PetRepository } from '../ports/pet-repository.js';
import { msSince, type Logger } from './logger.js';

type Outcome<T> = (result: T) => Readonly<Record<string, unknown>>;

/**
 * Any PetRepository, with one debug line per operation: its name, duration and outcome. The composition root
 * wraps the store in it only at LOG_LEVEL=debug, so that below debug storage calls pay nothing for it.
 */
export class LoggedPetRepository implements PetRepository {
  constructor(
    private readonly pets: PetRepository,
    private readonly logger: Logger,
  ) {}

  add(pet: NewPet, arrivedAt?: number): Promise<Pet> {
    return this.logged('add', () => this.pets.add(pet, arrivedAt), (stored) => ({ outcome: 'stored', petId: String(stored.id) }));
  }

  addOnce(pet: NewPet, idempotency: IdempotentCreate, arrivedAt?: number): Promise<Added> {
    return this.logged(
      'addOnce',
      () => this.pets.addOnce(pet, idempotency, arrivedAt),
      ({ pet: stored, replayed }) => ({ outcome: replayed ? 'replayed' : 'stored', petId: String(stored.id) }),
    );
  }

  findById(id: PetId, arrivedAt?: number): Promise<Pet | undefined> {
    return this.logged('findById', () => this.pets.findById(id, arrivedAt), (pet) => ({ outcome: pet === undefined ? 'not_found' : 'found', petId: String(id) }));
  }

  list(query: PetListQuery, arrivedAt?: number): Promise<Pet[]> {
    return this.logged('list', () => this.pets.list(query, arrivedAt), (pets) => ({ outcome: 'listed', pets: pets.length }));
  }

  count(): Promise<number> {
    return this.logged('count', () => this.pets.count(), (pets) => ({ outcome: 'counted', pets }));
  }

  isReachable(): Promise<boolean> {
    return this.logged('isReachable', () => this.pets.isReachable(), (reachable) => ({ outcome: reachable ? 'reachable' : 'unreachable' }));
  }

  private async logged<T>(operation: string, run: () => Promise<T>, outcome: Outcome<T>): Promise<T> {
    const started = performance.now();
    try {
      const result = await run();
      this.logger.debug({ operation, durationMs: msSince(started), ...outcome(result) }, 'storage operation');
      return result;
    } catch (error) {
      // A domain error is named by its code (the adapter logs a driver failure's detail itself); anything else keeps its stack.
      const failure = error instanceof DomainError ? { errorCode: error.code } : { err: error };
      this.logger.debug({ operation, durationMs: msSince(started), outcome: 'failed', ...failure }, 'storage operation');
      throw error;
    }
  }
}
