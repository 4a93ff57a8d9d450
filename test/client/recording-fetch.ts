import type { FetchLike } from '../../client/src/animal-store-client.js';

export interface RecordedExchange {
  readonly url: string;
  readonly method: string;
  readonly requestHeaders: Headers;
  /** The response status, or undefined when fetch rejected. */
  readonly status: number | undefined;
  readonly responseHeaders: Headers | undefined;
  readonly error: unknown;
}

/** The real global fetch, recording every exchange the client makes (what it sent, what came back). */
export function recordingFetch(): { readonly fetch: FetchLike; readonly exchanges: RecordedExchange[] } {
  const exchanges: RecordedExchange[] = [];
  const record: FetchLike = async (url, init) => {
    const sent = { url, method: init.method ?? 'GET', requestHeaders: new Headers(init.headers) };
    try {
      const response = await fetch(url, init);
      exchanges.push({ ...sent, status: response.status, responseHeaders: response.headers, error: undefined });
      return response;
    } catch (error) {
      exchanges.push({ ...sent, status: undefined, responseHeaders: undefined, error });
      throw error;
    }
  };
  return { fetch: record, exchanges };
}

/** A sleep for the retry policy that records each requested delay and waits only `realMs`. */
export function recordingSleep(realMs = 0, onSleep?: (ms: number) => Promise<void> | void) {
  const delays: number[] = [];
  const sleep = async (ms: number) => {
    delays.push(ms);
    await onSleep?.(ms);
    if (realMs > 0) await new Promise((resolve) => setTimeout(resolve, realMs));
  };
  return { sleep, delays };
}
