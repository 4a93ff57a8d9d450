import { describe, expect, it } from 'vitest';
import { hashedKeyEntry, HashedApiKeyVerifier, sha256Hex } from '../../src/adapters/keys/hashed-api-key-verifier.js';

describe('HashedApiKeyVerifier', () => {
  it('accepts plain and sha256: entries and tells the keys apart by id', () => {
    const verifier = new HashedApiKeyVerifier(['plain-key', hashedKeyEntry('hashed-key')]);
    const plain = verifier.verify('plain-key');
    const hashed = verifier.verify('hashed-key');
    expect(plain).toMatch(/^key_[0-9a-f]{12}$/);
    expect(hashed).toMatch(/^key_[0-9a-f]{12}$/);
    expect(plain).not.toBe(hashed);
  });

  it('accepts upper-case hex digests', () => {
    const verifier = new HashedApiKeyVerifier([`sha256:${sha256Hex('k').toUpperCase()}`]);
    expect(verifier.verify('k')).toBeDefined();
  });

  it('rejects unknown keys, prefixes, the digest itself and the empty key', () => {
    const verifier = new HashedApiKeyVerifier(['plain-key', hashedKeyEntry('hashed-key')]);
    for (const attempt of ['plain', 'plain-key ', 'hashed-key2', hashedKeyEntry('hashed-key'), sha256Hex('hashed-key'), '']) {
      expect(verifier.verify(attempt), attempt).toBeUndefined();
    }
  });

  it('accepts nothing when no keys are configured', () => {
    expect(new HashedApiKeyVerifier([]).verify('anything')).toBeUndefined();
  });
});
