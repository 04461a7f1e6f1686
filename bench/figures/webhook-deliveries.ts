/**
 * Figure (c), webhook deliveries per second to a local receiver answering 204, ÷ completions per
 * second of a workflow with one no-op activity.
 *
 * Deliveries are made through the HTTP API only: one payment's `payment.completed` delivery is
 * resent with `POST /v1/developer/webhooks/{id}/deliveries/{delivery_id}/retry` (D27) by autocannon
 * at the fixed concurrency for the run's duration; each answer started one delivery workflow.
 * The baseline's client starts `noopActivitiesWorkflow(1)` at the same concurrency for as long.
 * Both rates are steady rates of the arrivals (receiver) or closes (visibility): the items between
 * the 10th and 90th percentile of their times, over that span, so a side that falls behind its
 * driver shows its capacity and ramp-up and drain are left out.
 */
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { BASELINE_TASK_QUEUE } from '../baseline/shared';
import { createPayment, createWebhook, latestDeliveryId, paymentBody, PHONES, type Developer, type Webhook } from '../lib/api';
import { waitUntil, type BenchContext } from '../lib/context';
import { runClosedLoop } from '../lib/load';
import type { Figure } from '../lib/rounds';
import { steadyRatePerSecond } from '../lib/stats';
import type { Receiver } from '../../test/helpers/receiver';
import { CREATE_CONCURRENCY } from './create-throughput';

/** How long each side is driven, in milliseconds. */
export interface DeliveryOptions {
  durationMs: number;
}

/** Figure (c) for `developer`'s merchant, with deliveries to `receiver`. */
export function webhookDeliveriesFigure(context: BenchContext, developer: Developer, receiver: Receiver, options: DeliveryOptions): Figure {
  const path = `/deliveries-${randomBytes(4).toString('hex')}`;
  let webhook: Webhook | undefined;
  let deliveryId: string | undefined;

  const arrivals = () => receiver.requests.filter((request) => request.path === path);

  return {
    id: 'c',
    title: 'Webhook deliveries',
    service: `deliveries/s received (204), started by POST …/deliveries/{id}/retry, ${CREATE_CONCURRENCY} connections, ${options.durationMs / 1000} s`,
    baseline: `noopActivitiesWorkflow(1) completions/s, started by ${CREATE_CONCURRENCY} concurrent clients`,
    metrics: [{ key: 'perSecond', label: 'deliveries', unit: '/s', target: { atLeast: 0.8 } }],

    async prepare() {
      webhook = await createWebhook(context.stack.apiUrl, developer, receiver.origin + path, ['payment.completed']);
      await createPayment(context.stack.apiUrl, developer, paymentBody(PHONES.instantSuccess));
      await waitUntil('the first payment.completed delivery', async () => arrivals().length >= 1, 60_000);
      await waitUntil('the first delivery in the log', async () => (deliveryId = await latestDeliveryId(context.stack.apiUrl, developer, webhook as Webhook)) !== undefined, 30_000, 250);
      return `resending delivery ${deliveryId} of webhook ${webhook.id}`;
    },

    async measureService() {
      const before = arrivals().length;
      const result = await autocannon({
        url: `${context.stack.apiUrl}/v1/developer/webhooks/${(webhook as Webhook).id}/deliveries/${deliveryId}/retry`,
        method: 'POST',
        connections: CREATE_CONCURRENCY,
        pipelining: 1,
        duration: options.durationMs / 1000,
        headers: { authorization: `Bearer ${developer.key}`, 'content-type': 'application/json' },
        body: '{}',
      });
      if (result.non2xx > 0 || result.errors > 0) context.say(`(c) warning: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
      const started = result['2xx'];
      const drainMs = await waitUntil(`${started} deliveries`, async () => arrivals().length - before >= started, 300_000);
      context.say(`(c) service: ${started} deliveries started in ${result.duration.toFixed(1)} s, the last arrived ${(drainMs / 1000).toFixed(1)} s after`);
      return { perSecond: steadyRatePerSecond(arrivals().slice(before).map((request) => request.receivedAt)), items: started };
    },

    async measureBaseline(round) {
      const since = new Date();
      const prefix = `bench-${context.runId}-deliver-${round}-`;
      const run = await runClosedLoop(CREATE_CONCURRENCY, { durationMs: options.durationMs }, async (i) => {
        await context.stack.client.workflow.start('noopActivitiesWorkflow', { taskQueue: BASELINE_TASK_QUEUE, workflowId: `${prefix}${i}`, args: [1] });
      });
      if (run.failed > 0) context.say(`(c) warning: ${run.failed} failed starts, first: ${String(run.firstError)}`);
      const query = `WorkflowType = 'noopActivitiesWorkflow' AND StartTime >= '${since.toISOString()}'`;
      const drainMs = await waitUntil(
        `${run.ok} one-activity workflows to close`,
        async () => (await context.stack.client.workflow.count(`${query} AND ExecutionStatus = 'Completed'`)).count >= run.ok,
        300_000,
        250,
      );
      const closes: number[] = [];
      for await (const execution of context.stack.client.workflow.list({ query: `${query} AND ExecutionStatus = 'Completed'` })) {
        if (execution.workflowId.startsWith(prefix) && execution.closeTime) closes.push(execution.closeTime.getTime());
      }
      context.say(`(c) baseline: ${run.ok} workflows started in ${(run.elapsedMs / 1000).toFixed(1)} s, the last closed ${(drainMs / 1000).toFixed(1)} s after`);
      return { perSecond: steadyRatePerSecond(closes), items: run.ok };
    },
  };
}
