import { afterEach, describe, expect, it, vi } from 'vitest';
import { samplerFromEnv } from '../../src/telemetry/sampler-from-env.js';

/* The samplers OTEL_TRACES_SAMPLER names (OpenTelemetry's SDK environment variables), as @opentelemetry/sdk-node builds them. */

afterEach(() => vi.unstubAllEnvs());

const parentBased = (root: string) =>
  `ParentBased{root=${root}, remoteParentSampled=AlwaysOnSampler, remoteParentNotSampled=AlwaysOffSampler, localParentSampled=AlwaysOnSampler, localParentNotSampled=AlwaysOffSampler}`;

describe('samplerFromEnv', () => {
  it.each([
    [undefined, undefined, parentBased('AlwaysOnSampler')],
    ['parentbased_always_on', undefined, parentBased('AlwaysOnSampler')],
    ['always_on', undefined, 'AlwaysOnSampler'],
    ['always_off', undefined, 'AlwaysOffSampler'],
    ['parentbased_always_off', undefined, parentBased('AlwaysOffSampler')],
    ['traceidratio', '0.25', 'TraceIdRatioBased{0.25}'],
    ['parentbased_traceidratio', '0.01', parentBased('TraceIdRatioBased{0.01}')],
    ['parentbased_traceidratio', undefined, parentBased('TraceIdRatioBased{1}')],
    ['parentbased_traceidratio', '1.5', parentBased('TraceIdRatioBased{1}')],
    ['no_such_sampler', undefined, parentBased('AlwaysOnSampler')],
  ])('OTEL_TRACES_SAMPLER=%s OTEL_TRACES_SAMPLER_ARG=%s: %s', (name, arg, expected) => {
    vi.stubEnv('OTEL_TRACES_SAMPLER', name);
    vi.stubEnv('OTEL_TRACES_SAMPLER_ARG', arg);
    expect(samplerFromEnv().toString()).toBe(expected);
  });
});
