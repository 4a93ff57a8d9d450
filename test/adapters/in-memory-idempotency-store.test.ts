import { InMemoryIdempotencyStore } from '../../src/adapters/memory/in-memory-idempotency-store.js';
import { idempotencyStoreContract } from '../contract/idempotency-store-contract.js';

idempotencyStoreContract('InMemoryIdempotencyStore', async () => {
  const store = new InMemoryIdempotencyStore(() => Date.now());
  return { store, close: () => store.close() };
});
