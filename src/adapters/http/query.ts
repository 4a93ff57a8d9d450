import { unescape } from 'node:querystring';
import { ValidationFailed } from '../../core/errors.js';

/*
 * The request target is read once, here, in linear time. Koa's ctx.query is never touched: it is
 * quadratic in the number of parameters, so one 16 KB `?a&a&a...` would cost about a second of CPU.
 */

/** Longest query string read; the longest real one, a filtered list with a cursor, is about 80 characters. */
export const MAX_QUERY_CHARS = 1024;
/** Most query parameters read; listPets takes three, so anything past this is refused before parsing. */
export const MAX_QUERY_PARAMS = 16;

export type QueryParams = Record<string, string | string[]>;

/**
 * A query string (what follows `?`) as `querystring.parse` would give it (a repeated name becomes an array,
 * `+` is a space, bad escapes stay as sent), on a null-prototype object. A query longer than
 * MAX_QUERY_CHARS, or of more than MAX_QUERY_PARAMS parameters, is 400 validation_failed before any of
 * it is decoded. Only operations that take a query read it: elsewhere it costs nothing.
 */
export function queryOf(query: string): QueryParams {
  const params: QueryParams = Object.create(null) as QueryParams;
  if (query.length > MAX_QUERY_CHARS) {
    throw new ValidationFailed('query', `query: at most ${MAX_QUERY_CHARS} characters are accepted.`);
  }
  let count = 0;
  let from = 0;
  while (from <= query.length) {
    let to = query.indexOf('&', from);
    if (to === -1) to = query.length;
    if (to > from) {
      if (++count > MAX_QUERY_PARAMS) {
        throw new ValidationFailed('query', `query: at most ${MAX_QUERY_PARAMS} parameters are accepted.`);
      }
      addParam(params, query.slice(from, to));
    }
    from = to + 1;
  }
  return params;
}

function addParam(params: QueryParams, pair: string): void {
  const eq = pair.indexOf('=');
  const name = decode(eq === -1 ? pair : pair.slice(0, eq));
  const value = eq === -1 ? '' : decode(pair.slice(eq + 1));
  const existing = params[name];
  if (existing === undefined) params[name] = value;
  else if (typeof existing === 'string') params[name] = [existing, value];
  else existing.push(value);
}

const decode = (text: string): string => {
  const spaced = text.includes('+') ? text.replaceAll('+', ' ') : text;
  return spaced.includes('%') ? unescape(spaced) : spaced;
};
