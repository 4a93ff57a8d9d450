import Router from '@koa/router';

/** A router of exact paths only, as documented: `/V1/pets` would bypass the key check, `/v1/pets/` is no route. */
export function exactRouter(): Router {
  return new Router({ sensitive: true, strict: true });
}
