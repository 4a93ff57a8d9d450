import { hash, timingSafeEqual } from 'node:crypto';
import { PET_STATUSES, type PetId, type PetStatus } from '../../core/pet.js';
import { ApiError } from './api-error.js';
import { memoized } from './memoized.js';

/*
 * A cursor is opaque to clients: version, the last id returned and the status filter, sealed with a
 * truncated keyed SHA-256 so that any edit is detected (400) instead of silently repositioning the list.
 * The payload has a fixed length, so SHA-256(key || payload) needs no HMAC construction, and the
 * one-shot hash keeps the cost off the listing hot path.
 * The key is fixed on purpose: every instance must read every other instance's cursors, and a forged
 * cursor could only reposition a list its holder may read in full anyway.
 */
const VERSION = 1;
const MAC_BYTES = 12;
const PAYLOAD_BYTES = 10;
const MAC_KEY = Buffer.from('animal-store/list-pets-cursor/v1');

const seal = (payload: Buffer) => hash('sha256', Buffer.concat([MAC_KEY, payload]), 'buffer').subarray(0, MAC_BYTES);

const statusIndexOf = (status: PetStatus | undefined) => (status === undefined ? 0 : PET_STATUSES.indexOf(status) + 1);

// Sealed once per page boundary rather than on every request for that page: one memory per status filter
// (index 0: none), keyed by the id's digits.
const sealers = Array.from({ length: PET_STATUSES.length + 1 }, (_, statusIndex) =>
  memoized((afterId) => {
    const payload = Buffer.alloc(PAYLOAD_BYTES);
    payload.writeUInt8(VERSION, 0);
    payload.writeBigInt64BE(BigInt(afterId), 1);
    payload.writeUInt8(statusIndex, 9);
    return Buffer.concat([payload, seal(payload)]).toString('base64url');
  }),
);

export function encodeCursor(afterId: PetId, status: PetStatus | undefined): string {
  return sealers[statusIndexOf(status)]!(String(afterId));
}

// Opened once per cursor text: a page deep in a list is asked for again and again. Only genuine ones are kept.
const opened = memoized((cursor) => Object.freeze(open(cursor)));

/** The id to continue after; throws invalid_cursor when the cursor was altered or belongs to another filter. */
export function decodeCursor(cursor: string, status: PetStatus | undefined): PetId {
  const { afterId, statusIndex } = opened(cursor);
  if (statusIndex !== statusIndexOf(status)) throw invalid('belongs to a different status filter');
  return afterId;
}

const invalid = (why: string) => new ApiError(400, 'invalid_cursor', `cursor ${why}; follow the rel="next" link as given.`);

/** The payload of a cursor this service sealed; throws invalid_cursor for any other. */
function open(cursor: string): { readonly afterId: PetId; readonly statusIndex: number } {
  const bytes = Buffer.from(cursor, 'base64url');
  if (bytes.length !== PAYLOAD_BYTES + MAC_BYTES || bytes.toString('base64url') !== cursor) {
    throw invalid('is malformed');
  }
  const payload = bytes.subarray(0, PAYLOAD_BYTES);
  if (!timingSafeEqual(bytes.subarray(PAYLOAD_BYTES), seal(payload)) || payload.readUInt8(0) !== VERSION) {
    throw invalid('is not one this service issued');
  }
  return { afterId: payload.readBigInt64BE(1), statusIndex: payload.readUInt8(9) };
}
