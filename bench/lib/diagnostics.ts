/**
 * What a side of a figure cost, to find out why a ratio is far from 1 and what a cluster needs
 * (docs/capacity.md): CPU seconds per process; per Temporal server, its frontend requests by
 * operation (round trips of clients and workers), its persistence calls (SQLite for the dev server,
 * PostgreSQL for the cluster), visibility calls and state transitions (mutable-state writes, the
 * `state_transition_count` histogram's count, Temporal's throughput unit); the SQL statements the
 * API and the workers sent (counted in the processes); and the statements and explicit
 * transactions PostgreSQL ran per database (`pg_stat_statements`, which also sees the cluster's
 * Temporal server). Sampled before
 * and after each side, and divided by the side's items (payments, workflows, deliveries).
 */
import type { ChildProcess } from 'node:child_process';
import type { Db } from '../../src/db/knex';
import { cpuSpent, type CpuSeconds } from './cpu';
import { requestFrom } from './ipc';
import { statementsByDatabase, type DatabaseStatements } from './postgres';

/** One Temporal server's counters (namespace `default`). */
export interface ServerCounters {
  /** Frontend requests by operation (StartWorkflowExecution, RespondWorkflowTaskCompleted, …). */
  frontend: Record<string, number>;
  /** Persistence calls (namespace `default` and the shards' own, which carry no namespace). */
  persistence: number;
  /** Visibility writes (records of started, upserted and closed executions, deletions). */
  visibility: number;
  /** Mutable-state writes (creates and updates of workflow executions). */
  stateTransitions: number;
}

/** Counters at one moment. */
export interface Sample {
  cpu: CpuSeconds;
  /** By server name (`dev`, `cluster`). */
  temporal: Record<string, ServerCounters>;
  /** SQL statements sent, by process role. */
  sql: Record<string, number>;
  /** Statements and transactions PostgreSQL ran, by database. */
  postgres: Record<string, DatabaseStatements>;
}

/** What one side cost, in all and per item. */
export interface Cost {
  cpuSeconds: CpuSeconds;
  items: number;
  perItem: {
    /** CPU milliseconds per item, by process. */
    cpuMs: Record<string, number>;
    /** Per Temporal server that did work for the side. */
    temporal: Record<
      string,
      {
        frontendRequests: Record<string, number>;
        persistenceCalls: number;
        visibilityCalls: number;
        stateTransitions: number;
      }
    >;
    /** SQL statements sent, by process role. */
    sqlStatements: Record<string, number>;
    /** Statements PostgreSQL ran, by database (the bench's own polling of the read model included). */
    postgresStatements: Record<string, number>;
    /** Explicit transactions (BEGIN) PostgreSQL ran, by database. */
    postgresTransactions: Record<string, number>;
  };
}

/**
 * Sums a Prometheus metric's samples by the value of `label`, for namespace `default` only, or with
 * `orUntagged` also the samples without a namespace (a shard's own persistence calls, visibility's).
 */
function countersBy(
  text: string,
  metric: string,
  label: string,
  where: (line: string) => boolean = () => true,
  orUntagged = false,
): Record<string, number> {
  const totals: Record<string, number> = {};
  const pattern = new RegExp(`^${metric}\\{([^}]*)\\} ([0-9.e+]+)$`);
  for (const line of text.split('\n')) {
    const match = pattern.exec(line);
    if (!match || !where(line)) continue;
    const labels = match[1] as string;
    const namespace = /namespace="([^"]*)"/.exec(labels)?.[1];
    if (namespace === undefined ? !orUntagged : namespace !== 'default') continue;
    const key = new RegExp(`${label}="([^"]*)"`).exec(labels)?.[1] ?? '?';
    totals[key] = (totals[key] ?? 0) + Number(match[2]);
  }
  return totals;
}

const sum = (values: Record<string, number>) => Object.values(values).reduce((a, b) => a + b, 0);

/** Reads one server's counters from its Prometheus endpoint; zeros when it does not answer. */
async function serverCounters(metricsUrl: string): Promise<ServerCounters> {
  let text = '';
  try {
    text = await (await fetch(metricsUrl)).text();
  } catch {
    // stopped or not answering: its counters read as zero
  }
  return {
    frontend: countersBy(text, 'service_requests', 'operation', (line) => line.includes('service_name="frontend"')),
    persistence: sum(countersBy(text, 'persistence_requests', 'operation', () => true, true)),
    // Visibility's metrics carry no namespace; its writes only (the bench's own counts and lists are reads).
    visibility: sum(
      countersBy(
        text,
        'visibility_persistence_requests',
        'operation',
        (line) => /operation="[^"]*(Record|Upsert|Delete)/.test(line),
        true,
      ),
    ),
    stateTransitions: sum(countersBy(text, 'state_transition_count_count', 'namespace')),
  };
}

/** Where a sample reads its counters. */
export interface SampleSources {
  cpu: () => CpuSeconds;
  /** Temporal servers' metrics URLs by name. */
  servers: () => Record<string, string>;
  /** Processes that answer `sqlStatements` (bench/lib/sql-counter.ts), by role. */
  sqlSources: () => Record<string, ChildProcess>;
  /** A handle on the dev stack's database, to read `pg_stat_statements`. */
  db: Db;
}

/** Takes a sample; waits `flushMs` first, since the servers publish their metrics about once a second. */
export async function takeSample(sources: SampleSources, flushMs = 1_200): Promise<Sample> {
  await new Promise((resolve) => setTimeout(resolve, flushMs));
  const temporal: Record<string, ServerCounters> = {};
  for (const [name, url] of Object.entries(sources.servers())) temporal[name] = await serverCounters(url);
  const sql: Record<string, number> = {};
  for (const [role, child] of Object.entries(sources.sqlSources())) {
    sql[role] = await requestFrom<number>(child, 'sqlStatements').catch(() => 0);
  }
  return { cpu: sources.cpu(), temporal, sql, postgres: await statementsByDatabase(sources.db) };
}

const round2 = (value: number) => Math.round(value * 100) / 100;

/**
 * The cost between two samples for `items` items. Frontend operations below 0.05 per item are left
 * out; so is a server with fewer than 0.5 persistence calls per item (idle during the side).
 */
export function costBetween(before: Sample, after: Sample, items: number): Cost {
  const per = (value: number) => round2(value / Math.max(items, 1));
  const cpuSeconds = cpuSpent(before.cpu, after.cpu);
  const temporal: Cost['perItem']['temporal'] = {};
  for (const [name, counters] of Object.entries(after.temporal)) {
    const earlier = before.temporal[name];
    if (!earlier) continue;
    const persistenceCalls = per(counters.persistence - earlier.persistence);
    if (persistenceCalls < 0.5) continue;
    const frontendRequests: Record<string, number> = {};
    for (const [operation, value] of Object.entries(counters.frontend)) {
      const perItem = per(value - (earlier.frontend[operation] ?? 0));
      if (perItem >= 0.05) frontendRequests[operation] = perItem;
    }
    temporal[name] = {
      frontendRequests,
      persistenceCalls,
      visibilityCalls: per(counters.visibility - earlier.visibility),
      stateTransitions: per(counters.stateTransitions - earlier.stateTransitions),
    };
  }
  const delta = (a: Record<string, number>, b: Record<string, number>) =>
    Object.fromEntries(
      Object.entries(a)
        .map(([key, value]) => [key, per(value - (b[key] ?? 0))])
        .filter(([, value]) => (value as number) > 0),
    );
  return {
    cpuSeconds,
    items,
    perItem: {
      cpuMs: Object.fromEntries(Object.entries(cpuSeconds).map(([role, seconds]) => [role, per(seconds * 1000)])),
      temporal,
      sqlStatements: delta(after.sql, before.sql),
      postgresStatements: delta(pick(after.postgres, 'statements'), pick(before.postgres, 'statements')),
      postgresTransactions: delta(pick(after.postgres, 'transactions'), pick(before.postgres, 'transactions')),
    },
  };
}

function pick(counts: Record<string, DatabaseStatements>, field: keyof DatabaseStatements): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).map(([name, value]) => [name, value[field]]));
}

/** CPU milliseconds per item of every process measured (the stacks, their clients and the bench itself). */
export function totalCpuMs(cost: Cost): number {
  return round2(sum(cost.perItem.cpuMs));
}

/**
 * One line: per item, CPU ms in all and by process, per busy Temporal server its requests,
 * persistence and visibility calls and state transitions, SQL statements by process and by database.
 */
export function describeCost(cost: Cost): string {
  const cpu = Object.entries(cost.perItem.cpuMs)
    .filter(([, ms]) => ms >= 0.05)
    .map(([role, ms]) => `${role} ${ms}`)
    .join(', ');
  const servers = Object.entries(cost.perItem.temporal)
    .map(
      ([name, t]) =>
        `temporal ${name} ${round2(sum(t.frontendRequests))} requests, ${t.stateTransitions} transitions, ${t.persistenceCalls} persistence + ${t.visibilityCalls} visibility calls`,
    )
    .join('; ');
  const list = (values: Record<string, number>) =>
    Object.entries(values)
      .map(([key, n]) => `${key} ${n}`)
      .join(', ') || '0';
  const byDatabase =
    Object.entries(cost.perItem.postgresStatements)
      .map(([name, n]) => `${name} ${n} (${cost.perItem.postgresTransactions[name] ?? 0} transactions)`)
      .join(', ') || '0';
  return `per item (${cost.items}): cpu ms ${totalCpuMs(cost)} (${cpu}); ${servers || 'temporal idle'}; sql by process ${list(cost.perItem.sqlStatements)}; by database ${byDatabase}`;
}
