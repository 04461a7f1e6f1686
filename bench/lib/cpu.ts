/**
 * CPU time per process of the stacks, read from /proc/<pid>/stat (Linux), so each figure can say
 * where the machine's time went: the Temporal servers, the service workers, the APIs, PostgreSQL,
 * the baseline worker, or the benchmark itself (load generator, client, receiver).
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
    const ticks =
      Number(fields[11]) + Number(fields[12]) + (withReapedChildren ? Number(fields[13]) + Number(fields[14]) : 0);
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
 * The processes of one role: their pids, and whether each one's children count too (e.g. a cluster primary's forks).
 */
export interface ProcessGroup {
  pids: number[];
  withChildren?: boolean;
}

/** CPU seconds of `group`: each pid, plus its live and reaped children when asked. */
function groupSeconds(group: ProcessGroup): number {
  let total = 0;
  for (const pid of group.pids) {
    total += processSeconds(pid, group.withChildren === true);
    if (group.withChildren) total += childrenOf(pid).reduce((sum, child) => sum + processSeconds(child), 0);
  }
  return total;
}

/**
 * A sampler of the CPU seconds of `groups` (role → processes, read at each call so restarted
 * processes count), of PostgreSQL (the postmaster with its live and reaped backends) and of this
 * process. A process that ended between two samples drops out of the later one, so a role whose
 * process was replaced shows the new process's time only (its `cpuSpent` can be off for that side).
 */
export function cpuSampler(
  groups: () => Record<string, ProcessGroup>,
  postgresPid: number | undefined,
): () => CpuSeconds {
  return () => {
    const sample: CpuSeconds = {};
    for (const [role, group] of Object.entries(groups())) sample[role] = groupSeconds(group);
    if (postgresPid !== undefined) sample.postgres = groupSeconds({ pids: [postgresPid], withChildren: true });
    const own = process.cpuUsage();
    sample.bench = (own.user + own.system) / 1e6;
    return sample;
  };
}

/** `after − before` per role, rounded to 0.01 s (a role absent before counts from 0). */
export function cpuSpent(before: CpuSeconds, after: CpuSeconds): CpuSeconds {
  return Object.fromEntries(
    Object.entries(after).map(([role, value]) => [role, Math.round((value - (before[role] ?? 0)) * 100) / 100]),
  );
}
