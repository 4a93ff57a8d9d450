import { listenKoa, plainKoaRouter } from './koa-yardstick-app.js';

/*
 * The plain Koa yardstick: Koa 3 + @koa/router + @koa/bodyparser, the service's three routes under /v1,
 * Koa's own JSON.stringify of the body, the 400 rules checked by hand. No auth (the Authorization header
 * is ignored), no logs, metrics or limits: what a hand-written Koa app costs before any feature.
 */
listenKoa(plainKoaRouter(), 'Koa yardstick');
