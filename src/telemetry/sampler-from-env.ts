import { diag } from '@opentelemetry/api';
import { getNumberFromEnv, getStringFromEnv } from '@opentelemetry/core';
import { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, type Sampler } from '@opentelemetry/sdk-trace';
import { TraceIdRatioSampler } from './trace-id-ratio-sampler.js';

/**
 * The sampler OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG name, built as @opentelemetry/sdk-node builds it when
 * given none (its createSamplerFromEnv, which it does not export): the service holds the instance, to decide a
 * request's sampling before any span starts (sampled-once.ts). Unset or unknown: the SDK's default. The ratio samplers
 * decide as the SDK's do, at a third of the cost (trace-id-ratio-sampler.ts).
 */
export function samplerFromEnv(): Sampler {
  const name = getStringFromEnv('OTEL_TRACES_SAMPLER');
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'traceidratio':
      return new TraceIdRatioSampler(ratioFromEnv());
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioSampler(ratioFromEnv()) });
    default:
      if (name !== undefined && name !== 'parentbased_always_on') diag.error(`unknown OTEL_TRACES_SAMPLER value "${name}", using default`);
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** OTEL_TRACES_SAMPLER_ARG: a ratio in [0, 1], else 1, as the SDK reads it. */
function ratioFromEnv(): number {
  const ratio = getNumberFromEnv('OTEL_TRACES_SAMPLER_ARG');
  if (ratio === undefined) {
    diag.error('OTEL_TRACES_SAMPLER_ARG is blank, defaulting to 1.');
    return 1;
  }
  if (ratio < 0 || ratio > 1) {
    diag.error(`OTEL_TRACES_SAMPLER_ARG=${ratio} was given, but it is out of range ([0..1]), defaulting to 1.`);
    return 1;
  }
  return ratio;
}
