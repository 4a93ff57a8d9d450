import type {
  IdempotencyClaim,
  IdempotencyRecord,
  IdempotencyStore,
  StoredResponse,
} from '../../ports/idempotency-store.js';

interface Entry {
  record: IdempotencyRecord;
  expiresAt: number;
  leaseEndsAt: number;
}

const SWEEP_EVERY_MS = 60_000;

/** Idempotency records in process memory, for STORAGE=memory (one instance). */
export class InMemoryIdempotencyStore implements IdempotencyStore {
  private readonly entries = new Map<string, Entry>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly now: () => number) {
    // Expired records are also ignored on read; the sweep only bounds memory.
    this.sweeper = setInterval(() => this.sweep(), SWEEP_EVERY_MS).unref();
  }

  async claim(claim: IdempotencyClaim): Promise<IdempotencyRecord | undefined> {
    const existing = this.entries.get(claim.key);
    if (existing !== undefined && isLive(existing, claim.now)) return existing.record;
    this.entries.set(claim.key, {
      record: { state: 'in_progress', fingerprint: claim.fingerprint },
      expiresAt: claim.now + claim.ttlMs,
      leaseEndsAt: claim.now + claim.leaseMs,
    });
    return undefined;
  }

  async complete(key: string, response: StoredResponse): Promise<void> {
    const entry = this.entries.get(key);
    if (entry !== undefined) entry.record = { state: 'done', fingerprint: entry.record.fingerprint, response };
  }

  async release(key: string): Promise<void> {
    this.entries.delete(key);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) if (!isLive(entry, now)) this.entries.delete(key);
  }
}

function isLive(entry: Entry, now: number): boolean {
  return entry.record.state === 'done' ? now < entry.expiresAt : now < entry.leaseEndsAt;
}
