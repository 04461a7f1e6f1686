/**
 * What a side of a figure cost, to find out why a ratio is far from 1: CPU seconds per process, the
 * Temporal server's requests by operation (round trips of clients and workers through its frontend)
 * and its persistence calls (SQLite), and the SQL statements the API and the service worker sent.
 * Sampled before and after each side, and divided by the side's items (payments, workflows,
 * deliveries).
 */
import type { ChildProcess } from 'node:child_process';
import { cpuSpent, type CpuSeconds } from './cpu';
import { requestFrom } from './ipc';

/** Counters at one moment. */
export interface Sample {
  cpu: CpuSeconds;
  /** Frontend requests by operation (StartWorkflowExecution, RespondWorkflowTaskCompleted, …). */
  frontend: Record<string, number>;
  /** Persistence (SQLite) calls of the history and matching services, and visibility's. */
  persistence: number;
  visibility: number;
  /** SQL statements sent by the API and the service worker. */
  sql: Record<string, number>;
}

/** What one side cost, in all and per item. */
export interface Cost {
  cpuSeconds: CpuSeconds;
  items: number;
  perItem: {
    /** CPU milliseconds per item, by process. */
    cpuMs: Record<string, number>;
    frontendRequests: Record<string, number>;
    persistenceCalls: number;
    visibilityCalls: number;
    sqlStatements: Record<string, number>;
  };
}

/** Sums a Prometheus counter's samples by the value of `label`, for namespace `default` only. */
function countersBy(text: string, metric: string, label: string, where: (line: string) => boolean = () => true): Record<string, number> {
  const totals: Record<string, number> = {};
  const pattern = new RegExp(`^${metric}\\{([^}]*)\\} ([0-9.e+]+)$`);
  for (const line of text.split('\n')) {
    const match = pattern.exec(line);
    if (!match || !where(line) || !(match[1] as string).includes('namespace="default"')) continue;
    const key = new RegExp(`${label}="([^"]*)"`).exec(match[1] as string)?.[1] ?? '?';
    totals[key] = (totals[key] ?? 0) + Number(match[2]);
  }
  return totals;
}

const sum = (values: Record<string, number>) => Object.values(values).reduce((a, b) => a + b, 0);

/** Takes a sample; waits `flushMs` first, since the server publishes its metrics about once a second. */
export async function takeSample(
  cpu: () => CpuSeconds,
  temporalMetricsUrl: string,
  sqlSources: Record<string, ChildProcess>,
  flushMs = 1_200,
): Promise<Sample> {
  await new Promise((resolve) => setTimeout(resolve, flushMs));
  const text = await (await fetch(temporalMetricsUrl)).text();
  const sql: Record<string, number> = {};
  for (const [role, child] of Object.entries(sqlSources)) sql[role] = await requestFrom<number>(child, 'sqlStatements');
  return {
    cpu: cpu(),
    frontend: countersBy(text, 'service_requests', 'operation', (line) => line.includes('service_name="frontend"')),
    persistence: sum(countersBy(text, 'persistence_requests', 'operation')),
    visibility: sum(countersBy(text, 'visibility_persistence_requests', 'operation')),
    sql,
  };
}

const round2 = (value: number) => Math.round(value * 100) / 100;

/** The cost between two samples for `items` items (frontend operations below 0.05 per item are left out). */
export function costBetween(before: Sample, after: Sample, items: number): Cost {
  const per = (value: number) => round2(value / Math.max(items, 1));
  const cpuSeconds = cpuSpent(before.cpu, after.cpu);
  const frontend: Record<string, number> = {};
  for (const [operation, value] of Object.entries(after.frontend)) {
    const perItem = per(value - (before.frontend[operation] ?? 0));
    if (perItem >= 0.05) frontend[operation] = perItem;
  }
  return {
    cpuSeconds,
    items,
    perItem: {
      cpuMs: Object.fromEntries(Object.entries(cpuSeconds).map(([role, seconds]) => [role, per(seconds * 1000)])),
      frontendRequests: frontend,
      persistenceCalls: per(after.persistence - before.persistence),
      visibilityCalls: per(after.visibility - before.visibility),
      sqlStatements: Object.fromEntries(Object.entries(after.sql).map(([role, value]) => [role, per(value - (before.sql[role] ?? 0))])),
    },
  };
}

/** CPU milliseconds per item of every process measured (the stack, its clients and the bench itself). */
export function totalCpuMs(cost: Cost): number {
  return round2(sum(cost.perItem.cpuMs));
}

/** One line: per item, CPU ms in all and by process, Temporal requests and persistence calls, SQL statements. */
export function describeCost(cost: Cost): string {
  const cpu = Object.entries(cost.perItem.cpuMs).filter(([, ms]) => ms >= 0.05).map(([role, ms]) => `${role} ${ms}`).join(', ');
  const sql = Object.entries(cost.perItem.sqlStatements).filter(([, n]) => n > 0).map(([role, n]) => `${role} ${n}`).join(', ');
  const requests = round2(sum(cost.perItem.frontendRequests));
  return `per item (${cost.items}): cpu ms ${totalCpuMs(cost)} (${cpu}); temporal ${requests} requests, ${cost.perItem.persistenceCalls} persistence + ${cost.perItem.visibilityCalls} visibility calls; sql ${sql || '0'}`;
}
