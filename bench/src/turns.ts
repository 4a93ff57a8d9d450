import { latencies } from './load.js';
import { addCommands } from './mongo-commands.js';
import type { Measurement } from './phase.js';
import type { LoopDelay } from './server-probe.js';

/**
 * One server's run of a workload in a round, from the turns it was taken in (rounds.ts): counts and CPU summed,
 * shares of time weighted by each turn's seconds, loop delays at their worst, and the latencies of every request
 * of every turn (`times`, which the turns filled).
 */
export function joinTurns(turns: readonly Measurement[], times: number[]): Measurement {
  const [first] = turns;
  if (first === undefined) throw new Error('a run has at least one turn');
  if (turns.length === 1) return first;
  const total = (pick: (m: Measurement) => number) => turns.reduce((sum, m) => sum + pick(m), 0);
  const requests = total((m) => m.requests);
  const seconds = total((m) => m.seconds);
  const perRequest = (pick: (m: Measurement) => number) => total((m) => pick(m) * m.requests) / Math.max(1, requests);
  const perSecond = (pick: (m: Measurement) => number) => total((m) => pick(m) * m.seconds) / seconds;
  const machineLoops = turns.map((m) => m.machineLoop);
  const mongo = first.mongoCommands === undefined ? {} : { mongoCommands: addCommands(turns.map((m) => m.mongoCommands ?? null)) };
  const mongoServer = first.mongoServerCpuUsPerReq === undefined ? {} : { mongoServerCpuUsPerReq: perRequest((m) => m.mongoServerCpuUsPerReq ?? NaN) };
  return {
    requests,
    seconds,
    reqPerSec: requests / seconds,
    ...latencies(times),
    errors: total((m) => m.errors),
    non2xx: total((m) => m.non2xx),
    pid: first.pid,
    cpuUsPerReq: perRequest((m) => m.cpuUsPerReq),
    cpuWaitPct: perSecond((m) => m.cpuWaitPct),
    clientWaitPct: perSecond((m) => m.clientWaitPct),
    loop: joinLoops(turns.map((m) => m.loop), turns.map((m) => m.seconds)),
    machineLoop: machineLoops.includes(null) ? null : joinLoops(machineLoops as LoopDelay[], turns.map((m) => m.seconds)),
    ...mongo,
    ...mongoServer,
  };
}

function joinLoops(loops: readonly LoopDelay[], seconds: readonly number[]): LoopDelay {
  const span = seconds.reduce((sum, s) => sum + s, 0);
  return {
    maxMs: Math.max(...loops.map((l) => l.maxMs)),
    // A turn's p99 is all the monitor reports; the worst of them stands for the run's.
    p99Ms: Math.max(...loops.map((l) => l.p99Ms)),
    meanMs: loops.reduce((sum, l, i) => sum + l.meanMs * seconds[i]!, 0) / span,
    markCompacts: loops.reduce((sum, l) => sum + l.markCompacts, 0),
    longestMarkCompactMs: Math.max(...loops.map((l) => l.longestMarkCompactMs)),
  };
}
