import { hashedKeyEntry } from '../adapters/keys/hashed-api-key-verifier.js';
import { newApiKey } from '../config/api-keys-in-force.js';

// `npm run key:new`: a key for the client, and the digest entry for API_KEYS, so servers never hold plain keys.
const key = newApiKey();
process.stdout.write(
  `API key (give it to the client; it is not stored anywhere):\n  ${key}\n` +
    `API_KEYS entry (add it, comma-separated, to API_KEYS or config/<env>.json "apiKeys"):\n  ${hashedKeyEntry(key)}\n`,
);
