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
 * The query of a request target as `querystring.parse` would give it (a repeated name becomes an array,
 * `+` is a space, bad escapes stay as sent), on a null-prototype object. A query longer than
 * MAX_QUERY_CHARS, or of more than MAX_QUERY_PARAMS parameters, is 400 validation_failed before any of
 * it is decoded. Only operations that take a query read it: elsewhere it costs nothing.
 */
export function queryOf(target: string): QueryParams {
  const params: QueryParams = Object.create(null) as QueryParams;
  const start = target.indexOf('?');
  if (start === -1) return params;
  if (target.length - start - 1 > MAX_QUERY_CHARS) {
    throw new ValidationFailed('query', `query: at most ${MAX_QUERY_CHARS} characters are accepted.`);
  }
  let count = 0;
  let from = start + 1;
  while (from <= target.length) {
    let to = target.indexOf('&', from);
    if (to === -1) to = target.length;
    if (to > from) {
      if (++count > MAX_QUERY_PARAMS) {
        throw new ValidationFailed('query', `query: at most ${MAX_QUERY_PARAMS} parameters are accepted.`);
      }
      addParam(params, target.slice(from, to));
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
