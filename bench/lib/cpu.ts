/**
 * CPU time per process of the stack, read from /proc (Linux), so each figure can say where the
 * machine's time went: the Temporal server, the service worker, the API, PostgreSQL, the baseline
 * worker, or the benchmark itself (load generator, client, receiver).
 */
import fs from 'node:fs';
import path from 'node:path';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** CPU seconds used so far, keyed by process role. */
export type CpuSeconds = Record<string, number>;

/** utime+stime (+ cutime+cstime: reaped children) of `pid` in seconds; 0 when it is gone. */
function processSeconds(pid: number, withReapedChildren = false): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from the 3rd on
    const ticks = Number(fields[11]) + Number(fields[12]) + (withReapedChildren ? Number(fields[13]) + Number(fields[14]) : 0);
    return ticks / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return children;
}

/** The postmaster's pid from its data folder, or undefined (an external DATABASE_URL). */
export function postmasterPid(dataDir: string): number | undefined {
  try {
    return Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return undefined;
  }
}

/**
 * A sampler of the CPU seconds of `pids` (role → pid, read at each call so restarted processes
 * count), of PostgreSQL (the postmaster with its live and reaped backends) and of this process.
 */
export function cpuSampler(pids: () => Record<string, number | undefined>, postgresPid: number | undefined): () => CpuSeconds {
  return () => {
    const sample: CpuSeconds = {};
    for (const [role, pid] of Object.entries(pids())) if (pid !== undefined) sample[role] = processSeconds(pid);
    if (postgresPid !== undefined) {
      sample.postgres = processSeconds(postgresPid, true) + childrenOf(postgresPid).reduce((sum, child) => sum + processSeconds(child), 0);
    }
    const own = process.cpuUsage();
    sample.bench = (own.user + own.system) / 1e6;
    return sample;
  };
}

/** `after − before` per role, rounded to 0.01 s (a role absent before counts from 0). */
export function cpuSpent(before: CpuSeconds, after: CpuSeconds): CpuSeconds {
  return Object.fromEntries(Object.entries(after).map(([role, value]) => [role, Math.round((value - (before[role] ?? 0)) * 100) / 100]));
}
