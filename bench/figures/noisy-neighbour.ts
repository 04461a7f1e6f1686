/**
 * Figure (g), a noisy neighbour (docs/webhooks.md#isolation): merchant B's settlement and delivery
 * latencies while merchant E's 16 endpoints hang (accept, never answer) on 480 deliveries ÷ the same
 * with E quiet. B sends instant-success payments (0001) open-loop at a fixed rate to a healthy
 * receiver; each `payment.completed` that arrives gives two latencies: settlement, from sending the
 * create to the event's `created_at` (the payment completed), and delivery, from that to the
 * receiver's arrival. Targets: settlement p99 ≤ 1.2 × quiet, delivery p99 at most 2 s more.
 *
 * E is a fresh merchant each round with 16 endpoints (the most a merchant may have, one path each of
 * one hanging receiver) and 30 events, each delivered to all 16: 480 deliveries, started as the
 * payment activities start them (`startWebhookDeliveries` on the deliveries' task queue). B's
 * payments start with E's intake, so B is measured while E's burst is taken in and while its
 * requests hang; how long the intake took is printed beside the figure. Afterwards E's endpoints are
 * disabled and their waiting deliveries told, so they end (cancelled) before the next side runs.
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

/** Size of each side: B's payments and their rate, E's endpoints and events (each delivered to every endpoint). */
export interface NoisyNeighbourOptions {
  ratePerSecond: number;
  count: number;
  noisyEndpoints: number;
  noisyEvents: number;
  /** `WEBHOOK_MERCHANT_CONCURRENCY` of the service under measurement (requests E's endpoints are given at once). */
  merchantConcurrency: number;
}

/** Figure (g) for merchant `developer` (B), with B's deliveries to `receiver`. */
export function noisyNeighbourFigure(
  context: BenchContext,
  developer: Developer,
  receiver: Receiver,
  options: NoisyNeighbourOptions,
): Figure {
  const path = `/neighbour-${randomBytes(4).toString('hex')}`;
  const hangingDeliveries = options.noisyEndpoints * options.noisyEvents;
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

  /** Merchant E with 16 endpoints that hang; its webhook ids, once they exist. */
  async function noisyMerchant(): Promise<{ merchantId: string; webhookIds: string[] }> {
    const noisy = await registerDeveloper(context.dev.apiUrl, 'noisy');
    const webhookIds: string[] = [];
    for (let i = 0; i < options.noisyEndpoints; i += 1) {
      const webhook = await createWebhook(context.dev.apiUrl, noisy, `${(hanging as Receiver).origin}/hangs-${i}`, [
        'payment.completed',
      ]);
      webhookIds.push(webhook.id);
    }
    return { merchantId: noisy.merchantId, webhookIds };
  }

  /**
   * E's burst: its events written and their deliveries started, 5 events (80 deliveries) at a time; resolves
   * once E's endpoints hold their requests and every delivery has asked for its turn once, saying how long
   * that took.
   */
  async function startNoise(noisy: { merchantId: string; webhookIds: string[] }): Promise<string> {
    const started = Date.now();
    const dispatch = { db: context.db, temporal: context.stack.client, taskQueue: SERVICE_WEBHOOK_TASK_QUEUE };
    for (let i = 0; i < options.noisyEvents; i += 5) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(5, options.noisyEvents - i) }, () => insertEvent(context.db, noisy.merchantId)),
      );
      await Promise.all(batch.map((event) => startWebhookDeliveries(dispatch, event)));
    }
    const dispatched = Date.now() - started;
    await waitUntil(
      "the noisy endpoints' requests",
      async () => (hanging as Receiver).inFlight >= options.merchantConcurrency,
      60_000,
    );
    // Due at the endpoints: every delivery has asked for its turn once (in flight, or queued behind them).
    await waitUntil(
      "the noisy endpoints' deliveries queued",
      async () => {
        // In the queue now, or attempted already (a request that ended gave its turn back).
        const asked = await context.db.raw<{ rows: { count: string }[] }>(
          `select count(*) as count from (select delivery_id from webhook_endpoint_turns where webhook_id = any(?) union select id from webhook_deliveries where webhook_id = any(?) and attempt_count > 0) asked`,
          [noisy.webhookIds, noisy.webhookIds],
        );
        return Number(asked.rows[0]?.count ?? 0) >= hangingDeliveries;
      },
      180_000,
      200,
    );
    return `${hangingDeliveries} deliveries started in ${(dispatched / 1000).toFixed(1)} s, all due at E's ${options.noisyEndpoints} hanging endpoints ${((Date.now() - started) / 1000).toFixed(1)} s after the first`;
  }

  /** Ends E's deliveries: its endpoints disabled, its waiters told so they end now, its requests given up. */
  async function stopNoise(webhookIds: string[]): Promise<string> {
    await context.db('webhooks').whereIn('id', webhookIds).update({ status: 'disabled' });
    const waiting = await context.db('webhook_endpoint_turns').whereIn('webhook_id', webhookIds).pluck('workflow_id');
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
              .whereIn('webhook_id', webhookIds)
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
    service: `merchant B: ${options.count} payments (0001) at ${options.ratePerSecond}/s from the start of merchant E's burst of ${hangingDeliveries} deliveries to ${options.noisyEndpoints} endpoints that hang`,
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
      return `B's webhook posts to ${path}; E's endpoints ${hanging.origin}/hangs-… accept and never answer`;
    },

    async measureService() {
      const noisy = await noisyMerchant();
      // E's burst and B's payments start together: B is measured during E's intake and after it.
      const noise = startNoise(noisy);
      noise.catch(() => undefined);
      try {
        const values = await measure();
        context.say(`(g) noise: ${await noise}`);
        return values;
      } finally {
        context.say(`(g) noise: ${await stopNoise(noisy.webhookIds)}`);
      }
    },

    measureBaseline: () => measure(),
  };
}
