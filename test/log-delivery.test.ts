import { describe, expect, it } from 'vitest';
import { startListening, type ListeningService } from './support/service-process.js';
import { TEST_API_KEY } from './support/test-config.js';

/*
 * Request lines are batched on their way to stdout. What a batch may cost when the process dies: nothing on
 * SIGTERM or a normal exit, and at most 100 ms of lines on SIGKILL (the destination's periodic flush).
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));


async function sendRequests(child: ListeningService, prefix: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, n) => `${prefix}-${n}`);
  for (const id of ids) {
    const response = await fetch(`http://127.0.0.1:${child.port}/v1/pets?limit=1`, {
      headers: { Authorization: `Bearer ${TEST_API_KEY}`, 'X-Request-Id': id },
    });
    expect(response.status).toBe(200);
    await response.arrayBuffer();
  }
  return ids;
}

const loggedIds = (child: ListeningService) => new Set(child.lines().filter((line) => line.msg === 'request').map((line) => line.requestId));

describe('request log delivery from the real process', () => {
  it('writes every request line before exiting on SIGTERM', async () => {
    const child = await startListening({ SHUTDOWN_GRACE_MS: '0' });
    const ids = await sendRequests(child, 'term', 40);
    child.process.kill('SIGTERM');
    expect(await child.exited).toBe(0);
    await child.closed;
    const logged = loggedIds(child);
    for (const id of ids) expect(logged.has(id), id).toBe(true);
  });

  it('has written the lines of requests answered more than 100 ms before a SIGKILL', async () => {
    const child = await startListening({});
    const ids = await sendRequests(child, 'kill', 40);
    // The flush interval, and room for the write to reach the pipe on a busy machine.
    await sleep(400);
    child.process.kill('SIGKILL');
    await child.closed;
    const logged = loggedIds(child);
    for (const id of ids) expect(logged.has(id), id).toBe(true);
  });
});
