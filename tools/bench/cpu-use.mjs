// Where a machine's processor time went between two moments, from Linux's /proc: the threads of
// the browser this process launched (its dedicated workers, its renderers' main threads, the rest
// of it), this process itself, and every other process on the machine. On a shared machine, a
// latency figure means little without it. Elsewhere (no /proc) it measures nothing: null.
import { readFileSync, readdirSync } from 'node:fs';

const ticksOf = (stat) => {
  // Fields after the command's closing parenthesis (the command may hold spaces): state is [0],
  // the parent's pid [1], utime [11] and stime [12], in clock ticks.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { parent: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
};
const read = (path) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null; // the process or thread ended meanwhile
  }
};

/** A snapshot of processor time in clock ticks: { machine, workers, pageMains, browserRest, self }. */
export function cpuSnapshot() {
  const all = read('/proc/stat');
  if (!all) return null;
  const [, ...cpu] = all.split('\n')[0].trim().split(/\s+/).map(Number);
  const machine = cpu.reduce((a, b) => a + b, 0) - cpu[3] - cpu[4]; // all but idle and iowait
  const processes = new Map();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    const stat = read(`/proc/${pid}/stat`);
    if (stat) processes.set(Number(pid), ticksOf(stat).parent);
  }
  // The browser: every descendant of this process.
  const ours = new Set([process.pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, parent] of processes) if (!ours.has(pid) && ours.has(parent)) { ours.add(pid); grew = true; }
  }
  const snapshot = { machine, workers: 0, pageMains: 0, browserRest: 0, self: ticksOf(read('/proc/self/stat')).ticks };
  for (const pid of ours) {
    if (pid === process.pid) continue;
    const renderer = read(`/proc/${pid}/cmdline`)?.includes('--type=renderer');
    let threads = [];
    try {
      threads = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue; // it ended meanwhile
    }
    for (const tid of threads) {
      const stat = read(`/proc/${pid}/task/${tid}/stat`);
      if (!stat) continue;
      const { ticks } = ticksOf(stat);
      const name = read(`/proc/${pid}/task/${tid}/comm`)?.trim() ?? '';
      if (name.startsWith('DedicatedWorker')) snapshot.workers += ticks;
      else if (renderer && Number(tid) === pid) snapshot.pageMains += ticks;
      else snapshot.browserRest += ticks;
    }
  }
  return snapshot;
}

/** The time between two snapshots, each part in cores (1 = one core busy the whole time). */
export function coresBetween(before, after, elapsedMs) {
  if (!before || !after) return null;
  const ticksPerMs = 100 / 1000; // USER_HZ, 100 on Linux
  const cores = (key) => (after[key] - before[key]) / (elapsedMs * ticksPerMs);
  const parts = { workers: cores('workers'), pageMains: cores('pageMains'), browserRest: cores('browserRest'), self: cores('self') };
  parts.others = Math.max(0, cores('machine') - parts.workers - parts.pageMains - parts.browserRest - parts.self);
  return parts;
}
