/**
 * Figure (b), settlement latency: from sending `POST /v1/payments` with the instant-success number
 * (+250788000001, RWF mobile money) to the `payment.completed` webhook arriving at a local receiver,
 * p50 and p99, ÷ the same for a bare workflow with as many no-op activities, started by a client
 * and timed to its result, whose last activity (the delivery) runs on the deliveries' task queue of the
 * baseline worker's second Worker (`settlementBaselineWorkflow`), as the service's delivery runs on its own queue
 * and Worker (docs/webhooks.md#isolation). Both sides run on the same Temporal server, so under the same dynamic
 * configuration (eager activity execution included: it serves an activity on its workflow's own queue only).
 *
 * Both sides are driven open-loop at the same rate (a request leaves on schedule whether or not the
 * earlier ones were answered), so a slow answer cannot hide the delay of those behind it. The
 * number of activities is counted, not assumed: those in a settled payment's workflow history
 * (regular activities and local-activity markers) plus the delivery's attempt, which makes the POST.
 *
 * With the cluster running, the same service side is measured on it in the same rounds (figure e),
 * and the preparation reads what one settled payment costs each server (bench/lib/profile.ts).
 */
import { randomBytes } from 'node:crypto';
import { BASELINE_TASK_QUEUE } from '../baseline/shared';
import { createPayment, createWebhook, paymentBody, PHONES, type Developer } from '../lib/api';
import { waitUntil, type BenchContext, type ServiceTarget } from '../lib/context';
import { runOpenLoop } from '../lib/load';
import { activitiesIn, describeProfile, settledPaymentProfile, type PaymentProfile } from '../lib/profile';
import type { Figure, Values } from '../lib/rounds';
import { LatencyRecorder } from '../lib/stats';
import type { Receiver } from '../../test/helpers/receiver';

/** Rate and size of each side's run. */
export interface SettlementOptions {
  ratePerSecond: number;
  count: number;
}

/** The bench id a delivered payment event carries in its metadata, if any. */
function benchIdOf(body: string): { event?: string; benchId?: string } {
  const payload = JSON.parse(body) as { event?: string; data?: { metadata?: { bench_id?: string } } };
  return { event: payload.event, benchId: payload.data?.metadata?.bench_id };
}

/** A service side: where it runs, whose payments, and the receiver path its webhook posts to. */
interface Settler {
  target: ServiceTarget;
  developer: Developer;
  path: string;
}

/** Figure (b) with its payment profiles, filled in by the preparation. */
export type SettlementFigure = Figure & { profiles: PaymentProfile[] };

/**
 * Figure (b) for `developer`'s merchant on the dev server (and `clusterDeveloper`'s on the cluster), with deliveries to
 * `receiver`.
 */
export function settlementLatencyFigure(
  context: BenchContext,
  developer: Developer,
  receiver: Receiver,
  options: SettlementOptions,
  clusterDeveloper?: Developer,
): SettlementFigure {
  const dev: Settler = { target: context.dev, developer, path: `/settlement-${randomBytes(4).toString('hex')}` };
  const cluster: Settler | undefined =
    context.cluster && clusterDeveloper
      ? { target: context.cluster, developer: clusterDeveloper, path: `/settlement-${randomBytes(4).toString('hex')}` }
      : undefined;
  let activities = 0;
  const profiles: PaymentProfile[] = [];

  /** Sends payments at the figure's rate; resolves with their latencies to the `payment.completed` delivery. */
  async function settle(side: Settler, count: number, ratePerSecond: number): Promise<LatencyRecorder> {
    const sentAt = new Map<string, number>();
    const tag = randomBytes(4).toString('hex');
    const firstArrival = receiver.requests.length;
    const run = await runOpenLoop(ratePerSecond, count, async (i) => {
      const benchId = `${tag}-${i}`;
      sentAt.set(benchId, Date.now());
      await createPayment(side.target.apiUrl, side.developer, paymentBody(PHONES.instantSuccess, benchId));
    });
    if (run.failed > 0)
      throw new Error(
        `(b) ${run.failed} payments were not created on the ${side.target.name}: ${String(run.firstError)}`,
      );
    const latencies = new LatencyRecorder();
    const seen = new Set<string>();
    await waitUntil(
      `${count} payment.completed deliveries (${side.target.name})`,
      async () => {
        for (const request of receiver.requests.slice(firstArrival)) {
          if (request.path !== side.path) continue;
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

  /**
   * Starts bare workflows of `activities` no-op activities, the last on the deliveries' queue, at the figure's rate;
   * resolves with their latencies to the result.
   */
  async function bare(count: number, ratePerSecond: number, round: number): Promise<LatencyRecorder> {
    const latencies = new LatencyRecorder();
    const run = await runOpenLoop(ratePerSecond, count, async (i) => {
      const started = Date.now();
      await context.stack.client.workflow.execute('settlementBaselineWorkflow', {
        taskQueue: BASELINE_TASK_QUEUE,
        workflowId: `bench-${context.runId}-settle-${round}-${i}`,
        args: [activities],
      });
      latencies.record(Date.now() - started);
    });
    if (run.failed > 0) throw new Error(`(b) ${run.failed} baseline workflows failed: ${String(run.firstError)}`);
    return latencies;
  }

  const measure = async (side: Settler): Promise<Values> => {
    const latencies = (await settle(side, options.count, options.ratePerSecond)).summary();
    return {
      p50Ms: latencies.p50Ms,
      p99Ms: latencies.p99Ms,
      maxMs: latencies.maxMs,
      activities,
      items: latencies.count,
    };
  };

  return {
    id: 'b',
    title: 'Settlement latency',
    service: `POST /v1/payments (0001) → payment.completed webhook received, ${options.count} at ${options.ratePerSecond}/s`,
    baseline:
      'client start → result of settlementBaselineWorkflow with as many activities, the last on a deliveries queue and Worker of its own, same rate',
    metrics: [
      { key: 'p50Ms', label: 'p50', unit: 'ms', target: { atMost: 1.5 } },
      { key: 'p99Ms', label: 'p99', unit: 'ms', target: { atMost: 2.0 } },
    ],
    profiles,

    async prepare() {
      const lines: string[] = [];
      for (const side of cluster ? [dev, cluster] : [dev]) {
        await createWebhook(side.target.apiUrl, side.developer, receiver.origin + side.path, ['payment.completed']);
        // Warm-up, and a settled payment whose histories say what a payment costs Temporal.
        await settle(side, 20, options.ratePerSecond);
        const profile = await settledPaymentProfile(side.target, side.developer.merchantId);
        profiles.push(profile);
        lines.push(describeProfile(profile));
        if (side === dev) {
          const history = await context.stack.client.workflow.getHandle(profile.payment.workflowId).fetchHistory();
          activities = activitiesIn(history) + 1; // + the delivery's attempt, which makes the POST
        }
      }
      await bare(20, options.ratePerSecond, 0);
      return `${activities} activities on the path (${activities - 1} in the payment workflow, 1 delivery attempt); per settled payment: ${lines.join(' | ')}`;
    },

    measureService: () => measure(dev),

    async measureBaseline(round) {
      const latencies = (await bare(options.count, options.ratePerSecond, round)).summary();
      return {
        p50Ms: latencies.p50Ms,
        p99Ms: latencies.p99Ms,
        maxMs: latencies.maxMs,
        activities,
        items: latencies.count,
      };
    },

    ...(cluster ? { extra: { name: 'cluster', measure: () => measure(cluster) } } : {}),
  };
}
