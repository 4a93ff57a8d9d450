import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { isValidSpanId, isValidTraceId } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { PooledIdGenerator } from '../../src/telemetry/pooled-id-generator.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapMiB = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

describe('PooledIdGenerator', () => {
  it('makes valid ids of 32 and 16 lower-case hex digits, none repeated, across many refills of its pool', () => {
    const ids = new PooledIdGenerator();
    const traceIds = Array.from({ length: 1000 }, () => ids.generateTraceId());
    const spanIds = Array.from({ length: 1000 }, () => ids.generateSpanId());
    for (const id of traceIds) expect(isValidTraceId(id) && /^[0-9a-f]{32}$/.test(id), id).toBe(true);
    for (const id of spanIds) expect(isValidSpanId(id) && /^[0-9a-f]{16}$/.test(id), id).toBe(true);
    expect(new Set([...traceIds, ...spanIds]).size).toBe(2000);
  });

  it('spreads its digits evenly, as random bytes do', () => {
    const ids = new PooledIdGenerator();
    const digits = Array.from({ length: 2000 }, () => ids.generateTraceId()).join('');
    const counts = [...'0123456789abcdef'].map((digit) => digits.split(digit).length - 1);
    // 64,000 digits, 4,000 of each expected; a generator stuck on part of the pool would be far off.
    for (const count of counts) expect(Math.abs(count - 4000)).toBeLessThan(400);
  });

  it('makes valid request trace ids and span ids, cut from the same pool', () => {
    const ids = new PooledIdGenerator();
    const traceIds = Array.from({ length: 500 }, () => ids.requestTraceId());
    const spanIds = Array.from({ length: 500 }, () => ids.generateSpanId());
    for (const id of traceIds) expect(/^[0-9a-f]{32}$/.test(id) && isValidTraceId(id), id).toBe(true);
    for (const id of spanIds) expect(/^[0-9a-f]{16}$/.test(id) && isValidSpanId(id), id).toBe(true);
    expect(new Set([...traceIds, ...spanIds]).size).toBe(1000);
  });

  it('keeps none of its pools alive through the ids it gives the SDK, which spans hold until they are exported', () => {
    const ids = new PooledIdGenerator();
    const held: string[] = [];
    const before = heapMiB();
    // 2,000 recorded spans' ids, each from a pool of its own (the requests between them draw the rest): 16 MiB of
    // pools, were the ids slices of them.
    for (let n = 0; n < 2000; n++) {
      ids.handOver(ids.requestTraceId());
      held.push(ids.generateTraceId(), ids.generateSpanId());
      for (let k = 0; k < 200; k++) ids.requestTraceId();
    }
    const grown = heapMiB() - before;
    expect(held.every((id) => /^[0-9a-f]+$/.test(id))).toBe(true);
    expect(grown).toBeLessThan(4);
  });

  it('answers a handed-over trace id once, then draws again', () => {
    const ids = new PooledIdGenerator();
    const decided = ids.requestTraceId();
    ids.handOver(decided);
    // The SDK draws the span's id first.
    expect(ids.generateSpanId()).toMatch(/^[0-9a-f]{16}$/);
    expect(ids.generateTraceId()).toBe(decided);
    expect(ids.generateTraceId()).not.toBe(decided);
  });
});
