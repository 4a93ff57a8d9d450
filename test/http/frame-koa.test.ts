import Koa, { type Context, type Next } from 'koa';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FrameKoa } from '../../src/adapters/http/frame-koa.js';
import { listenKoa, type ListeningKoa } from '../support/listen-koa.js';

/** What a middleware sees of on-finished's listeners, then a reply written as the request frame writes it. */
async function frameReply(ctx: Context, next: Next): Promise<void> {
  if (ctx.path !== '/frame') return next();
  const listeners = { finish: ctx.res.listenerCount('finish'), socketClose: ctx.req.socket.listenerCount('close') };
  ctx.respond = false;
  const json = JSON.stringify(listeners);
  ctx.res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(json) });
  ctx.res.end(json);
}

/** Responses left to Koa, one per path. */
async function leftToKoa(ctx: Context): Promise<void> {
  if (ctx.path === '/created') {
    ctx.status = 201;
    ctx.set('Location', '/created/1');
    ctx.body = { made: true };
  } else if (ctx.path === '/text') ctx.body = 'plain text';
  else if (ctx.path === '/stream') ctx.body = Readable.from(['one ', 'two']);
  else if (ctx.path === '/empty') ctx.status = 204;
  else if (ctx.path === '/fails') throw new Error('boom');
  else if (ctx.path === '/teapot') ctx.throw(418, 'short and stout');
  // Anything else: nothing set, Koa's 404.
}

function appOf(app: Koa): Koa {
  app.silent = true;
  app.use(frameReply).use(leftToKoa);
  return app;
}

let plain: ListeningKoa;
let frame: ListeningKoa;

beforeAll(async () => {
  plain = await listenKoa(appOf(new Koa()));
  frame = await listenKoa(appOf(new FrameKoa()));
});

afterAll(() => {
  plain?.server.close();
  frame?.server.close();
});

async function answer(base: string, path: string, method = 'GET') {
  const response = await fetch(base + path, { method });
  const headers = Object.fromEntries([...response.headers].filter(([name]) => name !== 'date'));
  return { status: response.status, headers, body: await response.text() };
}

describe('FrameKoa', () => {
  it("spares the frame's own replies on-finished's listeners, which plain Koa attaches to every response", async () => {
    // Node's HTTP server has listeners of its own on both; on-finished adds one to each.
    const underFrameKoa = JSON.parse((await answer(frame.url, '/frame')).body) as { finish: number; socketClose: number };
    const underKoa = JSON.parse((await answer(plain.url, '/frame')).body) as { finish: number; socketClose: number };
    expect(underKoa).toEqual({ finish: underFrameKoa.finish + 1, socketClose: underFrameKoa.socketClose + 1 });
  });

  it.each(['/created', '/text', '/stream', '/empty', '/fails', '/teapot', '/nowhere'])(
    'answers %s, which it leaves to Koa, exactly as plain Koa does (status, headers, body)',
    async (path) => {
      for (const method of ['GET', 'HEAD']) {
        expect(await answer(frame.url, path, method)).toEqual(await answer(plain.url, path, method));
      }
    },
  );

  it('keeps the status the middleware set, and the 404 when it set none', async () => {
    expect((await answer(frame.url, '/created')).status).toBe(201);
    expect(await answer(frame.url, '/nowhere')).toMatchObject({ status: 404, body: 'Not Found' });
    expect(await answer(frame.url, '/fails')).toMatchObject({ status: 500, body: 'Internal Server Error' });
  });
});
