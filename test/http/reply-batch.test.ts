import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Context } from 'koa';
import { afterEach, describe, expect, it } from 'vitest';
import { ReplyBatch } from '../../src/adapters/http/reply-batch.js';

// ReplyBatch on real responses of a listening node:http server, each request over its own connection.
describe('ReplyBatch', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  /** Serves `count` requests, then hands their responses (headers written) to `answer` in one turn. */
  async function collect(count: number, answer: (responses: ServerResponse[]) => void): Promise<string[]> {
    const waiting: ServerResponse[] = [];
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      waiting.push(res);
      if (waiting.length === count) answer(waiting.splice(0));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    return Promise.all(Array.from({ length: count }, () => fetch(url, { keepalive: false }).then((r) => r.text())));
  }

  const ctxOf = (res: ServerResponse) => ({ res }) as unknown as Context;

  it('holds every reply of the turn and ends them together once the turn is over, each then handed on in order', async () => {
    const handed: string[] = [];
    const endedWhenHanded: boolean[] = [];
    let endedInTurn = -1;
    const batch = new ReplyBatch((ctx, status) => {
      handed.push(`${status}`);
      endedWhenHanded.push(ctx.res.writableEnded);
    }, () => expect.unreachable());
    const bodies = await collect(3, (responses) => {
      responses.forEach((res, i) => batch.send(ctxOf(res), 200 + i, `body ${i}`));
      endedInTurn = responses.filter((res) => res.writableEnded).length;
    });
    expect(endedInTurn).toBe(0);
    expect(bodies.sort()).toEqual(['body 0', 'body 1', 'body 2']);
    expect(handed).toEqual(['200', '201', '202']);
    expect(endedWhenHanded).toEqual([true, true, true]);
  });

  it("sends the other replies when one's follow-up fails, and reports that failure with its request", async () => {
    const failures: unknown[] = [];
    const batch = new ReplyBatch(
      (_ctx, status) => {
        if (status === 500) throw new Error('the log is gone');
      },
      (error, ctx) => failures.push([(error as Error).message, ctx.res.writableEnded]),
    );
    const bodies = await collect(3, (responses) => responses.forEach((res, i) => batch.send(ctxOf(res), i === 0 ? 500 : 200, `body ${i}`)));
    expect(bodies.sort()).toEqual(['body 0', 'body 1', 'body 2']);
    expect(failures).toEqual([['the log is gone', true]]);
  });
});
