/**
 * Business metrics (docs/operations.md#metrics): a worker and an API process of their own (task queue of this test)
 * serve
 * `/metrics`; after a payment that completes, one the provider declines, a refund and the webhooks
 * of their events, the worker's counters and histograms (created, settled by outcome, settlement
 * latency, provider call latency, refunds, webhook attempts and delivery latency) and the API's
 * (payment requests by outcome, provider callbacks) moved by exactly what happened, and the API's
 * scrape reads no table (the full-table gauges are gone).
 */
import { randomBytes, randomInt } from 'node:crypto';
import { expect } from 'chai';
import { freePort } from '../../scripts/lib/ports';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { CapturedProcess } from './captured-process';

/** One sample of the Prometheus text format. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (comments skipped). */
function parsePrometheus(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match || line.startsWith('#')) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
      labels[pair[1] as string] = pair[2] as string;
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum of the samples named `name` whose labels include `labels`. */
function total(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter(
      (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
    )
    .reduce((sum, sample) => sum + sample.value, 0);
}

async function scrape(url: string): Promise<Sample[]> {
  const response = await fetch(url);
  expect(response.status, url).to.equal(200);
  return parsePrometheus(await response.text());
}

describe('business metrics of the worker and the API (docs/operations.md#metrics)', function () {
  this.timeout(180_000);

  const taskQueue = `obs-metrics-${randomBytes(4).toString('hex')}`;
  let api: CapturedProcess;
  let worker: CapturedProcess;
  let receiver: Receiver;
  let baseUrl = '';
  let workerMetricsUrl = '';

  before(async () => {
    const [port, metricsPort] = [await freePort(), await freePort()];
    baseUrl = `http://127.0.0.1:${port}`;
    workerMetricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    const common = {
      TEMPORAL_TASK_QUEUE: taskQueue,
      LOG_LEVEL: 'warn',
      PROVIDER_CALLBACK_BASE_URL: baseUrl,
      SANDBOX_APPROVAL_DELAY_MS: '300',
    };
    worker = new CapturedProcess('src/worker.ts', {
      ...common,
      HOST: '127.0.0.1',
      WORKER_METRICS_PORT: String(metricsPort),
    });
    api = new CapturedProcess('src/server.ts', {
      ...common,
      HOST: '127.0.0.1',
      PORT: String(port),
      RATE_LIMIT_MULTIPLIER: '100',
    });
    worker.start();
    api.start();
    receiver = await startReceiver();
    for (const deadline = Date.now() + 90_000; ;) {
      const up = await Promise.all(
        [fetch(`${baseUrl}/healthz`), fetch(workerMetricsUrl)].map((request) =>
          request.then(
            (r) => r.status === 200,
            () => false,
          ),
        ),
      );
      if (up.every(Boolean)) break;
      if (Date.now() > deadline || !api.running || !worker.running)
        throw new Error(`not up:\n${api.tail()}\n${worker.tail()}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  });

  after(async () => {
    await Promise.all([api?.stop('SIGKILL'), worker?.stop('SIGKILL'), receiver?.close()]);
  });

  it('counts payments created and settled, provider calls, refunds and webhook attempts, without reading a table per scrape', async () => {
    const post = async (path: string, body: unknown, headers: Record<string, string>) => {
      const response = await fetch(baseUrl + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as { data: Record<string, any> } };
    };
    const registered = await post(
      '/v1/auth/register',
      {
        email: `obs-${randomBytes(6).toString('hex')}@example.com`,
        password: 'correct horse battery',
        name: 'Metrics Test',
      },
      {},
    );
    expect(registered.status).to.equal(201);
    const key = registered.body.data.api_key.secret as string;
    const auth = { authorization: `Bearer ${key}` };
    const webhook = await post(
      '/v1/developer/webhooks',
      { url: `${receiver.origin}/hooks`, events: ['payment.completed', 'payment.failed', 'refund.completed'] },
      auth,
    );
    expect(webhook.status).to.equal(201);

    // Rwandan numbers (MTN's prefix 78): one completes after the simulated approval, one ending 0002 is declined
    // (docs/payments.md#sandbox-scenarios).
    const digits = (count: number) => String(randomInt(0, 10 ** count)).padStart(count, '0');
    const completes = await post(
      '/v1/payments',
      { amount: 3000, currency: 'RWF', payment_method: 'mobile_money', phone_number: `+25078${digits(5)}19` },
      auth,
    );
    const declined = await post(
      '/v1/payments',
      { amount: 3100, currency: 'RWF', payment_method: 'mobile_money', phone_number: `+25078${digits(3)}0002` },
      auth,
    );
    expect([completes.status, declined.status]).to.deep.equal([201, 201]);
    const statusOf = async (id: string) =>
      ((await (await fetch(`${baseUrl}/v1/payments/${id}`, { headers: auth })).json()) as { data: { status: string } })
        .data.status;
    for (
      const deadline = Date.now() + 60_000;
      (await statusOf(completes.body.data.id)) !== 'completed' || (await statusOf(declined.body.data.id)) !== 'failed';
    ) {
      if (Date.now() > deadline) throw new Error('the payments did not settle');
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    const refund = await post(`/v1/payments/${completes.body.data.id}/refund`, {}, auth);
    expect(refund.status).to.equal(201);
    expect(refund.body.data.status).to.equal('completed');
    // payment.completed, payment.failed, refund.completed
    await receiver.waitFor(3, 60_000);

    // The worker exports each counter and histogram once its activity completed: wait for the last.
    let worked = await scrape(workerMetricsUrl);
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; worked = await scrape(workerMetricsUrl)) {
      // A counter and its histogram are two calls into the SDK's meter: a scrape can fall between them.
      const delivered =
        total(worked, 'paycollect_webhook_attempts', { outcome: 'succeeded' }) >= 3 &&
        total(worked, 'paycollect_webhook_delivery_seconds_count') >= 3;
      if (
        delivered &&
        total(worked, 'paycollect_refunds_settled') >= 1 &&
        total(worked, 'paycollect_payment_settlement_seconds_count') >= 2
      )
        break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const sandbox = { environment: 'sandbox', provider: 'momo' };
    expect(total(worked, 'paycollect_payments_created', { ...sandbox, method: 'mobile_money' })).to.equal(2);
    expect(
      total(worked, 'paycollect_payments_settled', { ...sandbox, method: 'mobile_money', outcome: 'completed' }),
    ).to.equal(1);
    expect(total(worked, 'paycollect_payments_settled', { ...sandbox, outcome: 'failed' })).to.equal(1);
    expect(total(worked, 'paycollect_payment_settlement_seconds_count', { ...sandbox, outcome: 'completed' })).to.equal(
      1,
    );
    const settlementSeconds = total(worked, 'paycollect_payment_settlement_seconds_sum', {
      ...sandbox,
      outcome: 'completed',
    });
    expect(settlementSeconds).to.be.greaterThan(0).and.lessThan(60);
    expect(
      total(worked, 'paycollect_payment_settlement_seconds_bucket', { ...sandbox, outcome: 'completed', le: '+Inf' }),
    ).to.equal(1);
    expect(
      total(worked, 'paycollect_provider_call_seconds_count', { provider: 'momo', operation: 'initiate' }),
    ).to.equal(2);
    expect(
      total(worked, 'paycollect_provider_call_seconds_count', { provider: 'momo', operation: 'refund', outcome: 'ok' }),
    ).to.equal(1);
    expect(total(worked, 'paycollect_provider_call_errors')).to.equal(0);
    expect(total(worked, 'paycollect_refunds_settled', { ...sandbox, outcome: 'completed' })).to.equal(1);
    expect(
      total(worked, 'paycollect_webhook_attempts', { environment: 'sandbox', outcome: 'succeeded', attempt: '1' }),
    ).to.equal(3);
    expect(total(worked, 'paycollect_webhook_delivery_seconds_count', { environment: 'sandbox' })).to.equal(3);
    // The SDK's own worker metrics are on the same endpoint.
    expect(
      worked.some((sample) => sample.name.startsWith('temporal_') && sample.labels.task_queue === taskQueue),
    ).to.equal(true);

    const served = await scrape(`${baseUrl}/metrics`);
    const generic = { operation: 'create', family: 'generic', environment: 'sandbox' };
    expect(total(served, 'paycollect_payment_requests_total', { ...generic, outcome: 'accepted' })).to.equal(2);
    expect(
      total(served, 'paycollect_payment_requests_total', {
        operation: 'refund',
        environment: 'sandbox',
        outcome: 'accepted',
      }),
    ).to.equal(1);
    expect(total(served, 'paycollect_provider_callbacks_total', { provider: 'momo', status: '200' })).to.be.at.least(1);
    expect(
      total(served, 'paycollect_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/v1/payments',
        status: '201',
      }),
    ).to.equal(2);
    expect(total(served, 'paycollect_read_model_up')).to.equal(1);
    expect(
      served.some((sample) => sample.name === 'paycollect_payments' || sample.name === 'paycollect_webhook_deliveries'),
      'a gauge read from the tables at scrape time',
    ).to.equal(false);
  });
});
