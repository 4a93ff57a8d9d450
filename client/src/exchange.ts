import { backoffDelayMs, retryAfterMs, type RetryPolicy } from './retry-policy.js';

/** The fetch the client calls: the standard one, or any function of the same shape. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** What one attempt produced: a complete response (body read), or no response at all. */
export type Answer =
  | { readonly kind: 'response'; readonly status: number; readonly headers: Headers; readonly text: string; readonly requestId: string | undefined }
  | { readonly kind: 'network'; readonly cause: unknown; readonly requestId: string };

export interface ExchangeRequest {
  readonly fetch: FetchLike;
  readonly url: string;
  readonly method: 'GET' | 'POST';
  /** Sent unchanged on every attempt (the Idempotency-Key among them); X-Request-Id is added per attempt. */
  readonly headers: Headers;
  readonly body?: string;
  readonly timeoutMs: number;
  readonly retry: RetryPolicy;
  /** Whether an answer may be retried: network failures and 503. */
  readonly retryable: (answer: Answer) => boolean;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Sends the request until an answer is not retryable, the attempts are spent or the next wait would pass
 * the total budget. A wait honours Retry-After when the answer has one, else backs off exponentially.
 */
export async function exchange(request: ExchangeRequest): Promise<{ readonly answer: Answer; readonly attempts: number }> {
  const { retry } = request;
  let waited = 0;
  for (let attempt = 1; ; attempt++) {
    const answer = await attemptOnce(request);
    if (attempt >= retry.maxAttempts || !request.retryable(answer)) return { answer, attempts: attempt };
    const hinted = answer.kind === 'response' ? retryAfterMs(answer.headers.get('retry-after')) : undefined;
    const delay = hinted ?? backoffDelayMs(retry, attempt);
    if (waited + delay > retry.maxTotalDelayMs) return { answer, attempts: attempt };
    await retry.sleep(delay, request.signal);
    waited += delay;
  }
}

async function attemptOnce(request: ExchangeRequest): Promise<Answer> {
  const { signal } = request;
  if (signal?.aborted) throw signal.reason;
  const requestId = crypto.randomUUID();
  const headers = new Headers(request.headers);
  headers.set('X-Request-Id', requestId);
  const controller = new AbortController();
  const timeout = new Error(`No complete response within ${request.timeoutMs} ms`);
  const timer = setTimeout(() => controller.abort(timeout), request.timeoutMs);
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const response = await request.fetch(request.url, { method: request.method, headers, body: request.body, signal: controller.signal });
    const text = await response.text();
    return { kind: 'response', status: response.status, headers: response.headers, text, requestId: response.headers.get('x-request-id') ?? undefined };
  } catch (error) {
    // The caller's abort ends the call; anything else means no response arrived, which a retry may fix.
    if (signal?.aborted) throw signal.reason;
    return { kind: 'network', cause: controller.signal.aborted ? timeout : error, requestId };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}
