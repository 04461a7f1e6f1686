/**
 * Figure (c), webhook deliveries per second to a local receiver answering 204, ÷ the same POSTs made by a bare
 * workflow's one activity.
 *
 * Both sides are driven alike: 32 concurrent loops start a fixed number of items, spread in turn over the same number
 * of endpoints (receiver paths), and both rates are counted the same way, from the receiver's arrivals. The service's
 * loops do what the payment activities do after writing an event (docs/payments.md#events): `startDelivery` of the
 * service's dispatch code, one delivery row and one `webhookDeliveryWorkflow` start each, here re-sending a
 * `payment.completed` event as new deliveries (as a retry would, with `retry_of`). The baseline's loops start
 * `postOnceWorkflow` on the baseline worker's deliveries queue, served by a Worker of its own, as the service's
 * deliveries run on `payments-webhooks` (docs/webhooks.md#isolation): the workflow and its one activity, which POSTs
 * the same body to the same receiver path, run on that one queue, as a delivery's workflow and its attempt do.
 *
 * Endpoints: the figure spreads each side's items over `endpoints` merchants of one endpoint each. A service endpoint
 * takes 10 requests at once and a merchant 20 (docs/webhooks.md#isolation); the baseline has no such bound. With
 * ten, neither bound is reached at the service's rate, so both sides do the same work; with one (the variant printed
 * beside it for information) every delivery queues at that one endpoint, and what it measures is the endpoint's
 * turns as much as the deliveries (docs/bench.md).
 *
 * Each side records how fast its items were started (`startedPerSecond`) beside its rate. Rates are steady rates of
 * the arrivals: the items between the 10th and 90th percentile of their times, over that span, so a side that falls
 * behind its driver shows its capacity and ramp-up and drain are left out.
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
  registerDeveloper,
  type Developer,
  type LoggedDelivery,
  type Webhook,
} from '../lib/api';
import { waitUntil, type BenchContext } from '../lib/context';
import { runClosedLoop } from '../lib/load';
import type { Figure, Metric, Values } from '../lib/rounds';
import { SERVICE_WEBHOOK_TASK_QUEUE } from '../lib/stack';
import { steadyRatePerSecond } from '../lib/stats';
import type { Receiver } from '../../test/helpers/receiver';
import { CREATE_CONCURRENCY } from './create-throughput';

/** Figure (c)'s sizes, and the metric it reports (the one-endpoint variant reports under a key of its own). */
export interface DeliveryOptions {
  /** Deliveries (service) or one-POST workflows (baseline) each side starts. */
  count: number;
  /** Endpoints the items are spread over in turn, one merchant each (1 to 16). */
  endpoints: number;
  /** The metric: its key, label and target (none for a variant printed for information). */
  metric: Metric;
  /**
   * The baseline's rate (/s) when it is not measured again: the one-endpoint variant takes the ten-endpoint baseline's
   * of the same run, since the baseline has no per-endpoint bound (its POSTs to one path or ten are the same work).
   */
  baselineRate?: () => number;
}

/** One endpoint of the figure: its merchant, its receiver path, its webhook and the delivery re-sent to it. */
interface Endpoint {
  developer: Developer;
  path: string;
  webhook: Webhook;
  first: LoggedDelivery;
}

/**
 * Figure (c) with `options.endpoints` merchants registered on the dev stack, each with one endpoint at `receiver`.
 * @throws Error (from `prepare`) when a merchant's first `payment.completed` delivery does not arrive within 60 s
 */
export function webhookDeliveriesFigure(context: BenchContext, receiver: Receiver, options: DeliveryOptions): Figure {
  const base = `/deliveries-${randomBytes(4).toString('hex')}`;
  const paths = Array.from({ length: options.endpoints }, (_, i) => `${base}-${i}`);
  const ours = new Set(paths);
  const endpoints: Endpoint[] = [];
  /** The body of the first delivery, which the baseline POSTs: the same bytes a delivery carries. */
  let body = '';
  const dispatch: DispatchDeps = {
    db: context.db,
    temporal: context.stack.client,
    taskQueue: SERVICE_WEBHOOK_TASK_QUEUE,
  };
  const key = options.metric.key;

  const arrivals = () => receiver.requests.filter((request) => ours.has(request.path));
  const spread = options.endpoints === 1 ? 'to one endpoint' : `spread over ${options.endpoints} endpoints`;

  /** Waits for the side's `started` items to arrive and answers their steady rate and how fast they were started. */
  async function drained(
    side: string,
    before: number,
    run: { ok: number; elapsedMs: number },
    stuck: () => Promise<boolean>,
  ): Promise<Values> {
    let lastLook = 0;
    const drainMs = await waitUntil(
      `${run.ok} ${side} deliveries`,
      async () => {
        if (arrivals().length - before >= run.ok) return true;
        if (performance.now() - lastLook < 2_000) return false;
        lastLook = performance.now();
        return stuck();
      },
      300_000,
    );
    const missing = run.ok - (arrivals().length - before);
    if (missing > 0)
      context.say(
        `(c) warning: ${missing} of ${run.ok} ${side} deliveries' first attempts failed and are retried later; the rate counts those that arrived`,
      );
    const startedPerSecond = run.ok / (run.elapsedMs / 1000);
    context.say(
      `(c) ${side}: ${run.ok} started ${spread} in ${(run.elapsedMs / 1000).toFixed(1)} s (${startedPerSecond.toFixed(0)}/s), the last arrived (or failed) ${(drainMs / 1000).toFixed(1)} s after`,
    );
    return {
      [key]: steadyRatePerSecond(
        arrivals()
          .slice(before)
          .map((request) => request.receivedAt),
      ),
      startedPerSecond,
      items: run.ok,
    };
  }

  return {
    id: 'c',
    title: options.endpoints === 1 ? 'Webhook deliveries, one busy endpoint' : 'Webhook deliveries',
    service: `deliveries/s received (204), started by startDelivery (the event dispatch), ${CREATE_CONCURRENCY} concurrent, ${options.count} per side ${spread} (one merchant each)`,
    baseline: options.baselineRate
      ? 'the same baseline spread over the endpoints, its median of this run (not measured again: no per-endpoint bound)'
      : `POSTs/s received of postOnceWorkflow (one activity POSTing the delivery's body) on the deliveries' queue and Worker, started by ${CREATE_CONCURRENCY} concurrent clients, ${options.count} per side ${spread}`,
    metrics: [options.metric],

    async prepare() {
      for (const [index, path] of paths.entries()) {
        const developer = await registerDeveloper(context.stack.apiUrl, `deliver-${index}`);
        const webhook = await createWebhook(context.stack.apiUrl, developer, receiver.origin + path, [
          'payment.completed',
        ]);
        await createPayment(context.stack.apiUrl, developer, paymentBody(PHONES.instantSuccess));
        let first: LoggedDelivery | undefined;
        await waitUntil(
          `the first payment.completed delivery to ${path}`,
          async () => receiver.requests.some((request) => request.path === path),
          60_000,
        );
        await waitUntil(
          'the first delivery in the log',
          async () => (first = await latestDelivery(context.stack.apiUrl, developer, webhook)) !== undefined,
          30_000,
          250,
        );
        endpoints.push({ developer, path, webhook, first: first as LoggedDelivery });
      }
      body = receiver.requests.find((request) => request.path === paths[0])?.body ?? '';
      return `re-sending each merchant's first payment.completed event to its endpoint, ${options.endpoints} endpoint(s); the baseline POSTs a body of ${Buffer.byteLength(body)} bytes`;
    },

    async measureService() {
      const before = arrivals().length;
      const ids: string[] = [];
      const run = await runClosedLoop(CREATE_CONCURRENCY, { count: options.count }, async (i) => {
        const { developer, webhook, first } = endpoints[i % endpoints.length] as Endpoint;
        const event = {
          id: first.event_id,
          type: first.event,
          merchantId: developer.merchantId,
          environment: 'sandbox' as const,
        };
        const id = newId(ID_PREFIXES.delivery);
        await startDelivery(
          dispatch,
          pendingDelivery(
            event,
            webhook.id,
            { id, workflowId: webhookRetryWorkflowId(event.id, webhook.id, id), retryOf: first.id },
            new Date(),
          ),
        );
        ids.push(id);
      });
      if (run.failed > 0) context.say(`(c) warning: ${run.failed} failed starts, first: ${String(run.firstError)}`);
      // Done when every delivery arrived, or when every one made its first attempt: one whose attempt failed (a
      // receiver too slow for the attempt's 10 s on a loaded machine) is tried again only 5 minutes later
      // (docs/webhooks.md#retries), which the figure does not wait for.
      return drained('service', before, run, async () => {
        const [row] = await context
          .db('webhook_deliveries')
          .whereIn('id', ids)
          .where('attempt_count', 0)
          .count<{ count: string }[]>('* as count');
        return Number(row?.count) === 0;
      });
    },

    async measureBaseline(round) {
      if (options.baselineRate) return { [key]: options.baselineRate(), items: 0 };
      const before = arrivals().length;
      const prefix = `bench-${context.runId}-deliver-${options.endpoints}-${round}-`;
      const run = await runClosedLoop(CREATE_CONCURRENCY, { count: options.count }, async (i) => {
        await context.stack.client.workflow.start('postOnceWorkflow', {
          taskQueue: BASELINE_DELIVERY_TASK_QUEUE,
          workflowId: `${prefix}${i}`,
          args: [receiver.origin + (paths[i % paths.length] as string), body],
        });
      });
      if (run.failed > 0) context.say(`(c) warning: ${run.failed} failed starts, first: ${String(run.firstError)}`);
      // The activity retries until the receiver answers (the receiver always answers 204): every POST arrives.
      return drained('baseline', before, run, async () => false);
    },
  };
}
