/**
 * Figure (a), create throughput: sustained `POST /v1/payments` 2xx answers per second at a fixed
 * concurrency (no pipelining, a unique idempotency key per request, instant-success numbers),
 * measured with autocannon, ÷ the same of the fair baseline (bench/baseline/fair-api.ts,
 * docs/capacity.md#the-fair-baseline): the least a create that waits for its provider and survives a crash costs
 * with this stack (JSON body, one key SELECT, one idempotency INSERT, Update-with-Start of a workflow whose update
 * runs one local activity that inserts the payment row and asks an in-process simulator). Both sides are driven by
 * the same autocannon settings and counted alike, by the answers that came after the ramp-up (2 s) and before the
 * drive ended (`steadyRate` in bench/lib/load.ts), and cost per payment created (the rows the side inserted).
 * After each side the figure waits until the work it caused is done (every payment completed, every
 * baseline workflow closed), so that no side runs on a backlog another left.
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
import { waitUntil, type BenchContext, type ServiceTarget } from '../lib/context';
import { runClosedLoop, runOpenLoop, steadyRate } from '../lib/load';
import type { Figure, Values } from '../lib/rounds';
import { LatencyRecorder } from '../lib/stats';

/** Connections of the load generator and Temporal client loops (the issue: 32). */
export const CREATE_CONCURRENCY = 32;

/** How long each side is driven, in milliseconds. */
export interface CreateThroughputOptions {
  durationMs: number;
}

/**
 * Drives `POST /v1/payments` for `durationMs`; resolves with autocannon's result and when each 2xx
 * answer came, in milliseconds since the drive started (for `steadyRate`).
 */
export async function drivePaymentCreation(
  apiUrl: string,
  developer: Developer,
  durationMs: number,
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
    body: JSON.stringify(paymentBody(PHONES.instantSuccess)),
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

/** Waits until no workflow of `workflowType` on the dev server is running. */
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
 * One service side: `target`'s API driven for `durationMs`, then waited on until every payment it
 * created completed. @returns the steady rate of 2xx answers per second (`steadyRate`, as the
 * baseline's), and as items the payments the side created: the answered ones and those still in
 * flight when autocannon stopped, whose work the side's costs include.
 */
export async function measureCreates(
  context: BenchContext,
  target: ServiceTarget,
  developer: Developer,
  durationMs: number,
): Promise<Values> {
  const before = await paymentCount(target.db, developer.merchantId);
  const { result, answeredAtMs } = await drivePaymentCreation(target.apiUrl, developer, durationMs);
  if (result.non2xx > 0 || result.errors > 0) {
    context.say(
      `(a) warning (${target.name}): ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts`,
    );
  }
  const drainMs = await waitForPaymentsSettled(target, developer.merchantId);
  context.say(`(a) ${target.name} caught up ${(drainMs / 1000).toFixed(1)} s after the load stopped`);
  return {
    perSecond: steadyRate(answeredAtMs, durationMs),
    items: (await paymentCount(target.db, developer.merchantId)) - before,
  };
}

/**
 * The fair baseline's side of figure (a): its API driven as the service's for `durationMs`, then waited on until
 * every `fairCreateWorkflow` closed. @returns the steady rate of 2xx answers per second and, as items, the payment
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
  const drainMs = await waitForBaselineClosed(context, 'fairCreateWorkflow');
  context.say(`(a) fair baseline caught up ${(drainMs / 1000).toFixed(1)} s after the load stopped`);
  return {
    perSecond: steadyRate(answeredAtMs, durationMs),
    items: (await paymentCount(context.db, developer.merchantId)) - before,
  };
}

/**
 * Create latency at a fixed rate below capacity: `POST /v1/payments` sent open-loop at
 * `ratePerSecond` for `durationMs` (each request on schedule whether or not the earlier ones were
 * answered), timed from sending to the 201. Waits for the payments to complete afterwards.
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
    { name: target.name, apiUrl: target.apiUrl, settled: () => waitForPaymentsSettled(target, developer.merchantId) },
    developer,
    ratePerSecond,
    durationMs,
  );
}

/**
 * {@link measureCreateLatency} of any API answering `POST /v1/payments` as the service does: `target.settled()` waits
 * for the work the creates caused.
 */
async function createLatencyAt(
  target: { name: string; apiUrl: string; settled: () => Promise<unknown> },
  developer: Developer,
  ratePerSecond: number,
  durationMs: number,
): Promise<Values> {
  const count = Math.max(20, Math.round((ratePerSecond * durationMs) / 1000));
  const latencies = new LatencyRecorder();
  const run = await runOpenLoop(ratePerSecond, count, async () => {
    const sent = performance.now();
    await createPayment(target.apiUrl, developer, paymentBody(PHONES.instantSuccess));
    latencies.record(performance.now() - sent);
  });
  if (run.failed > 0) throw new Error(`${run.failed} creates failed on the ${target.name}: ${String(run.firstError)}`);
  await target.settled();
  const summary = latencies.summary();
  return {
    createP50Ms: summary.p50Ms,
    createP99Ms: summary.p99Ms,
    createMaxMs: summary.maxMs,
    ratePerSecond,
    items: summary.count,
  };
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
    service: `POST /v1/payments 2xx/s, ${CREATE_CONCURRENCY} connections, ${options.durationMs / 1000} s`,
    baseline: `the fair baseline's POST /v1/payments 2xx/s (docs/capacity.md#the-fair-baseline), the same drive`,
    metrics: [{ key: 'perSecond', label: 'creates', unit: '/s', target: { atLeast: 0.85 } }],

    measureService: () => measureCreates(context, context.dev, developers.service, options.durationMs),
    measureBaseline: () => measureFairCreates(context, developers.fair, options.durationMs),

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
          settled: () => waitForBaselineClosed(context, 'fairCreateWorkflow'),
        },
        developers.fair,
        ratePerSecond,
        durationMs,
      ),
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
