import { OPERATIONS, type ListPetsParams, type NewPet, type Pet, type PetStatus } from './contract.js';
import { stringifyExactJson } from './exact-json.js';
import { exchange, type Answer, type FetchLike } from './exchange.js';
import { nextLinkTarget } from './next-link.js';
import { errorFrom, expectBody, toPet, type CallContext } from './read-answer.js';
import { resolveRetryPolicy, type RetryOptions, type RetryPolicy } from './retry-policy.js';

export { AnimalStoreError, type AnimalStoreErrorCode } from './animal-store-error.js';
export { DEFAULT_RETRY, type RetryOptions } from './retry-policy.js';
export type { FetchLike } from './exchange.js';
export * from './contract.js';

export interface AnimalStoreClientOptions {
  /** The API's base URL, ending in /v1: `http://localhost:3000/v1`. Absolute, also in browsers. */
  readonly baseUrl: string | URL;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  readonly apiKey?: string;
  /** Replaces the global fetch (a proxy agent, instrumentation, another runtime). */
  readonly fetch?: FetchLike;
  /** Retries of network failures and 503 (every call; createPet with the same Idempotency-Key). */
  readonly retry?: RetryOptions;
  /** Longest one attempt may take, the response body included; then it counts as a network failure. Default 10000 ms. */
  readonly timeoutMs?: number;
}

export interface CallOptions {
  /** Aborts the call, waits between retries included; the call then rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

export interface CreatePetOptions extends CallOptions {
  /** The Idempotency-Key of this creation (1 to 255 printable ASCII). Default: a fresh crypto.randomUUID(). */
  readonly idempotencyKey?: string;
}

/** One page of listPets. */
export interface PetPage {
  readonly pets: readonly Pet[];
  /** The opaque cursor of the next page (pass it with the same limit and status); undefined on the last page. */
  readonly nextCursor: string | undefined;
  /** The absolute URL of the next page from the `Link: <...>; rel="next"` header; undefined on the last page. */
  readonly nextUrl: string | undefined;
}

// A create too: each attempt carries the same Idempotency-Key, so a retry answers the pet an earlier one stored.
const isRetryable = (answer: Answer) => answer.kind === 'network' || answer.status === 503;

/** A client of the Animal Store Service v1. Exact int64 (bigint), safe create retries, pagination. */
export class AnimalStoreClient {
  readonly #base: string;
  readonly #origin: string;
  readonly #apiKey: string | undefined;
  readonly #fetch: FetchLike;
  readonly #retry: RetryPolicy;
  readonly #timeoutMs: number;

  constructor(options: AnimalStoreClientOptions) {
    const base = new URL(options.baseUrl);
    this.#base = `${base.origin}${base.pathname.replace(/\/+$/, '')}`;
    this.#origin = base.origin;
    this.#apiKey = options.apiKey;
    // Called through globalThis: browsers refuse a fetch detached from window ("Illegal invocation").
    this.#fetch = options.fetch ?? ((url, init) => globalThis.fetch(url, init));
    this.#retry = resolveRetryPolicy(options.retry);
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    if (!(this.#timeoutMs > 0)) throw new RangeError('timeoutMs must be a number above 0');
  }

  /** One page of animals in ascending id order (GET /pets); `nextCursor`/`nextUrl` lead to the next page. */
  async listPets(params: ListPetsParams & CallOptions = {}): Promise<PetPage> {
    const url = new URL(`${this.#base}${OPERATIONS.listPets.path}`);
    if (params.limit !== undefined) url.searchParams.set('limit', String(params.limit));
    if (params.status !== undefined) url.searchParams.set('status', params.status);
    if (params.cursor !== undefined) url.searchParams.set('cursor', params.cursor);
    return this.#page(url.href, params.signal);
  }

  /**
   * Every animal (with `status`, those with that status), page after page by following `rel="next"`, each
   * exactly once even while animals are added. `limit` is the page size.
   */
  async *allPets(params: { readonly status?: PetStatus; readonly limit?: number } & CallOptions = {}): AsyncGenerator<Pet, void, undefined> {
    let page = await this.listPets(params);
    yield* page.pets;
    while (page.nextUrl !== undefined) {
      page = await this.#page(page.nextUrl, params.signal);
      yield* page.pets;
    }
  }

  /**
   * Adds an animal (POST /pets) and answers it with its assigned id. Safe to retry: every attempt sends
   * the same Idempotency-Key, so a retried creation never makes a second animal.
   */
  async createPet(newPet: NewPet, options: CreatePetOptions = {}): Promise<Pet> {
    const idempotencyKey = options.idempotencyKey ?? crypto.randomUUID();
    const headers = this.#headers({ 'Content-Type': 'application/json', 'Idempotency-Key': idempotencyKey });
    const body = stringifyExactJson({ name: newPet.name, categoryId: newPet.categoryId, status: newPet.status });
    const url = `${this.#base}${OPERATIONS.createPet.path}`;
    const { answer, attempts } = await this.#send({ url, method: 'POST', headers, body, retryable: isRetryable, signal: options.signal });
    const context = { call: `POST ${new URL(url).pathname}`, attempts, idempotencyKey };
    return this.#pet(answer, expectBody(answer, 201, context), context);
  }

  /**
   * One animal by id (GET /pets/{petId}).
   * @deprecated The service removes this operation on 5 December 2030 (Sunset: Thu, 05 Dec 2030 00:00:00 GMT);
   * after that it answers 410 `operation_removed`. Use {@link AnimalStoreClient.listPets} or
   * {@link AnimalStoreClient.allPets} (GET /pets, with the `status` filter) instead.
   */
  async getPet(id: bigint, options: CallOptions = {}): Promise<Pet> {
    const url = `${this.#base}${OPERATIONS.getPet.path.replace('{petId}', BigInt(id).toString())}`;
    const { answer, attempts } = await this.#send({ url, method: 'GET', headers: this.#headers(), retryable: isRetryable, signal: options.signal });
    const context = { call: `GET ${new URL(url).pathname}`, attempts };
    return this.#pet(answer, expectBody(answer, 200, context), context);
  }

  async #page(url: string, signal: AbortSignal | undefined): Promise<PetPage> {
    const { answer, attempts } = await this.#send({ url, method: 'GET', headers: this.#headers(), retryable: isRetryable, signal });
    const context = { call: `GET ${new URL(url).pathname}`, attempts };
    const body = expectBody(answer, 200, context);
    const pets = Array.isArray(body) ? body.map(toPet) : [undefined];
    if (pets.includes(undefined) || answer.kind !== 'response') throw errorFrom(answer, context, 'the body is not a list of Pets');
    const target = nextLinkTarget(answer.headers.get('link'));
    const nextUrl = target === undefined ? undefined : new URL(target, url);
    // The next request carries the API key: never follow a link off the API's origin.
    if (nextUrl !== undefined && nextUrl.origin !== this.#origin) throw errorFrom(answer, context, 'its next link leaves the API origin');
    return { pets: pets as Pet[], nextCursor: nextUrl?.searchParams.get('cursor') ?? undefined, nextUrl: nextUrl?.href };
  }

  #pet(answer: Answer, body: unknown, context: CallContext): Pet {
    const pet = toPet(body);
    if (pet === undefined) throw errorFrom(answer, context, 'the body is not a Pet');
    return pet;
  }

  #headers(extra: Record<string, string> = {}): Headers {
    // Built before the first attempt, so an invalid header value throws at once instead of being retried.
    const headers = new Headers({ Accept: 'application/json', ...extra });
    if (this.#apiKey !== undefined) headers.set('Authorization', `Bearer ${this.#apiKey}`);
    return headers;
  }

  #send(request: { url: string; method: 'GET' | 'POST'; headers: Headers; body?: string; retryable: (answer: Answer) => boolean; signal: AbortSignal | undefined }) {
    return exchange({ ...request, fetch: this.#fetch, timeoutMs: this.#timeoutMs, retry: this.#retry });
  }
}
