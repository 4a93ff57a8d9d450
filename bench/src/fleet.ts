import { walkStore } from './deep-page.js';
import { preload } from './load.js';
import { fixed, type PerServer } from './report.js';
import { startServer, type BenchServer, type ServerName, type StartSettings } from './servers.js';
import type { Target } from './workloads.js';

const log = (line: string) => process.stderr.write(`${line}\n`);

/** Starts the servers one after another (so that each start-up is timed alone); stops them all on failure. */
export async function startFleet(names: readonly ServerName[], settings: StartSettings): Promise<PerServer<BenchServer>> {
  const servers: PerServer<BenchServer> = {};
  try {
    for (const name of names) {
      servers[name] = await startServer(name, settings);
      log(`started ${name} (pid ${servers[name].pid}) at ${servers[name].url}: ready in ${fixed(servers[name].readyMs)} ms`);
    }
    return servers;
  } catch (error) {
    await stopFleet(servers);
    throw error;
  }
}

/** The servers of a run: started once, or afresh for each peak round (--rounds). Stopping stops the current set. */
export class Fleet {
  private running: PerServer<BenchServer> | undefined;

  constructor(
    private readonly names: readonly ServerName[],
    private readonly settings: StartSettings,
  ) {}

  /** Stops the servers running (if any) and starts new processes of every one. */
  async restart(): Promise<PerServer<BenchServer>> {
    await this.stop();
    this.running = await startFleet(this.names, this.settings);
    return this.running;
  }

  async stop(): Promise<void> {
    const running = this.running;
    this.running = undefined;
    if (running !== undefined) await stopFleet(running);
  }
}

export async function stopFleet(servers: PerServer<BenchServer>): Promise<void> {
  await Promise.all(Object.values(servers).map((server) => server.stop()));
}

/** Cold starts of the service alone, each timed from spawn to its first /readyz 200, then stopped. */
export async function coldStarts(count: number, settings: StartSettings): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const service = await startServer('service', { ...settings, cpuProfDir: undefined });
    times.push(service.readyMs);
    await service.stop();
  }
  if (count > 0) log(`cold starts of the service to ready: ${times.map((t) => fixed(t)).join(', ')} ms`);
  return times;
}

/** Preloads every store from `first` up to `total` pets; returns the load rates in pets per second. */
export async function preloadAll(servers: PerServer<BenchServer>, apiKey: string, first: number, total: number): Promise<PerServer<number>> {
  const rates: PerServer<number> = {};
  for (const server of Object.values(servers)) {
    const result = await preload(server.url, apiKey, total - first + 1, first);
    rates[server.name] = result.requests / result.seconds;
    log(`preloaded ${server.name}: ${total} pets stored (${fixed(rates[server.name]!)} pets/s over HTTP)`);
  }
  return rates;
}

/** Walks each store once: it must hold exactly `stored` pets, and the workloads pick ids from it. */
export async function targetsAt(servers: PerServer<BenchServer>, apiKey: string, stored: number): Promise<Target[]> {
  const targets: Target[] = [];
  for (const server of Object.values(servers)) {
    const { ids, deepPage } = await walkStore(server.url, apiKey);
    if (ids.length !== stored) throw new Error(`${server.name} lists ${ids.length} pets, expected ${stored}`);
    targets.push({ server, ids, deepPage });
  }
  return targets;
}
