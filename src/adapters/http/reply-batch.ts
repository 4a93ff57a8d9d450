import type { Context } from 'koa';
import type { Reply } from './send-json.js';

interface HeldReply {
  readonly ctx: Context;
  readonly status: number;
  readonly body: Reply['json'];
}

/**
 * Replies whose head is written (writeHead) and whose body goes out with the others answered in the same turn
 * of the event loop: `send` holds a reply, and once Node has run every I/O callback of the turn (setImmediate)
 * the held replies are ended back to back, each then handed to `afterSend` (the log line and the counts, so
 * that a logged duration runs to the moment the bytes went to the kernel).
 *
 * Why: a socket write that wakes an idle reader is the dearest part of a response on this machine (an
 * inter-processor wake-up, which a VM pays for in an exit): in a create profile, writev took 10.7 µs a reply
 * with an idle client against 6.3 with a busy one. Written one after another, the replies of a turn wake
 * their readers about once. Measured side by side with the reply-per-request frame (BENCHMARKS.md, tenth
 * session), µs per request at peak: list 22.2 against 24.1, filter 21.9 against 25.6, get 20.0 against
 * 22.4, create 28.3 against 37.1; at half peak list 24.4 against 27.4, create 32.6 against 39.8. The price:
 * a reply waits for the rest of its turn (with one request a turn, not at all), so half peak's p50 rose
 * from 0.51 to 0.58 ms on list. Capping a batch at 8 replies kept less of the gain (filter 23.9 µs).
 */
export class ReplyBatch {
  private held: HeldReply[] = [];

  constructor(
    private readonly afterSend: (ctx: Context, status: number) => void,
    private readonly onError: (error: unknown, ctx: Context) => void,
  ) {}

  send(ctx: Context, status: number, body: Reply['json']): void {
    if (this.held.length === 0) setImmediate(this.flush);
    this.held.push({ ctx, status, body });
  }

  private readonly flush = (): void => {
    const replies = this.held;
    this.held = [];
    for (const { ctx, status, body } of replies) {
      // One reply's failure must not keep the others from being sent, nor reach the event loop.
      try {
        ctx.res.end(body);
        this.afterSend(ctx, status);
      } catch (error) {
        this.onError(error, ctx);
      }
    }
  };
}
