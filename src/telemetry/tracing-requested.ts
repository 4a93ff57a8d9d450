type Env = Readonly<Record<string, string | undefined>>;

/**
 * Whether the standard OTEL_* variables ask for traces: OTEL_TRACES_EXPORTER names an exporter (its first entry not
 * `none`, as the SDK reads it), or, with OTEL_TRACES_EXPORTER unset, an OTLP endpoint is set
 * (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT); never with OTEL_SDK_DISABLED=true.
 * Kept free of imports: the --import preload (tracing-preload.ts) asks it before anything else loads.
 */
export function tracingRequested(env: Env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '' && name !== 'null');
  if (exporters.length > 0) return exporters[0] !== 'none';
  return [env.OTEL_EXPORTER_OTLP_ENDPOINT, env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT].some((url) => url !== undefined && url.trim() !== '');
}
