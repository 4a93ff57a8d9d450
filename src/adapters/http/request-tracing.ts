import type { RequestListener } from 'node:http';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { DomainError } from '../../core/errors.js';
import { PetCatalog } from '../../core/pet-catalog.js';

/*
 * What the service adds to the instrumentations' spans when tracing is on (start-service.ts loads this module
 * only then): a span per use case, and the trace id on every traced response.
 */

const tracer = trace.getTracer('animal-store-service');

const AsyncFunction = (async () => {}).constructor;

/**
 * The use cases that get a span: PetCatalog's async methods, the ones that reach storage. `authenticate`, a
 * synchronous check of every request in memory, gets none.
 */
export const TRACED_USE_CASES: readonly string[] = Object.getOwnPropertyNames(PetCatalog.prototype).filter(
  (name) => Reflect.get(PetCatalog.prototype, name) instanceof AsyncFunction,
);

/**
 * The catalog whose use cases each run in a span of their own, named by the core's method (`PetCatalog.addPet`):
 * the router's span beneath the request already carries the operation's name (createPet).
 */
export class TracedPetCatalog extends PetCatalog {}

for (const name of TRACED_USE_CASES) {
  Object.defineProperty(TracedPetCatalog.prototype, name, {
    value: traced(`PetCatalog.${name}`, Reflect.get(PetCatalog.prototype, name) as UseCase),
    writable: true,
    configurable: true,
  });
}

type UseCase = (this: PetCatalog, ...args: unknown[]) => Promise<unknown>;

function traced(spanName: string, useCase: UseCase): UseCase {
  return function (...args) {
    // A request its sampler left unrecorded gets no use-case span either: it could never be exported.
    if (trace.getActiveSpan()?.isRecording() === false) return useCase.apply(this, args);
    return tracer.startActiveSpan(spanName, async (span) => {
      try {
        return await useCase.apply(this, args);
      } catch (error) {
        // A domain error is named by its code; anything else is unexpected and keeps its exception.
        if (error instanceof DomainError) span.setAttribute('error.type', error.code);
        else span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    });
  };
}

/**
 * Answers each traced request with its trace and server span in a `traceresponse` header (W3C Trace Context
 * Level 2), so a client can quote the trace. The listener runs in the server span's context (instrumentation-http).
 */
export function withTraceResponse(listener: RequestListener): RequestListener {
  return (request, response) => {
    const span = trace.getActiveSpan();
    if (span !== undefined) {
      const { traceId, spanId, traceFlags } = span.spanContext();
      response.setHeader('traceresponse', `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, '0')}`);
    }
    listener(request, response);
  };
}
