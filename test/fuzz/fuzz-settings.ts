import type { Parameters } from 'fast-check';

/**
 * One seed for every fuzz property, so a failure replays exactly: FUZZ_SEED=<seed> npm test.
 * FUZZ_RUNS scales the number of cases (the default keeps npm test within ~30 s on 2 cores).
 */
const DEFAULT_SEED = 20251121;
const DEFAULT_RUNS = 750;

function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value)) throw new Error(`${name} must be an integer, got ${raw}`);
  return value;
}

export const FUZZ_SEED = intFromEnv('FUZZ_SEED', DEFAULT_SEED);
export const FUZZ_RUNS = intFromEnv('FUZZ_RUNS', DEFAULT_RUNS);

/** fast-check parameters for one property, running `share` of FUZZ_RUNS cases; the seed and count are printed. */
export function fuzzParameters<T>(property: string, share = 1): Parameters<T> {
  const numRuns = Math.max(1, Math.round(FUZZ_RUNS * share));
  console.log(`fuzz ${property}: seed=${FUZZ_SEED} runs=${numRuns} (FUZZ_SEED / FUZZ_RUNS to change)`);
  return { seed: FUZZ_SEED, numRuns, endOnFailure: false };
}
