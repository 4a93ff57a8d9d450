import { describe, expect, it } from 'vitest';
import { Admission, MongoAdmissionRefused } from '../../src/adapters/mongo/admission.js';

/** Work that runs until its release() is called, recording that it started. */
function heldWork(started: string[], name: string) {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  return { work: () => (started.push(name), done), release };
}

describe('Admission of storage operations', () => {
  it('runs at most its concurrency at once, and refuses at the wait budget work that never started', async () => {
    const admission = new Admission(2, 50);
    const started: string[] = [];
    const [a, b, c] = ['a', 'b', 'c'].map((name) => heldWork(started, name));
    const running = [admission.run(a!.work), admission.run(b!.work)];
    const waitedFrom = performance.now();
    await expect(admission.run(c!.work)).rejects.toBeInstanceOf(MongoAdmissionRefused);
    expect(performance.now() - waitedFrom).toBeGreaterThanOrEqual(45);
    a!.release();
    b!.release();
    await Promise.all(running);
    // The refused work's turn came after a and b, and passed without running it.
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(started).toEqual(['a', 'b']);
  });

  it('admits waiting work in order as slots free up, within the budget', async () => {
    const admission = new Admission(1, 1000);
    const started: string[] = [];
    const [a, b] = ['a', 'b'].map((name) => heldWork(started, name));
    const first = admission.run(a!.work);
    const second = admission.run(b!.work);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(started).toEqual(['a']);
    a!.release();
    await first;
    b!.release();
    await second;
    expect(started).toEqual(['a', 'b']);
  });

  it('passes the work\'s own failure on', async () => {
    const admission = new Admission(1, 1000);
    await expect(admission.run(() => Promise.reject(new Error('driver error')))).rejects.toThrow('driver error');
  });
});
