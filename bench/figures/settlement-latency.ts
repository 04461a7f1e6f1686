/**
 * Figure (b), settlement latency: from sending `POST /v1/payments` with the instant-success number
 * (+250788000001, RWF mobile money) to the `payment.completed` webhook arriving at a local receiver,
 * p50 and p99, ÷ the same for a bare workflow with as many no-op activities, started by a client
 * and timed to its result.
 *
 * Both sides are driven open-loop at the same rate (a request leaves on schedule whether or not the
 * earlier ones were answered), so a slow answer cannot hide the delay of those behind it. The
 * number of activities is counted, not assumed: those in a settled payment's workflow history
 * (regular activities and local-activity markers) plus the delivery's attempt, which makes the POST.
 */
import { randomBytes } from 'node:crypto';
import { temporal as proto } from '@temporalio/proto';
import { BASELINE_TASK_QUEUE } from '../baseline/shared';
import { createPayment, createWebhook, paymentBody, PHONES, type Developer } from '../lib/api';
import { waitUntil, type BenchContext } from '../lib/context';
import { runOpenLoop } from '../lib/load';
import type { Figure } from '../lib/rounds';
import { LatencyRecorder } from '../lib/stats';
import type { Receiver } from '../../test/helpers/receiver';

const EventType = proto.api.enums.v1.EventType;

/** Rate and size of each side's run. */
export interface SettlementOptions {
  ratePerSecond: number;
  count: number;
}

/** Activities a workflow history ran: scheduled activities plus local activities' markers. */
export function activitiesIn(history: proto.api.history.v1.IHistory): number {
  return (history.events ?? []).filter(
    (event) =>
      event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED ||
      (event.eventType === EventType.EVENT_TYPE_MARKER_RECORDED && event.markerRecordedEventAttributes?.markerName === 'core_local_activity'),
  ).length;
}

/** The bench id a delivered payment event carries in its metadata, if any. */
function benchIdOf(body: string): { event?: string; benchId?: string } {
  const payload = JSON.parse(body) as { event?: string; data?: { metadata?: { bench_id?: string } } };
  return { event: payload.event, benchId: payload.data?.metadata?.bench_id };
}

/** Figure (b) for `developer`'s merchant, with deliveries to `receiver`. */
export function settlementLatencyFigure(context: BenchContext, developer: Developer, receiver: Receiver, options: SettlementOptions): Figure {
  const path = `/settlement-${randomBytes(4).toString('hex')}`;
  let activities = 0;

  /** Sends payments at the figure's rate; resolves with their latencies to the `payment.completed` delivery. */
  async function settle(count: number, ratePerSecond: number): Promise<LatencyRecorder> {
    const sentAt = new Map<string, number>();
    const tag = randomBytes(4).toString('hex');
    const firstArrival = receiver.requests.length;
    const run = await runOpenLoop(ratePerSecond, count, async (i) => {
      const benchId = `${tag}-${i}`;
      sentAt.set(benchId, Date.now());
      await createPayment(context.stack.apiUrl, developer, paymentBody(PHONES.instantSuccess, benchId));
    });
    if (run.failed > 0) throw new Error(`(b) ${run.failed} payments were not created: ${String(run.firstError)}`);
    const latencies = new LatencyRecorder();
    const seen = new Set<string>();
    await waitUntil(
      `${count} payment.completed deliveries`,
      async () => {
        for (const request of receiver.requests.slice(firstArrival)) {
          if (request.path !== path) continue;
          const { event, benchId } = benchIdOf(request.body);
          if (event !== 'payment.completed' || !benchId || seen.has(benchId) || !sentAt.has(benchId)) continue;
          seen.add(benchId);
          latencies.record(request.receivedAt - (sentAt.get(benchId) as number));
        }
        return seen.size >= count;
      },
      120_000,
      100,
    );
    return latencies;
  }

  /** Starts bare workflows of `activities` no-op activities at the figure's rate; resolves with their latencies to the result. */
  async function bare(count: number, ratePerSecond: number, round: number): Promise<LatencyRecorder> {
    const latencies = new LatencyRecorder();
    const run = await runOpenLoop(ratePerSecond, count, async (i) => {
      const started = Date.now();
      await context.stack.client.workflow.execute('noopActivitiesWorkflow', {
        taskQueue: BASELINE_TASK_QUEUE,
        workflowId: `bench-${context.runId}-settle-${round}-${i}`,
        args: [activities],
      });
      latencies.record(Date.now() - started);
    });
    if (run.failed > 0) throw new Error(`(b) ${run.failed} baseline workflows failed: ${String(run.firstError)}`);
    return latencies;
  }

  return {
    id: 'b',
    title: 'Settlement latency',
    service: `POST /v1/payments (0001) → payment.completed webhook received, ${options.count} at ${options.ratePerSecond}/s`,
    baseline: 'client start → result of noopActivitiesWorkflow with as many activities, same rate',
    metrics: [
      { key: 'p50Ms', label: 'p50', unit: 'ms', target: { atMost: 1.2 } },
      { key: 'p99Ms', label: 'p99', unit: 'ms', target: { atMost: 1.5 } },
    ],

    async prepare() {
      await createWebhook(context.stack.apiUrl, developer, receiver.origin + path, ['payment.completed']);
      // Warm-up, and a settled payment whose history says how many activities the path runs.
      await settle(20, options.ratePerSecond);
      const [payment] = await context.db('payments').where({ merchant_id: developer.merchantId, status: 'completed' }).limit(1).select('id');
      const history = await context.stack.client.workflow.getHandle(`payment:${(payment as { id: string }).id}`).fetchHistory();
      activities = activitiesIn(history) + 1; // + the delivery's attempt, which makes the POST
      await bare(20, options.ratePerSecond, 0);
      return `${activities} activities on the path (${activities - 1} in the payment workflow, 1 delivery attempt)`;
    },

    async measureService() {
      const latencies = (await settle(options.count, options.ratePerSecond)).summary();
      return { p50Ms: latencies.p50Ms, p99Ms: latencies.p99Ms, maxMs: latencies.maxMs, activities, items: latencies.count };
    },

    async measureBaseline(round) {
      const latencies = (await bare(options.count, options.ratePerSecond, round)).summary();
      return { p50Ms: latencies.p50Ms, p99Ms: latencies.p99Ms, maxMs: latencies.maxMs, activities, items: latencies.count };
    },
  };
}
