/**
 * Figure (g), a noisy neighbour (docs/webhooks.md#isolation): merchant B's settlement and delivery
 * latencies while merchant E's endpoint hangs (accepts, never answers) on 500 due deliveries ÷ the
 * same with E quiet. B sends instant-success payments (0001) open-loop at a fixed rate to a healthy
 * receiver; each `payment.completed` that arrives gives two latencies: settlement, from sending the
 * create to the event's `created_at` (the payment completed), and delivery, from that to the
 * receiver's arrival. Targets: settlement p99 ≤ 1.2 × quiet, delivery p99 at most 2 s more.
 *
 * E is a fresh merchant each round whose 500 deliveries are started as the payment activities
 * start them (`startWebhookDeliveries` on the deliveries' task queue); B is measured once E's
 * endpoint holds every request it will be given and every other delivery of E has been told to
 * wait its turn: 500 deliveries due at a hanging endpoint. How long taking in E's burst of 500 took
 * is printed beside the figure; B's latencies during that burst are not this figure's. Afterwards E's endpoint is
 * disabled and its waiting
 * deliveries told, so they end (cancelled) before the next side runs.
 */
import { randomBytes } from 'node:crypto';
import { startWebhookDeliveries } from '../../src/activities/webhook-dispatch';
import { endpointTurnSignal } from '../../src/workflows/webhook-messages';
import { insertEvent } from '../../test/helpers/webhooks';
import { startReceiver, type Receiver } from '../../test/helpers/receiver';
import { createPayment, createWebhook, paymentBody, PHONES, registerDeveloper, type Developer } from '../lib/api';
import { waitUntil, type BenchContext } from '../lib/context';
import { runOpenLoop } from '../lib/load';
import type { Figure, Values } from '../lib/rounds';
import { SERVICE_WEBHOOK_TASK_QUEUE } from '../lib/stack';
import { LatencyRecorder } from '../lib/stats';

/** Size of each side: B's payments and their rate, E's hanging deliveries. */
export interface NoisyNeighbourOptions {
  ratePerSecond: number;
  count: number;
  hangingDeliveries: number;
  /** `WEBHOOK_ENDPOINT_CONCURRENCY` of the service under measurement (requests E's endpoint is given at once). */
  endpointConcurrency: number;
}

/** Figure (g) for merchant `developer` (B), with B's deliveries to `receiver`. */
export function noisyNeighbourFigure(
  context: BenchContext,
  developer: Developer,
  receiver: Receiver,
  options: NoisyNeighbourOptions,
): Figure {
  const path = `/neighbour-${randomBytes(4).toString('hex')}`;
  let hanging: Receiver | undefined;

  /** B's payments at the figure's rate; resolves with their settlement and delivery latencies. */
  async function settle(count: number): Promise<{ settlement: LatencyRecorder; delivery: LatencyRecorder }> {
    const sentAt = new Map<string, number>();
    const tag = randomBytes(4).toString('hex');
    const firstArrival = receiver.requests.length;
    const run = await runOpenLoop(options.ratePerSecond, count, async (i) => {
      const benchId = `${tag}-${i}`;
      sentAt.set(benchId, Date.now());
      await createPayment(context.dev.apiUrl, developer, paymentBody(PHONES.instantSuccess, benchId));
    });
    if (run.failed > 0) throw new Error(`(g) ${run.failed} payments were not created: ${String(run.firstError)}`);
    const settlement = new LatencyRecorder();
    const delivery = new LatencyRecorder();
    const seen = new Set<string>();
    await waitUntil(
      `${count} payment.completed deliveries of the neighbour`,
      async () => {
        for (const request of receiver.requests.slice(firstArrival)) {
          if (request.path !== path) continue;
          const payload = JSON.parse(request.body) as {
            event?: string;
            created_at: string;
            data?: { metadata?: { bench_id?: string } };
          };
          const benchId = payload.data?.metadata?.bench_id;
          if (payload.event !== 'payment.completed' || !benchId || seen.has(benchId) || !sentAt.has(benchId)) continue;
          seen.add(benchId);
          const completedAt = Date.parse(payload.created_at);
          settlement.record(completedAt - (sentAt.get(benchId) as number));
          delivery.record(request.receivedAt - completedAt);
        }
        return seen.size >= count;
      },
      180_000,
      100,
    );
    return { settlement, delivery };
  }

  async function measure(): Promise<Values> {
    const { settlement, delivery } = await settle(options.count);
    const s = settlement.summary();
    const d = delivery.summary();
    return {
      settlementP50Ms: s.p50Ms,
      settlementP99Ms: s.p99Ms,
      deliveryP50Ms: d.p50Ms,
      deliveryP99Ms: d.p99Ms,
      items: s.count,
    };
  }

  /** Merchant E with an endpoint that hangs, and its deliveries due; resolves once the endpoint holds its requests. */
  async function startNoise(): Promise<{ webhookId: string }> {
    const noisy = await registerDeveloper(context.dev.apiUrl, 'noisy');
    const webhook = await createWebhook(context.dev.apiUrl, noisy, `${(hanging as Receiver).origin}/hangs`, [
      'payment.completed',
    ]);
    const dispatch = { db: context.db, temporal: context.stack.client, taskQueue: SERVICE_WEBHOOK_TASK_QUEUE };
    for (let i = 0; i < options.hangingDeliveries; i += 25) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(25, options.hangingDeliveries - i) }, () =>
          insertEvent(context.db, noisy.merchantId),
        ),
      );
      await Promise.all(batch.map((event) => startWebhookDeliveries(dispatch, event)));
    }
    await waitUntil(
      "the noisy endpoint's requests",
      async () => (hanging as Receiver).inFlight >= options.endpointConcurrency,
      60_000,
    );
    // Due at the endpoint: every delivery has asked for its turn once (in flight, or queued behind them).
    const queued = await waitUntil(
      "the noisy endpoint's deliveries queued",
      async () => {
        // In the queue now, or attempted already (a request that ended gave its turn back).
        const asked = await context.db.raw<{ rows: { count: string }[] }>(
          `select count(*) as count from (select delivery_id from webhook_endpoint_turns where webhook_id = ? union select id from webhook_deliveries where webhook_id = ? and attempt_count > 0) asked`,
          [webhook.id, webhook.id],
        );
        return Number(asked.rows[0]?.count ?? 0) >= options.hangingDeliveries;
      },
      180_000,
      200,
    );
    context.say(
      `(g) noise: ${options.hangingDeliveries} deliveries due at E's hanging endpoint ${(queued / 1000).toFixed(1)} s after they were started`,
    );
    return { webhookId: webhook.id };
  }

  /** Ends E's deliveries: its endpoint disabled, its waiters told so they end now, its requests given up. */
  async function stopNoise(webhookId: string): Promise<string> {
    await context.db('webhooks').where({ id: webhookId }).update({ status: 'disabled' });
    const waiting = await context.db('webhook_endpoint_turns').where({ webhook_id: webhookId }).pluck('workflow_id');
    for (let i = 0; i < waiting.length; i += 50) {
      await Promise.all(
        waiting.slice(i, i + 50).map((id: string) =>
          context.stack.client.workflow
            .getHandle(id)
            .signal(endpointTurnSignal)
            .catch(() => undefined),
        ),
      );
    }
    // Every waiter gone and every request given up (those end as failed first attempts, their next one due in 5 min,
    // when they are cancelled).
    const waited = await waitUntil(
      "the noisy merchant's deliveries to stop",
      async () =>
        Number(
          (
            await context
              .db('webhook_endpoint_turns')
              .where({ webhook_id: webhookId })
              .count<{ count: number }[]>({ count: '*' })
          )[0]?.count ?? 0,
        ) === 0,
      180_000,
      500,
    );
    return `its deliveries stopped ${(waited / 1000).toFixed(1)} s after it was disabled; E's endpoints got ${(hanging as Receiver).requests.length} requests so far, at most ${(hanging as Receiver).maxInFlight} at once`;
  }

  return {
    id: 'g',
    title: 'Noisy neighbour',
    service: `merchant B: ${options.count} payments (0001) at ${options.ratePerSecond}/s while merchant E's endpoint hangs on ${options.hangingDeliveries} due deliveries`,
    baseline: 'the same with E quiet',
    metrics: [
      { key: 'settlementP50Ms', label: 'settlement p50', unit: 'ms' },
      { key: 'settlementP99Ms', label: 'settlement p99', unit: 'ms', target: { atMost: 1.2 } },
      { key: 'deliveryP50Ms', label: 'delivery p50', unit: 'ms' },
      { key: 'deliveryP99Ms', label: 'delivery p99', unit: 'ms', target: { increaseAtMost: 2000 } },
    ],

    async prepare() {
      hanging = await startReceiver(() => ({ status: 200, delayMs: 600_000 }));
      await createWebhook(context.dev.apiUrl, developer, receiver.origin + path, ['payment.completed']);
      await settle(10);
      return `B's webhook posts to ${path}; E's endpoint ${hanging.origin} accepts and never answers`;
    },

    async measureService() {
      const { webhookId } = await startNoise();
      try {
        return await measure();
      } finally {
        context.say(`(g) noise: ${await stopNoise(webhookId)}`);
      }
    },

    measureBaseline: () => measure(),
  };
}
