import { describe, expect, it } from 'vitest';

// The build (test/support/build-global-setup.ts), as the bench runs: the receiver forks its process from bench/dist.
const BUILT: string = '../../bench/dist/otlp-receiver.js';
const { startOtlpReceiver } = (await import(BUILT)) as typeof import('../../bench/src/otlp-receiver.js');

describe("the bench's OTLP receiver, in a process of its own", () => {
  it('answers every export and counts its requests and bytes, then stops', async () => {
    const receiver = await startOtlpReceiver();
    try {
      for (const size of [1000, 234]) {
        const response = await fetch(`${receiver.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf' }, body: new Uint8Array(size) });
        expect(response.status).toBe(200);
        expect((await response.arrayBuffer()).byteLength).toBe(0);
      }
      expect(await receiver.received()).toEqual({ requests: 2, bytes: 1234 });
    } finally {
      await receiver.stop();
    }
    await expect(fetch(`${receiver.url}/v1/traces`, { method: 'POST', body: 'x' })).rejects.toThrow();
  });
});
