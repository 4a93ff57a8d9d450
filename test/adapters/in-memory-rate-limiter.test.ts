import { InMemoryRateLimiter } from '../../src/adapters/memory/in-memory-rate-limiter.js';
import { rateLimiterContract } from '../contract/rate-limiter-contract.js';

rateLimiterContract('InMemoryRateLimiter', async (limit, windowSeconds, now) => new InMemoryRateLimiter('test', limit, windowSeconds, now));
