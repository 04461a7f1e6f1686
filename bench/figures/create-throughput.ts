/**
 * Figure (a), create throughput: sustained `POST /v1/payments` 2xx answers per second at a fixed
 * concurrency (no pipelining, a unique idempotency key per request), measured with autocannon, of payments that stay
 * open at their provider (sandbox `0003`, docs/payments.md#sandbox-scenarios: the provider never answers), ÷ the same
 * of the fair baseline (bench/baseline/fair-api.ts, docs/capacity.md#the-fair-baseline): the least a create that waits
 * for its provider and survives a crash costs with this stack (JSON body, one key SELECT, one idempotency INSERT,
 * Update-with-Start of a workflow whose update runs one local activity that inserts the payment row and asks an
 * in-process simulator, which answers `pending`; the workflow then waits and polls on the service's schedule). Both
 * sides are driven by the same autocannon settings and counted alike, by the answers that came after the ramp-up (2 s)
 * and before the drive ended (`steadyRate` in bench/lib/load.ts), and cost per payment created (the rows the side
 * inserted), their waiting (timers and polls) within the side included. After each side the figure waits until every
 * create it sent is recorded, takes its sample, and then (outside its cost) terminates the workflows the side left
 * waiting, so that their polls load neither the other side nor the figures after (a).
 *
 * Beside it, without a target: the CPU per settled payment (sandbox `0001`, completed within its create) of every
 * process, one drive of the service alone ({@link settledPaymentCost}), so that the settlement's own cost stays
 * visible.
 *
 * Beside it: the create's p99 latency at half the service's sustained rate ÷ the fair baseline's at the same rate
 * ({@link createLatencyFigure}), and the bare Update-with-Start of a one-local-activity workflow, Temporal's own
 * least, reported for information ({@link bareUpdateWithStartFigure}).
 *
 * With the cluster running, the same service side is measured on it in the same rounds (figure e).
 */
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import { WithStartWorkflowOperation } from '@temporalio/client';
import { BASELINE_TASK_QUEUE, initiateUpdate } from '../baseline/shared';
import type { Db } from '../../src/db/knex';
import { createPayment, paymentBody, PHONES, type Developer } from '../lib/api';
import { terminateRunning } from '../lib/clean-up';
import { waitUntil, visibilityLiteral, type BenchContext, type ServiceTarget } from '../lib/context';
import { costBetween, type Cost, type Sample } from '../lib/diagnostics';
import { runClosedLoop, runOpenLoop, steadyRate } from '../lib/load';
import type { Figure, Side, Values } from '../lib/rounds';
import { LatencyRecorder, median } from '../lib/stats';
import type { ReportedFigure } from './operator-health';

/** Connections of the load generator and Temporal client loops (the issue: 32). */
export const CREATE_CONCURRENCY = 32;

/** How long each side is driven, in milliseconds. */
export interface CreateThroughputOptions {
  durationMs: number;
}

/** The sandbox number of figure (a)'s payments: the provider never answers, so each stays open and polls. */
export const OPEN_PHONE = PHONES.neverAnswers;

/**
 * Drives `POST /v1/payments` for `durationMs` with payments from `phone` (by default {@link OPEN_PHONE}); resolves
 * with autocannon's result and when each 2xx answer came, in milliseconds since the drive started (for `steadyRate`).
 */
export async function drivePaymentCreation(
  apiUrl: string,
  developer: Developer,
  durationMs: number,
  phone: string = OPEN_PHONE,
): Promise<{ result: autocannon.Result; answeredAtMs: number[] }> {
  const answeredAtMs: number[] = [];
  const started = performance.now();
  const result = await autocannon({
    url: `${apiUrl}/v1/payments`,
    method: 'POST',
    connections: CREATE_CONCURRENCY,
    pipelining: 1,
    duration: durationMs / 1000,
    headers: { authorization: `Bearer ${developer.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(paymentBody(phone)),
    requests: [
      {
        setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'idempotency-key': randomUUID() } }),
        onResponse: (status) => {
          if (status >= 200 && status < 300) answeredAtMs.push(performance.now() - started);
        },
      },
    ],
  });
  return { result, answeredAtMs };
}

/** How many payments `merchantId` has in `db`. */
async function paymentCount(db: Db, merchantId: string): Promise<number> {
  const row = await db('payments').where({ merchant_id: merchantId }).count<{ n: string }[]>('id as n');
  return Number(row[0]?.n);
}

/** Waits until no payment of `merchantId` in `target`'s database is still pending (its workflows have caught up). */
export async function waitForPaymentsSettled(target: ServiceTarget, merchantId: string): Promise<number> {
  return waitUntil(
    `the created payments to complete (${target.name})`,
    async () => {
      const row = await target
        .db('payments')
        .where({ merchant_id: merchantId })
        .whereIn('status', ['pending', 'processing'])
        .count<{ n: string }[]>('id as n');
      return Number(row[0]?.n) === 0;
    },
    300_000,
  );
}

/**
 * Waits until every create sent to a side is recorded: `count()` (the side's payment rows) has not changed for 1 s.
 * The payments stay open, so there is no final status to wait for; a create still in flight when the drive stopped
 * inserts its row within its workflow's first task.
 * @returns the time waited, in milliseconds
 */
export async function waitForCreatesRecorded(what: string, count: () => Promise<number>): Promise<number> {
  let last = -1;
  let stableSince = 0;
  return waitUntil(
    `the creates of ${what} to be recorded`,
    async () => {
      const now = performance.now();
      const current = await count();
      if (current !== last) {
        last = current;
        stableSince = now;
      }
      return now - stableSince >= 1_000;
    },
    120_000,
    250,
  );
}

/** The visibility query of the payments' workflows of `merchantId` (the service's `MerchantId` search attribute). */
function merchantQuery(merchantId: string): string {
  return `MerchantId = ${visibilityLiteral(merchantId)}`;
}

/** The visibility query of the fair baseline's workflows. */
const FAIR_QUERY = `WorkflowType = 'fairCreateWorkflow'`;

/**
 * Ends the payments `developer` left waiting on `target` (figure a's clean-up, outside any side's cost): terminates
 * their workflows. @returns what it did, for the log
 */
export async function closeOpenPayments(target: ServiceTarget, developer: Developer): Promise<string> {
  const started = performance.now();
  const count = await terminateRunning(
    target.client,
    merchantQuery(developer.merchantId),
    'benchmark figure (a) clean-up',
  );
  return `terminated ${count} waiting payments' workflows in ${((performance.now() - started) / 1000).toFixed(1)} s`;
}

/**
 * Ends the fair baseline's waiting workflows (figure a's clean-up, outside any side's cost). @returns what it did, for
 * the log
 */
export async function closeFairCreates(context: BenchContext): Promise<string> {
  const started = performance.now();
  const count = await terminateRunning(context.stack.client, FAIR_QUERY, 'benchmark figure (a) clean-up');
  return `terminated ${count} waiting fair baseline workflows in ${((performance.now() - started) / 1000).toFixed(1)} s`;
}

/**
 * One service side: `target`'s API driven for `durationMs` with payments from `phone`, then waited on: for the
 * payments that stay open ({@link OPEN_PHONE}) until every create is recorded, for instant successes until every
 * payment completed. @returns the steady rate of 2xx answers per second (`steadyRate`, as the baseline's), and as
 * items the payments the side created: the answered ones and those still in flight when autocannon stopped, whose
 * work the side's costs include.
 */
export async function measureCreates(
  context: BenchContext,
  target: ServiceTarget,
  developer: Developer,
  durationMs: number,
  phone: string = OPEN_PHONE,
): Promise<Values> {
  const before = await paymentCount(target.db, developer.merchantId);
  const { result, answeredAtMs } = await drivePaymentCreation(target.apiUrl, developer, durationMs, phone);
  if (result.non2xx > 0 || result.errors > 0) {
    context.say(
      `(a) warning (${target.name}): ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts`,
    );
  }
  const drainMs =
    phone === OPEN_PHONE
      ? await waitForCreatesRecorded(target.name, () => paymentCount(target.db, developer.merchantId))
      : await waitForPaymentsSettled(target, developer.merchantId);
  context.say(`(a) ${target.name} caught up ${(drainMs / 1000).toFixed(1)} s after the load stopped`);
  return {
    perSecond: steadyRate(answeredAtMs, durationMs),
    items: (await paymentCount(target.db, developer.merchantId)) - before,
  };
}

/**
 * The fair baseline's side of figure (a): its API driven as the service's for `durationMs`, then waited on until
 * every create it sent is recorded. @returns the steady rate of 2xx answers per second and, as items, the payment
 * rows it inserted.
 */
export async function measureFairCreates(
  context: BenchContext,
  developer: Developer,
  durationMs: number,
): Promise<Values> {
  const before = await paymentCount(context.db, developer.merchantId);
  const { result, answeredAtMs } = await drivePaymentCreation(context.stack.fairApiUrl, developer, durationMs);
  if (result.non2xx > 0 || result.errors > 0) {
    context.say(
      `(a) warning (fair baseline): ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts`,
    );
  }
  const drainMs = await waitForCreatesRecorded('the fair baseline', () =>
    paymentCount(context.db, developer.merchantId),
  );
  context.say(`(a) fair baseline caught up ${(drainMs / 1000).toFixed(1)} s after the load stopped`);
  return {
    perSecond: steadyRate(answeredAtMs, durationMs),
    items: (await paymentCount(context.db, developer.merchantId)) - before,
  };
}

/** Waits until no workflow of `workflowType` on the dev server is running (the bare Update-with-Start's). */
export async function waitForBaselineClosed(context: BenchContext, workflowType: string): Promise<number> {
  return waitUntil(
    `the ${workflowType} runs to close`,
    async () =>
      (await context.stack.client.workflow.count(`WorkflowType = '${workflowType}' AND ExecutionStatus = 'Running'`))
        .count === 0,
    300_000,
    250,
  );
}

/**
 * Create latency at a fixed rate below capacity: `POST /v1/payments` of payments that stay open ({@link OPEN_PHONE})
 * sent open-loop at `ratePerSecond` for `durationMs` (each request on schedule whether or not the earlier ones were
 * answered), timed from sending to the 201. Waits for every create to be recorded afterwards; the payments are left
 * waiting for the figure's `afterSide` ({@link closeOpenPayments}).
 * @returns `createP50Ms`, `createP99Ms` and `createMaxMs`, the rate driven, and the count
 * @throws Error when a create fails
 */
export async function measureCreateLatency(
  context: BenchContext,
  target: ServiceTarget,
  developer: Developer,
  ratePerSecond: number,
  durationMs: number,
): Promise<Values> {
  return createLatencyAt(
    {
      name: target.name,
      apiUrl: target.apiUrl,
      recorded: () => waitForCreatesRecorded(target.name, () => paymentCount(target.db, developer.merchantId)),
    },
    developer,
    ratePerSecond,
    durationMs,
  );
}

/**
 * {@link measureCreateLatency} of any API answering `POST /v1/payments` as the service does: `target.recorded()` waits
 * until every create is recorded.
 */
async function createLatencyAt(
  target: { name: string; apiUrl: string; recorded: () => Promise<unknown> },
  developer: Developer,
  ratePerSecond: number,
  durationMs: number,
): Promise<Values> {
  const count = Math.max(20, Math.round((ratePerSecond * durationMs) / 1000));
  const latencies = new LatencyRecorder();
  const run = await runOpenLoop(ratePerSecond, count, async () => {
    const sent = performance.now();
    await createPayment(target.apiUrl, developer, paymentBody(OPEN_PHONE));
    latencies.record(performance.now() - sent);
  });
  if (run.failed > 0) throw new Error(`${run.failed} creates failed on the ${target.name}: ${String(run.firstError)}`);
  await target.recorded();
  const summary = latencies.summary();
  return {
    createP50Ms: summary.p50Ms,
    createP99Ms: summary.p99Ms,
    createMaxMs: summary.maxMs,
    ratePerSecond,
    items: summary.count,
  };
}

/** Figure (a)'s `afterSide`: ends the payments or baseline workflows `side` left waiting. */
function closeSide(
  context: BenchContext,
  side: Side,
  developers: { service: Developer; fair: Developer; cluster?: Developer },
): Promise<string> {
  if (side === 'baseline') return closeFairCreates(context);
  if (side === 'service') return closeOpenPayments(context.dev, developers.service);
  if (!context.cluster || !developers.cluster) throw new Error('(a) an extra side without the cluster');
  return closeOpenPayments(context.cluster, developers.cluster);
}

/**
 * Figure (a) for the service developer's merchant on the dev server against the fair developer's on the fair
 * baseline, and the cluster developer's on the cluster when it runs.
 */
export function createThroughputFigure(
  context: BenchContext,
  developers: { service: Developer; fair: Developer; cluster?: Developer },
  options: CreateThroughputOptions,
): Figure {
  const cluster = context.cluster;
  const clusterDeveloper = developers.cluster;
  return {
    id: 'a',
    title: 'Create throughput',
    service: `POST /v1/payments 2xx/s of payments left open (sandbox 0003), ${CREATE_CONCURRENCY} connections, ${options.durationMs / 1000} s`,
    baseline: `the fair baseline's POST /v1/payments 2xx/s (docs/capacity.md#the-fair-baseline: its simulator answers pending, its workflow waits and polls), the same drive`,
    metrics: [{ key: 'perSecond', label: 'creates', unit: '/s', target: { atLeast: 0.85 } }],

    measureService: () => measureCreates(context, context.dev, developers.service, options.durationMs),
    measureBaseline: () => measureFairCreates(context, developers.fair, options.durationMs),
    afterSide: (side) => closeSide(context, side, developers),

    ...(cluster && clusterDeveloper
      ? {
          extra: {
            name: 'cluster',
            measure: () => measureCreates(context, cluster, clusterDeveloper, options.durationMs),
          },
        }
      : {}),
  };
}

/**
 * Figure (a)'s latency part: `POST /v1/payments` sent open-loop at `ratePerSecond` (half the service's sustained
 * rate) to the service and to the fair baseline, p99 service ÷ baseline (target ≤ 1.5).
 */
export function createLatencyFigure(
  context: BenchContext,
  developers: { service: Developer; fair: Developer },
  ratePerSecond: number,
  durationMs: number,
): Figure {
  return {
    id: 'a',
    title: 'Create latency at half the sustained rate',
    service: `POST /v1/payments at ${ratePerSecond.toFixed(1)}/s (half the service's sustained rate), ${durationMs / 1000} s`,
    baseline: `the fair baseline at the same rate`,
    metrics: [
      { key: 'createP50Ms', label: 'create p50 at half rate', unit: 'ms' },
      { key: 'createP99Ms', label: 'create p99 at half rate', unit: 'ms', target: { atMost: 1.5 } },
    ],
    measureService: () => measureCreateLatency(context, context.dev, developers.service, ratePerSecond, durationMs),
    measureBaseline: () =>
      createLatencyAt(
        {
          name: 'fair baseline',
          apiUrl: context.stack.fairApiUrl,
          recorded: () =>
            waitForCreatesRecorded('the fair baseline', () => paymentCount(context.db, developers.fair.merchantId)),
        },
        developers.fair,
        ratePerSecond,
        durationMs,
      ),
    afterSide: (side) => closeSide(context, side, developers),
  };
}

/**
 * For information beside figure (a): the fair baseline ÷ the bare Update-with-Start of `updateWithStartWorkflow`
 * (one no-op local activity, nothing of ours), Temporal's own least for a create that waits for its first step.
 */
export function bareUpdateWithStartFigure(context: BenchContext, fair: Developer, durationMs: number): Figure {
  return {
    id: 'a',
    title: 'Fair baseline ÷ bare Update-with-Start',
    service: `the fair baseline's POST /v1/payments 2xx/s, ${CREATE_CONCURRENCY} connections`,
    baseline: `Update-with-Start of updateWithStartWorkflow (one no-op local activity)/s, ${CREATE_CONCURRENCY} concurrent`,
    metrics: [{ key: 'perSecond', label: 'creates (fair ÷ bare)', unit: '/s' }],
    measureService: () => measureFairCreates(context, fair, durationMs),
    afterSide: async (side) => (side === 'service' ? closeFairCreates(context) : 'nothing left open'),
    async measureBaseline(round) {
      const run = await runClosedLoop(CREATE_CONCURRENCY, { durationMs }, async (i) => {
        await context.stack.client.workflow.executeUpdateWithStart(initiateUpdate, {
          startWorkflowOperation: new WithStartWorkflowOperation('updateWithStartWorkflow', {
            taskQueue: BASELINE_TASK_QUEUE,
            workflowId: `bench-${context.runId}-create-${round}-${i}`,
            workflowIdConflictPolicy: 'USE_EXISTING',
          }),
        });
      });
      if (run.failed > 0)
        context.say(`(a) warning: ${run.failed} failed Update-with-Starts, first: ${String(run.firstError)}`);
      const perSecond = steadyRate(run.completedAtMs, durationMs);
      const drainMs = await waitForBaselineClosed(context, 'updateWithStartWorkflow');
      context.say(`(a) bare baseline caught up ${(drainMs / 1000).toFixed(1)} s after the load stopped`);
      return { perSecond, items: run.ok };
    },
  };
}

/** The processes whose CPU per settled payment figure (a) reports, by role of bench/lib/cpu.ts, and their labels. */
const SETTLED_ROLES = [
  ['api', 'API'],
  ['worker', 'worker'],
  ['postgres', 'PostgreSQL'],
  ['temporal', 'Temporal server'],
] as const;

/**
 * Beside figure (a), without a target: what a settled payment costs every process. The service's API driven for
 * `durationMs` with instant successes (sandbox `0001`, completed within the create: the completed write with its
 * postings, the `payment.completed` event), as (a)'s sides are driven, until every payment completed; its CPU per
 * payment by process (API, worker, PostgreSQL, Temporal server), each beside the median of the same for an open
 * create over (a)'s rounds (`openCosts`), so that the settlement's own cost shows as their difference.
 * @returns the figure, its cost kept in `details`
 */
export async function settledPaymentCost(
  context: BenchContext,
  developer: Developer,
  durationMs: number,
  sample: () => Promise<Sample>,
  openCosts: Cost[],
): Promise<ReportedFigure> {
  const before = await sample();
  const values = await measureCreates(context, context.dev, developer, durationMs, PHONES.instantSuccess);
  const cost = costBetween(before, await sample(), values.items);
  const openMedian = (role: string) => median(openCosts.map((open) => open.perItem.cpuMs[role] ?? 0));
  const rows = SETTLED_ROLES.map(([role, label]) => ({ role, label, settled: cost.perItem.cpuMs[role] ?? 0 }));
  const all = rows.reduce((total, row) => total + row.settled, 0);
  const openAll = SETTLED_ROLES.reduce((total, [role]) => total + openMedian(role), 0);
  return {
    id: 'a',
    title: 'CPU per settled payment (0001)',
    description: `the service driven alone with sandbox 0001 (completed within its create), ${CREATE_CONCURRENCY} connections, ${durationMs / 1000} s, until every payment completed: CPU ms per payment by process, beside an open create's (median of (a)'s rounds)`,
    reported: [
      ...rows.map((row) => ({
        key: `settledCpuMs_${row.role}`,
        label: `CPU per settled payment, ${row.label}`,
        unit: 'ms',
        note: `reported (open create ${openMedian(row.role).toFixed(1)} ms)`,
        runs: [row.settled],
        worst: row.settled,
      })),
      {
        key: 'settledCpuMs',
        label: 'CPU per settled payment, these four',
        unit: 'ms',
        note: `reported (open create ${openAll.toFixed(1)} ms)`,
        runs: [all],
        worst: all,
      },
      {
        key: 'settledPerSecond',
        label: 'settled creates at 32 connections',
        unit: '/s',
        note: 'reported',
        runs: [values.perSecond as number],
        worst: values.perSecond as number,
      },
    ],
    details: { values, cost },
  };
}
