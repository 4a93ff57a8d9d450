import { readFileSync } from 'node:fs';
import { table } from './report.js';

/*
 * Summarises a V8 .cpuprofile (from `npm run bench -- --cpu-prof DIR`) by self time: each sample's time
 * delta is charged to the function on top of the stack, summed per function and place.
 * Usage: node dist/bench/profile-top.js FILE.cpuprofile [N]
 */
interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}
interface Profile { readonly nodes: readonly ProfileNode[]; readonly samples: readonly number[]; readonly timeDeltas: readonly number[] }

const [file, count = '10'] = process.argv.slice(2);
if (file === undefined) {
  process.stderr.write('Usage: node dist/bench/profile-top.js FILE.cpuprofile [N]\n');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const selfUs = new Map<string, number>();
const byPackage = new Map<string, number>();
let totalUs = 0;
let idleUs = 0;
for (const [i, id] of profile.samples.entries()) {
  // Sample i's delta is the time until the next sample: charged to sample i's top frame.
  const delta = profile.timeDeltas[i + 1] ?? 0;
  const { functionName, url, lineNumber } = nodes.get(id)!.callFrame;
  totalUs += delta;
  if (functionName === '(idle)') idleUs += delta;
  const key = `${functionName || '(anonymous)'}\t${place(url, lineNumber)}`;
  selfUs.set(key, (selfUs.get(key) ?? 0) + delta);
  if (functionName !== '(idle)') byPackage.set(packageOf(url), (byPackage.get(packageOf(url)) ?? 0) + delta);
}

// Who owns the code: a package under node_modules, the service's own build output, Node's built-ins, or V8/native.
function packageOf(url: string): string {
  if (url === '') return '(V8, GC, native)';
  if (url.startsWith('node:')) return 'Node built-ins (node:*)';
  const inModules = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (inModules !== null) return inModules[1]!;
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
    return [String(rank + 1), `\`${name}\``, where === '' ? '' : `\`${where}\``, (us / 1000).toFixed(0), `${((100 * us) / busyUs).toFixed(1)}%`];
  });
process.stdout.write(`${(totalUs / 1e6).toFixed(1)} s profiled, ${(busyUs / 1e6).toFixed(1)} s not idle; shares are of the non-idle time.\n\n`);
process.stdout.write(`${table(['#', 'Function (self time)', 'Where', 'Self ms', 'Share'], rows)}\n\n`);
const packages = [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, Number(count))
  .map(([name, us]) => [name, (us / 1000).toFixed(0), `${((100 * us) / busyUs).toFixed(1)}%`]);
process.stdout.write(`${table(['Code (self time)', 'Self ms', 'Share'], packages)}\n`);
