import { createHash, hash, timingSafeEqual } from 'node:crypto';
import type { ApiKeyId, ApiKeyVerifier } from '../../ports/api-key-verifier.js';

const HASHED_ENTRY = /^sha256:([0-9a-f]{64})$/i;

/** SHA-256 of a key, hex encoded: the form in which keys are configured and compared. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The `sha256:<hex>` config entry for a plain key. */
export function hashedKeyEntry(key: string): string {
  return `sha256:${sha256Hex(key)}`;
}

/**
 * Verifies keys against configured entries: `sha256:<64 hex>` is a digest, any other entry the key itself.
 * Only digests are kept in memory, and each check compares the presented key's digest with every entry
 * using timingSafeEqual, so timing tells nothing about which key or how much of it matched.
 */
export class HashedApiKeyVerifier implements ApiKeyVerifier {
  private readonly digests: readonly Buffer[];

  constructor(entries: readonly string[]) {
    this.digests = entries.map((entry) => {
      const hashed = HASHED_ENTRY.exec(entry);
      return Buffer.from(hashed ? hashed[1]!.toLowerCase() : sha256Hex(entry), 'hex');
    });
  }

  verify(presentedKey: string): ApiKeyId | undefined {
    // One-shot hash: no Hash object per request.
    const presented = hash('sha256', presentedKey, 'buffer');
    let match: Buffer | undefined;
    for (const digest of this.digests) {
      if (timingSafeEqual(presented, digest) && match === undefined) match = digest;
    }
    // The id is a short digest prefix: enough to tell keys apart in logs, useless for guessing the key.
    return match === undefined ? undefined : `key_${match.toString('hex').slice(0, 12)}`;
  }
}
