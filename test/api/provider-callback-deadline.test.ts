/**
 * A provider callback answers by its deadline (docs/payments.md#provider-callbacks, docs/operations.md#deadlines): when
 * the hint cannot reach the payment's workflow within TEMPORAL_CALL_TIMEOUT_MS, because Temporal refuses connections or
 * stalls, the provider gets 503 `service_unavailable` with `Retry-After` (its documented cue to send the callback
 * again), never a request held open for the Temporal client's own retries; once Temporal answers, the provider's retry
 * is taken. The real API app with its Temporal client behind a TCP proxy (test/helpers/tcp-proxy.ts), the shared
 * stack's PostgreSQL, and its worker running the payment.
 *
 * The deadline (7.2 s) lies inside the client's seventh pause between retries of an unreachable server (its backoff:
 * 100 ms × 1.7^n, ±20 %, up to 5 s; the pauses end at about 5.6 s and 9.7 s), where a call that only has a gRPC
 * deadline answers late: after the pause, at 7.8 s at the earliest and 9.7 s on average.
 */
import { expect } from 'chai';
import { Client, Connection } from '@temporalio/client';
import { signCallback, SIGNATURE_HEADER } from '../../src/providers/sandbox/callback';
import { call, registerDeveloper } from '../helpers/http';
import { startApp } from '../helpers/processes';
import { closeAfterLastTest, getStack, testConfig } from '../helpers/stack';
import { startTcpProxyTo, type TcpProxy } from '../helpers/tcp-proxy';

const CALL_TIMEOUT_MS = 7_200;
/** What the shared, busy test machine may add to the deadline: scheduling, not waiting on anything. */
const SLACK_MS = 1_000;

describe('provider callbacks answer by their deadline while Temporal is out of reach (docs/operations.md#deadlines)', function () {
  this.timeout(120_000);
  const config = testConfig({ TEMPORAL_CALL_TIMEOUT_MS: String(CALL_TIMEOUT_MS), RATE_LIMIT_MULTIPLIER: '1000' });
  let temporalProxy: TcpProxy;
  let temporal: Client;
  let app: Awaited<ReturnType<typeof startApp>>;

  before(async () => {
    const stack = await getStack();
    temporalProxy = await startTcpProxyTo('127.0.0.1', Number(stack.config.TEMPORAL_ADDRESS.split(':')[1]));
    temporal = new Client({ connection: await Connection.connect({ address: temporalProxy.address }) });
    app = await startApp(config, { temporal });
  });

  after(async () => {
    temporalProxy?.up();
    await app?.close();
    // Not closed now: a retry of a call abandoned at its deadline may still be waiting (closeAfterLastTest).
    if (temporal) closeAfterLastTest(temporal.connection);
    await temporalProxy?.close();
  });

  /** A pending sandbox MoMo payment (`0003`: the customer never answers) and its provider reference. */
  async function pendingPayment(): Promise<{ id: string; providerReference: string }> {
    const developer = await registerDeveloper();
    const created = await call('/v1/payments', {
      key: developer.key,
      body: { amount: 1500, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000003' },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const { db } = await getStack();
    const row = (await db('payments').where({ id: created.body.data.id }).first('provider_reference')) as {
      provider_reference: string;
    };
    return { id: created.body.data.id, providerReference: row.provider_reference };
  }

  /** The sandbox MoMo provider's signed callback claiming success, as its simulator sends it. */
  async function callback(
    providerReference: string,
  ): Promise<{ status: number; body: any; retryAfter: string | null; ms: number }> {
    const rawBody = JSON.stringify({ provider_reference: providerReference, status: 'succeeded' });
    const started = Date.now();
    const response = await fetch(`${app.baseUrl}/v1/provider-callbacks/momo`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        [SIGNATURE_HEADER]: signCallback(rawBody, config.PROVIDER_CALLBACK_SECRET),
      },
      body: rawBody,
      signal: AbortSignal.timeout(60_000),
    });
    return {
      status: response.status,
      body: await response.json(),
      retryAfter: response.headers.get('retry-after'),
      ms: Date.now() - started,
    };
  }

  async function round(fault: () => void): Promise<void> {
    const payment = await pendingPayment();
    fault();
    let answer;
    try {
      answer = await callback(payment.providerReference);
    } finally {
      temporalProxy.up();
    }
    expect(answer.status, JSON.stringify(answer.body)).to.equal(503);
    expect(answer.body.error.code).to.equal('service_unavailable');
    expect(answer.retryAfter).to.match(/^\d+$/);
    expect(answer.ms, `answered after ${answer.ms} ms`).to.be.below(CALL_TIMEOUT_MS + SLACK_MS);

    // The provider sends it again once Temporal answers: taken and handed to the payment's workflow.
    const deadline = Date.now() + 30_000;
    let retried = await callback(payment.providerReference);
    while (retried.status === 503 && Date.now() < deadline) retried = await callback(payment.providerReference);
    expect(retried.status, JSON.stringify(retried.body)).to.equal(200);
    expect(retried.body.data).to.deep.equal({ received: true, payment_id: payment.id, action: 'signalled' });
  }

  it('Temporal gone (connections refused): 503 with Retry-After by the deadline, then the retry is signalled', async () => {
    await round(() => temporalProxy.down());
  });

  it('Temporal stalled (SIGSTOP-like): 503 with Retry-After by the deadline, then the retry is signalled', async () => {
    await round(() => temporalProxy.stall());
  });
});
