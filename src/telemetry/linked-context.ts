import { ROOT_CONTEXT, type Context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';

/**
 * An OpenTelemetry context as one link: a key, its value, and the context it was made from; its methods are the
 * class's. The API's own contexts (ROOT_CONTEXT's class) each make three closures over themselves, and V8 kept
 * what such a context holds, a recorded request's span, through two scavenges: every recorded request's spans were
 * promoted and left for a major GC, one every few seconds at 1% sampling (BENCHMARKS.md, issue 42).
 */
class LinkedContext implements Context {
  constructor(
    private readonly parent: LinkedContext | undefined,
    private readonly key: symbol | undefined,
    private readonly value: unknown,
  ) {}

  getValue(key: symbol): unknown {
    // A request's context is a handful of links deep: its propagated parent, its spans, a suppression flag.
    for (let link: LinkedContext | undefined = this; link !== undefined; link = link.parent) {
      if (link.key === key) return link.value;
    }
    return undefined;
  }

  setValue(key: symbol, value: unknown): Context {
    return new LinkedContext(this, key, value);
  }

  deleteValue(key: symbol): Context {
    // The nearest link answers first, so an undefined value hides every older one.
    return new LinkedContext(this, key, undefined);
  }
}

const LINKED_ROOT: Context = new LinkedContext(undefined, undefined, undefined);

/**
 * The SDK's context manager (AsyncLocalStorage), whose empty context is a LinkedContext: every context the service,
 * the SDK and the instrumentations derive from the active one is then linked too.
 */
export class LinkedContextManager extends AsyncLocalStorageContextManager {
  override active(): Context {
    const active = super.active();
    return active === ROOT_CONTEXT ? LINKED_ROOT : active;
  }
}
