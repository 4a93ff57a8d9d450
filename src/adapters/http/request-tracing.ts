import type { RequestListener } from 'node:http';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { DomainError } from '../../core/errors.js';
import type { NewPet, Pet, PetId } from '../../core/pet.js';
import { PetCatalog, type ListPetsRequest, type PetPage } from '../../core/pet-catalog.js';
import type { Added, IdempotentCreate } from '../../ports/pet-repository.js';

/*
 * What the service adds to the instrumentations' spans when tracing is on (start-service.ts loads this module
 * only then): a span per use case, and the trace id on every traced response.
 */

const tracer = trace.getTracer('animal-store-service');

/**
 * The catalog whose use cases each run in a span of their own, named by the core's method (`PetCatalog.addPet`):
 * the router's span beneath the request already carries the operation's name (createPet).
 */
export class TracedPetCatalog extends PetCatalog {
  override listPets(request: ListPetsRequest): Promise<PetPage> {
    return inSpan('PetCatalog.listPets', () => super.listPets(request));
  }

  override addPet(newPet: NewPet, idempotency?: IdempotentCreate): Promise<Added> {
    return inSpan('PetCatalog.addPet', () => super.addPet(newPet, idempotency));
  }

  override getPet(id: PetId): Promise<Pet> {
    return inSpan('PetCatalog.getPet', () => super.getPet(id));
  }
}

function inSpan<T>(name: string, run: () => Promise<T>): Promise<T> {
  // A request its sampler left unrecorded gets no use-case span either: it could never be exported.
  if (trace.getActiveSpan()?.isRecording() === false) return run();
  return tracer.startActiveSpan(name, async (span) => {
    try {
      return await run();
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
