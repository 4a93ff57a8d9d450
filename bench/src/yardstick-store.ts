/*
 * What the three yardsticks (node:http, plain Koa, Fastify) share: pets in memory arrays, the opaque cursor,
 * the rel="next" link, and the service's 400 rules written out by hand. Ids are 1, 2, 3..., so pets[id - 1]
 * finds a pet and a per-status array sorted by id serves the status filter. Not int64-exact: ids are
 * numbers. The cursor carries the same payload as the service's (version, last id, status filter) but is
 * not sealed with a MAC: sealing is one of the service's features, not part of a plain app.
 */
export const STATUSES = ['available', 'pending', 'sold'] as const;
export type Status = (typeof STATUSES)[number];
export interface Pet { id: number; name: string; categoryId: number; status?: Status }
export interface NewPet { name: string; categoryId: number; status?: Status }
export interface ListQuery { limit: number; status: Status | undefined; afterId: number }
export interface Page { pets: Pet[]; link: string | undefined }

/** The service's error body, `{code, message, status}`. */
export const errorBody = (status: number, code: string, message = code) => ({ code, message, status });
export const JSON_TYPE = 'application/json; charset=utf-8';

const isStatus = (value: unknown): value is Status => (STATUSES as readonly unknown[]).includes(value);
const QUERY_KEYS = new Set(['limit', 'status', 'cursor']);
const LIMIT = /^\d{1,3}$/;
const CURSOR = /^[A-Za-z0-9_-]{1,64}$/;

export class PetStore {
  private readonly pets: Pet[] = [];
  private readonly byStatus = new Map<Status, Pet[]>(STATUSES.map((s) => [s, []]));

  add({ name, categoryId, status }: NewPet): Pet {
    const id = this.pets.length + 1;
    const pet: Pet = status === undefined ? { id, name, categoryId } : { id, name, categoryId, status };
    this.pets.push(pet);
    if (status !== undefined) this.byStatus.get(status)!.push(pet);
    return pet;
  }

  get(id: number): Pet | undefined {
    return this.pets[id - 1];
  }

  /** A page after `afterId`, and the rel="next" link when more pets follow. */
  list({ limit, status, afterId }: ListQuery): Page {
    const source = status === undefined ? this.pets : this.byStatus.get(status)!;
    const start = firstAfter(source, afterId);
    const pets = source.slice(start, start + limit);
    if (start + limit >= source.length) return { pets, link: undefined };
    return { pets, link: nextLink(limit, status, pets.at(-1)!.id) };
  }
}

/** The Link header value of the page after `lastId`. */
export function nextLink(limit: number, status: Status | undefined, lastId: number): string {
  const statusParam = status === undefined ? '' : `&status=${status}`;
  return `</v1/pets?limit=${limit}${statusParam}&cursor=${encodeCursor(lastId, status)}>; rel="next"`;
}

function firstAfter(list: readonly Pet[], id: number): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (list[mid]!.id <= id) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** The opaque cursor after `afterId` for this status filter (version, last id, filter; unsealed). */
export function encodeCursor(afterId: number, status: Status | undefined): string {
  const payload = Buffer.alloc(10);
  payload.writeUInt8(1, 0);
  payload.writeBigInt64BE(BigInt(afterId), 1);
  payload.writeUInt8(status === undefined ? 0 : STATUSES.indexOf(status) + 1, 9);
  return payload.toString('base64url');
}

/** The id a cursor continues after, or undefined when it is malformed or belongs to another status filter. */
export function decodeCursor(cursor: string, status: Status | undefined): number | undefined {
  const payload = Buffer.from(cursor, 'base64url');
  if (payload.length !== 10 || payload.readUInt8(0) !== 1) return undefined;
  if (payload.readUInt8(9) !== (status === undefined ? 0 : STATUSES.indexOf(status) + 1)) return undefined;
  return Number(payload.readBigInt64BE(1));
}

/** The list query as the service checks it (limit 1..100, status enum, a cursor of this filter, nothing else), or a 400 message. */
export function checkListQuery(query: Readonly<Record<string, unknown>>): ListQuery | string {
  for (const key of Object.keys(query)) if (!QUERY_KEYS.has(key)) return `unknown query parameter: ${key}`;
  const { limit = '20', status, cursor } = query;
  if (typeof limit !== 'string' || !LIMIT.test(limit) || Number(limit) < 1 || Number(limit) > 100) return 'limit must be an integer from 1 to 100.';
  if (status !== undefined && !isStatus(status)) return `status must be one of ${STATUSES.join(', ')}.`;
  if (cursor === undefined) return { limit: Number(limit), status, afterId: 0 };
  const afterId = typeof cursor === 'string' && CURSOR.test(cursor) ? decodeCursor(cursor, status) : undefined;
  return afterId === undefined ? 'cursor is not one this service issued.' : { limit: Number(limit), status, afterId };
}

/** A NewPet as the service checks it (name 1..255 characters not blank, categoryId an integer, status enum), or a 400 message. */
export function checkNewPet(body: unknown): NewPet | string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'The request body must be a JSON object (a NewPet).';
  const { name, categoryId, status } = body as Record<string, unknown>;
  if (typeof name !== 'string' || name.length > 255 || name.trim() === '') return 'name must be a string of 1 to 255 characters, not blank.';
  if (typeof categoryId !== 'number' || !Number.isInteger(categoryId)) return 'categoryId must be an integer.';
  if (status !== undefined && !isStatus(status)) return `status must be one of ${STATUSES.join(', ')}.`;
  return status === undefined ? { name, categoryId } : { name, categoryId, status };
}

/** A path id as the service checks it, or undefined (the service answers 400 for a malformed id, 404 for an unknown one). */
export function checkPetId(text: string): number | undefined {
  return /^-?\d{1,19}$/.test(text) ? Number(text) : undefined;
}
