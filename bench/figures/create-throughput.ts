/**
 * Figure (a), create throughput: sustained `POST /v1/payments` 2xx answers per second at a fixed
 * concurrency (no pipelining, a unique idempotency key per request, instant-success numbers),
 * measured with autocannon, ÷ raw `client.workflow.start` of an empty workflow per second at the
 * same concurrency on the same server. After each side the figure waits until the work it caused
 * is done (every payment completed, every empty workflow closed), so that neither side runs on a
 * backlog the other left.
 */
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import { BASELINE_TASK_QUEUE } from '../baseline/shared';
import { paymentBody, PHONES, type Developer } from '../lib/api';
import { waitUntil, type BenchContext } from '../lib/context';
import { runClosedLoop } from '../lib/load';
import type { Figure } from '../lib/rounds';

/** Connections of the load generator and Temporal client loops (the issue: 32). */
export const CREATE_CONCURRENCY = 32;

/** How long each side is driven, in milliseconds. */
export interface CreateThroughputOptions {
  durationMs: number;
}

/** Drives `POST /v1/payments` for `durationMs`; resolves with autocannon's result. */
export function drivePaymentCreation(apiUrl: string, developer: Developer, durationMs: number): Promise<autocannon.Result> {
  return autocannon({
    url: `${apiUrl}/v1/payments`,
    method: 'POST',
    connections: CREATE_CONCURRENCY,
    pipelining: 1,
    duration: durationMs / 1000,
    headers: { authorization: `Bearer ${developer.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(paymentBody(PHONES.instantSuccess)),
    requests: [{ setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'idempotency-key': randomUUID() } }) }],
  });
}

/** Waits until no payment of `merchantId` is still pending (the workflows have caught up). */
export async function waitForPaymentsSettled(context: BenchContext, merchantId: string): Promise<number> {
  return waitUntil(
    'the created payments to complete',
    async () => {
      const row = await context.db('payments').where({ merchant_id: merchantId }).whereIn('status', ['pending', 'processing']).count<{ n: string }[]>('id as n');
      return Number(row[0]?.n) === 0;
    },
    300_000,
  );
}

/** Waits until no workflow of `workflowType` on the baseline task queue is running. */
export async function waitForBaselineClosed(context: BenchContext, workflowType: string): Promise<number> {
  return waitUntil(
    `the ${workflowType} runs to close`,
    async () => (await context.stack.client.workflow.count(`WorkflowType = '${workflowType}' AND ExecutionStatus = 'Running'`)).count === 0,
    300_000,
    250,
  );
}

/** Figure (a) for `developer`'s merchant. */
export function createThroughputFigure(context: BenchContext, developer: Developer, options: CreateThroughputOptions): Figure {
  return {
    id: 'a',
    title: 'Create throughput',
    service: `POST /v1/payments 2xx/s, ${CREATE_CONCURRENCY} connections, ${options.durationMs / 1000} s`,
    baseline: `client.workflow.start(emptyWorkflow)/s, ${CREATE_CONCURRENCY} concurrent`,
    metrics: [{ key: 'perSecond', label: 'creates', unit: '/s', target: { atLeast: 0.9 } }],

    async measureService() {
      const result = await drivePaymentCreation(context.stack.apiUrl, developer, options.durationMs);
      if (result.non2xx > 0 || result.errors > 0) {
        context.say(`(a) warning: ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts`);
      }
      const perSecond = result['2xx'] / result.duration;
      const drainMs = await waitForPaymentsSettled(context, developer.merchantId);
      context.say(`(a) service caught up ${(drainMs / 1000).toFixed(1)} s after the load stopped`);
      return { perSecond, items: result['2xx'] };
    },

    async measureBaseline(round) {
      const run = await runClosedLoop(CREATE_CONCURRENCY, { durationMs: options.durationMs }, async (i) => {
        await context.stack.client.workflow.start('emptyWorkflow', { taskQueue: BASELINE_TASK_QUEUE, workflowId: `bench-${context.runId}-empty-${round}-${i}` });
      });
      if (run.failed > 0) context.say(`(a) warning: ${run.failed} failed starts, first: ${String(run.firstError)}`);
      const perSecond = run.ok / (run.elapsedMs / 1000);
      const drainMs = await waitForBaselineClosed(context, 'emptyWorkflow');
      context.say(`(a) baseline caught up ${(drainMs / 1000).toFixed(1)} s after the load stopped`);
      return { perSecond, items: run.ok };
    },
  };
}
