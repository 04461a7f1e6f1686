/**
 * Figure (c), webhook deliveries per second to a local receiver answering 204, ÷ completions per
 * second of a workflow with one no-op activity.
 *
 * Both sides are driven alike: 32 concurrent loops start a fixed number of items. The service's loops do
 * what the payment activities do after writing an event (docs/payments.md#events): `startDelivery` of the service's
 * dispatch code, one delivery row and one `webhookDeliveryWorkflow` start each, here re-sending the
 * first `payment.completed` event as new deliveries (as a retry would, with `retry_of`). The
 * baseline's loops start `noopActivitiesWorkflow(1)` on the baseline worker's deliveries queue, served by a
 * Worker of its own, as the service's deliveries run on `payments-webhooks` (docs/webhooks.md#isolation):
 * the workflow and its activity run on that one queue, as a delivery's workflow and its attempt do.
 * (Until this session the service side was
 * driven through `POST …/deliveries/{id}/retry`, which put a rare manual endpoint's HTTP,
 * authentication and rate-limit cost, figure (a)'s subject, into the delivery rate.)
 * Both rates are steady rates of the arrivals (receiver) or closes (visibility): the items between
 * the 10th and 90th percentile of their times, over that span, so a side that falls behind its
 * driver shows its capacity and ramp-up and drain are left out.
 */
import { randomBytes } from 'node:crypto';
import { BASELINE_DELIVERY_TASK_QUEUE } from '../baseline/shared';
import { ID_PREFIXES } from '../../src/domain/ids';
import { newId } from '../../src/lib/ids';
import { pendingDelivery, startDelivery, type DispatchDeps } from '../../src/activities/webhook-dispatch';
import { webhookRetryWorkflowId } from '../../src/workflows/webhook-messages';
import {
  createPayment,
  createWebhook,
  latestDelivery,
  paymentBody,
  PHONES,
  type Developer,
  type LoggedDelivery,
  type Webhook,
} from '../lib/api';
import { waitUntil, type BenchContext } from '../lib/context';
import { runClosedLoop } from '../lib/load';
import type { Figure } from '../lib/rounds';
import { SERVICE_WEBHOOK_TASK_QUEUE } from '../lib/stack';
import { steadyRatePerSecond } from '../lib/stats';
import type { Receiver } from '../../test/helpers/receiver';
import { CREATE_CONCURRENCY } from './create-throughput';

/** How many deliveries (service) or one-activity workflows (baseline) each side starts. */
export interface DeliveryOptions {
  count: number;
}

/** Figure (c) for `developer`'s merchant, with deliveries to `receiver`. */
export function webhookDeliveriesFigure(
  context: BenchContext,
  developer: Developer,
  receiver: Receiver,
  options: DeliveryOptions,
): Figure {
  const path = `/deliveries-${randomBytes(4).toString('hex')}`;
  let webhook: Webhook | undefined;
  let first: LoggedDelivery | undefined;
  const dispatch: DispatchDeps = {
    db: context.db,
    temporal: context.stack.client,
    taskQueue: SERVICE_WEBHOOK_TASK_QUEUE,
  };

  const arrivals = () => receiver.requests.filter((request) => request.path === path);

  return {
    id: 'c',
    title: 'Webhook deliveries',
    service: `deliveries/s received (204), started by startDelivery (the event dispatch), ${CREATE_CONCURRENCY} concurrent, ${options.count} per side`,
    baseline: `noopActivitiesWorkflow(1) completions/s on the deliveries' queue and Worker, started by ${CREATE_CONCURRENCY} concurrent clients, ${options.count} per side`,
    metrics: [{ key: 'perSecond', label: 'deliveries', unit: '/s', target: { atLeast: 0.8 } }],

    async prepare() {
      webhook = await createWebhook(context.stack.apiUrl, developer, receiver.origin + path, ['payment.completed']);
      await createPayment(context.stack.apiUrl, developer, paymentBody(PHONES.instantSuccess));
      await waitUntil('the first payment.completed delivery', async () => arrivals().length >= 1, 60_000);
      await waitUntil(
        'the first delivery in the log',
        async () => (first = await latestDelivery(context.stack.apiUrl, developer, webhook as Webhook)) !== undefined,
        30_000,
        250,
      );
      return `re-sending event ${first?.event_id} (delivery ${first?.id}) to webhook ${webhook.id}`;
    },

    async measureService() {
      const before = arrivals().length;
      const original = first as LoggedDelivery;
      const event = {
        id: original.event_id,
        type: original.event,
        merchantId: developer.merchantId,
        environment: 'sandbox' as const,
      };
      const webhookId = (webhook as Webhook).id;
      const ids: string[] = [];
      const run = await runClosedLoop(CREATE_CONCURRENCY, { count: options.count }, async () => {
        const id = newId(ID_PREFIXES.delivery);
        await startDelivery(
          dispatch,
          pendingDelivery(
            event,
            webhookId,
            { id, workflowId: webhookRetryWorkflowId(event.id, webhookId, id), retryOf: original.id },
            new Date(),
          ),
        );
        ids.push(id);
      });
      if (run.failed > 0) context.say(`(c) warning: ${run.failed} failed starts, first: ${String(run.firstError)}`);
      const started = run.ok;
      // Done when every delivery arrived, or when every one made its first attempt: one whose attempt failed (a
      // receiver too slow for the attempt's 10 s on a loaded machine) is tried again only 5 minutes later
      // (docs/webhooks.md#retries), which the figure does not wait for.
      let lastLook = 0;
      const drainMs = await waitUntil(
        `${started} deliveries`,
        async () => {
          if (arrivals().length - before >= started) return true;
          if (performance.now() - lastLook < 2_000) return false;
          lastLook = performance.now();
          const [row] = await context
            .db('webhook_deliveries')
            .whereIn('id', ids)
            .where('attempt_count', 0)
            .count<{ count: string }[]>('* as count');
          return Number(row?.count) === 0;
        },
        300_000,
      );
      const missing = started - (arrivals().length - before);
      if (missing > 0)
        context.say(
          `(c) warning: ${missing} of ${started} deliveries' first attempts failed and are retried in 5 minutes; the rate counts those that arrived`,
        );
      context.say(
        `(c) service: ${started} deliveries started in ${(run.elapsedMs / 1000).toFixed(1)} s, the last arrived (or failed) ${(drainMs / 1000).toFixed(1)} s after`,
      );
      return {
        perSecond: steadyRatePerSecond(
          arrivals()
            .slice(before)
            .map((request) => request.receivedAt),
        ),
        items: started,
      };
    },

    async measureBaseline(round) {
      const since = new Date();
      const prefix = `bench-${context.runId}-deliver-${round}-`;
      const run = await runClosedLoop(CREATE_CONCURRENCY, { count: options.count }, async (i) => {
        await context.stack.client.workflow.start('noopActivitiesWorkflow', {
          taskQueue: BASELINE_DELIVERY_TASK_QUEUE,
          workflowId: `${prefix}${i}`,
          args: [1],
        });
      });
      if (run.failed > 0) context.say(`(c) warning: ${run.failed} failed starts, first: ${String(run.firstError)}`);
      const query = `WorkflowType = 'noopActivitiesWorkflow' AND StartTime >= '${since.toISOString()}'`;
      const drainMs = await waitUntil(
        `${run.ok} one-activity workflows to close`,
        async () =>
          (await context.stack.client.workflow.count(`${query} AND ExecutionStatus = 'Completed'`)).count >= run.ok,
        300_000,
        250,
      );
      const closes: number[] = [];
      for await (const execution of context.stack.client.workflow.list({
        query: `${query} AND ExecutionStatus = 'Completed'`,
      })) {
        if (execution.workflowId.startsWith(prefix) && execution.closeTime) closes.push(execution.closeTime.getTime());
      }
      context.say(
        `(c) baseline: ${run.ok} workflows started in ${(run.elapsedMs / 1000).toFixed(1)} s, the last closed ${(drainMs / 1000).toFixed(1)} s after`,
      );
      return { perSecond: steadyRatePerSecond(closes), items: run.ok };
    },
  };
}
