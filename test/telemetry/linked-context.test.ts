import { createContextKey, ROOT_CONTEXT, trace, type Context } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { LinkedContextManager } from '../../src/telemetry/linked-context.js';

const A = createContextKey('linked-context test A');
const B = createContextKey('linked-context test B');

let manager: LinkedContextManager | undefined;
afterEach(() => {
  manager?.disable();
  manager = undefined;
});

function enabled(): LinkedContextManager {
  manager = new LinkedContextManager();
  manager.enable();
  return manager;
}

describe('LinkedContextManager', () => {
  it('answers an empty context of its own when none is active, and for the API root', () => {
    const contexts = enabled();
    const empty = contexts.active();
    expect(empty).not.toBe(ROOT_CONTEXT);
    expect(empty.getValue(A)).toBeUndefined();
    expect(contexts.with(ROOT_CONTEXT, () => contexts.active())).toBe(empty);
  });

  it('makes contexts that carry their methods on the class, not as closures of their own', () => {
    const derived = trace.setSpan(enabled().active(), trace.wrapSpanContext({ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: 1 }));
    // The API's own contexts hold three closures each, which kept a recorded request's spans past two scavenges.
    expect(Object.getOwnPropertyNames(ROOT_CONTEXT.setValue(A, 1))).toContain('getValue');
    expect(Object.getOwnPropertyNames(derived)).not.toContain('getValue');
    expect(trace.getSpanContext(derived)?.spanId).toBe('b'.repeat(16));
  });

  it('keeps each context as made: a value set or deleted below is not seen above', () => {
    const root = enabled().active();
    const one = root.setValue(A, 1);
    const two = one.setValue(B, 2).setValue(A, 3);
    const gone = two.deleteValue(A);
    expect([root.getValue(A), one.getValue(A), two.getValue(A), gone.getValue(A)]).toEqual([undefined, 1, 3, undefined]);
    expect([one.getValue(B), two.getValue(B), gone.getValue(B)]).toEqual([undefined, 2, 2]);
  });

  it('makes a context active for the function it runs, and after its awaits', async () => {
    const contexts = enabled();
    const outer = contexts.active().setValue(A, 'outer');
    const seen = await contexts.with(outer, async () => {
      const inner: Context = contexts.active().setValue(B, 'inner');
      const afterAwait = await contexts.with(inner, async () => {
        await new Promise((resolve) => setImmediate(resolve));
        return [contexts.active().getValue(A), contexts.active().getValue(B)];
      });
      return [...afterAwait, contexts.active().getValue(B)];
    });
    expect(seen).toEqual(['outer', 'inner', undefined]);
    expect(contexts.active().getValue(A)).toBeUndefined();
  });
});
