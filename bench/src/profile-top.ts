import { readFileSync } from 'node:fs';
import { table } from './report.js';

/*
 * Summarises a V8 .cpuprofile (from `npm run bench -- --cpu-prof DIR`) by self time: each sample's time
 * delta is charged to the function on top of the stack, summed per function and place. For each, the
 * heaviest first caller in package or service code says whose work a native or built-in entry is.
 * Usage: node bench/dist/profile-top.js FILE.cpuprofile [N]
 */
interface ProfileNode {
  readonly id: number;
  readonly children?: readonly number[];
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}
interface Profile { readonly nodes: readonly ProfileNode[]; readonly samples: readonly number[]; readonly timeDeltas: readonly number[] }

const [file, count = '10'] = process.argv.slice(2);
if (file === undefined) {
  process.stderr.write('Usage: node bench/dist/profile-top.js FILE.cpuprofile [N]\n');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parents = new Map(profile.nodes.flatMap((node) => (node.children ?? []).map((child) => [child, node.id] as const)));
const selfUs = new Map<string, number>();
const callers = new Map<string, Map<string, number>>();
const byPackage = new Map<string, number>();
let totalUs = 0;
let idleUs = 0;
let stoppedUs = 0;
// The bench stops (SIGSTOP) every server but the one measured: a gap this long between samples is time the
// process did not run, which V8 would charge to whatever it sampled last.
const STOPPED_US = 50_000;
for (const [i, id] of profile.samples.entries()) {
  // Sample i's delta is the time until the next sample: charged to sample i's top frame.
  const delta = profile.timeDeltas[i + 1] ?? 0;
  if (delta > STOPPED_US) {
    stoppedUs += delta;
    continue;
  }
  const { functionName, url, lineNumber } = nodes.get(id)!.callFrame;
  totalUs += delta;
  if (functionName === '(idle)') idleUs += delta;
  const key = `${functionName || '(anonymous)'}\t${place(url, lineNumber)}`;
  selfUs.set(key, (selfUs.get(key) ?? 0) + delta);
  const caller = callerOf(id);
  const byCaller = callers.get(key) ?? new Map<string, number>();
  callers.set(key, byCaller.set(caller, (byCaller.get(caller) ?? 0) + delta));
  if (functionName !== '(idle)') byPackage.set(packageOf(url), (byPackage.get(packageOf(url)) ?? 0) + delta);
}

// The nearest frame below the top one that runs package or service code (under node_modules/ or dist/).
function callerOf(id: number): string {
  for (let at = parents.get(id); at !== undefined; at = parents.get(at)) {
    const { functionName, url, lineNumber } = nodes.get(at)!.callFrame;
    if (/\/(node_modules|dist)\//.test(url)) return `${functionName || '(anonymous)'} ${place(url, lineNumber)}`;
  }
  return '';
}

// Who owns the code: a package under node_modules, a yardstick (bench/dist), the service's own build output, Node's
// built-ins, or V8/native.
function packageOf(url: string): string {
  if (url === '') return '(V8, GC, native)';
  if (url.startsWith('node:')) return 'Node built-ins (node:*)';
  const inModules = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (inModules !== null) return inModules[1]!;
  const inBench = /\/bench\/dist\/(.+)$/.exec(url);
  if (inBench !== null) return `bench: ${inBench[1]}`;
  const inDist = /\/dist\/(.+)$/.exec(url);
  return inDist === null ? url : `service: ${inDist[1]}`;
}

// Paths from the file URL, from the project (dist/..., node_modules/...) on; built-ins as they are.
function place(url: string, line: number): string {
  if (url === '') return '';
  const short = url.replace(/^file:\/\/.*?\/(node_modules|dist)\//, '$1/');
  return `${short}:${line + 1}`;
}

const busyUs = totalUs - idleUs;
const rows = [...selfUs].filter(([key]) => !key.startsWith('(idle)')).sort((a, b) => b[1] - a[1]).slice(0, Number(count))
  .map(([key, us], rank) => {
    const [name, where] = key.split('\t');
    const [caller = ''] = [...callers.get(key)!].sort((a, b) => b[1] - a[1])[0] ?? [];
    const code = (text: string | undefined) => (text === undefined || text === '' ? '' : `\`${text}\``);
    return [String(rank + 1), code(name), code(where), code(caller), (us / 1000).toFixed(0), `${((100 * us) / busyUs).toFixed(1)}%`];
  });
process.stdout.write(`${(totalUs / 1e6).toFixed(1)} s profiled (${(stoppedUs / 1e6).toFixed(1)} s more stopped, left out), ` +
  `${(busyUs / 1e6).toFixed(1)} s not idle; shares are of the non-idle time.\n\n`);
process.stdout.write(`${table(['#', 'Function (self time)', 'Where', 'Mostly reached from', 'Self ms', 'Share'], rows)}\n\n`);
const packages = [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, Number(count))
  .map(([name, us]) => [name, (us / 1000).toFixed(0), `${((100 * us) / busyUs).toFixed(1)}%`]);
process.stdout.write(`${table(['Code (self time)', 'Self ms', 'Share'], packages)}\n`);
