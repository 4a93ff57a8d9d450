import { describe, expect, it } from 'vitest';
import { Admission, MongoAdmissionRefused } from '../../src/adapters/mongo/admission.js';

/** Work that runs until its release() is called, recording that it started. */
function heldWork(started: string[], name: string) {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  return { work: () => (started.push(name), done), release };
}

describe('Admission of storage operations', () => {
  it('runs at most its concurrency at once, and refuses at its deadline work that never started', async () => {
    const admission = new Admission(2);
    const started: string[] = [];
    const [a, b, c] = ['a', 'b', 'c'].map((name) => heldWork(started, name));
    const running = [admission.run(a!.work, performance.now() + 50), admission.run(b!.work, performance.now() + 50)];
    const waitedFrom = performance.now();
    await expect(admission.run(c!.work, waitedFrom + 50)).rejects.toBeInstanceOf(MongoAdmissionRefused);
    expect(performance.now() - waitedFrom).toBeGreaterThanOrEqual(45);
    a!.release();
    b!.release();
    await Promise.all(running);
    // The refused work's turn came after a and b, and passed without running it.
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(started).toEqual(['a', 'b']);
  });

  it('admits waiting work in order as slots free up, before their deadlines', async () => {
    const admission = new Admission(1);
    const started: string[] = [];
    const [a, b] = ['a', 'b'].map((name) => heldWork(started, name));
    const first = admission.run(a!.work, performance.now() + 1000);
    const second = admission.run(b!.work, performance.now() + 1000);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(started).toEqual(['a']);
    a!.release();
    await first;
    b!.release();
    await second;
    expect(started).toEqual(['a', 'b']);
  });

  it('passes the work\'s own failure on', async () => {
    const admission = new Admission(1);
    await expect(admission.run(() => Promise.reject(new Error('driver error')), performance.now() + 1000)).rejects.toThrow('driver error');
  });
});
