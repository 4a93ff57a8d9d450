import { InMemoryPetRepository } from '../../src/adapters/memory/in-memory-pet-repository.js';
import { petRepositoryContract } from '../contract/pet-repository-contract.js';

petRepositoryContract('InMemoryPetRepository', async () => ({
  repository: new InMemoryPetRepository(),
  close: async () => {},
}));
