/*
 * MongoDB round trips, read from the service's own /metrics: the counter animal_store_mongodb_commands_total
 * (label `command`: find, insert, findAndModify, update...) fed by the driver's command monitoring. Read
 * before and after a run, the difference divided by the responses is commands per request.
 */
export type CommandCounts = Readonly<Record<string, number>>;

const METRIC = 'animal_store_mongodb_commands_total';
const SAMPLE = new RegExp(`^${METRIC}(?:\\{([^}]*)\\})?\\s+(\\S+)`, 'gm');

/** The counter's samples summed by command, or null when the service does not expose it. */
export async function readMongoCommands(url: string): Promise<CommandCounts | null> {
  const response = await fetch(`${url}/metrics`);
  return parseMongoCommands(response.ok ? await response.text() : '');
}

/** The counter's samples in a Prometheus text exposition, summed by command; null when absent. */
export function parseMongoCommands(text: string): CommandCounts | null {
  if (!text.includes(METRIC)) return null;
  const counts: Record<string, number> = {};
  for (const [, labels = '', value] of text.matchAll(SAMPLE)) {
    const command = /(?:^|,)command="([^"]*)"/.exec(labels)?.[1] ?? '(no command label)';
    counts[command] = (counts[command] ?? 0) + Number(value);
  }
  return counts;
}

/** after - before, by command; null when either side is null. */
export function commandsBetween(before: CommandCounts | null, after: CommandCounts | null): CommandCounts | null {
  if (before === null || after === null) return null;
  return Object.fromEntries(Object.entries(after).map(([command, n]) => [command, n - (before[command] ?? 0)]));
}

/** Sums several runs' counts; null as soon as one run had none. */
export function addCommands(runs: readonly (CommandCounts | null)[]): CommandCounts | null {
  const total: Record<string, number> = {};
  for (const run of runs) {
    if (run === null) return null;
    for (const [command, n] of Object.entries(run)) total[command] = (total[command] ?? 0) + n;
  }
  return total;
}

/** "2.00 (find 1.00, findAndModify 1.00)", or "n/a (metric not exposed)". */
export function perRequest(counts: CommandCounts | null, requests: number): string {
  if (counts === null) return 'n/a (metric not exposed)';
  const per = (n: number) => (n / Math.max(1, requests)).toFixed(2);
  const total = Object.values(counts).reduce((sum, n) => sum + n, 0);
  const parts = Object.entries(counts).filter(([, n]) => n > 0).sort(([a], [b]) => a.localeCompare(b)).map(([c, n]) => `${c} ${per(n)}`);
  return parts.length === 0 ? per(total) : `${per(total)} (${parts.join(', ')})`;
}
