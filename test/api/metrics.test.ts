/**
 * `GET /metrics` (docs/api.md#health, docs/operations.md#metrics): Prometheus text with request durations by route and
 * status, payment
 * requests by operation and outcome, and the process's own metrics, all kept in-process (no table is
 * read per scrape; the worker's business metrics are tested in test/observability/metrics.test.ts).
 */
import { expect } from 'chai';
import { paymentOperationOf } from '../../src/api/metrics';
import { call, registerDeveloper, waitForPayment } from '../helpers/http';

/** The value of the sample `name{labels}` (labels in the exposition's order), or undefined. */
function sample(text: string, name: string, labels: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name}{${labels}} `));
  return line === undefined ? undefined : Number(line.split(' ').pop());
}

describe('GET /metrics (docs/api.md#health, docs/operations.md#metrics)', () => {
  it('reports request durations by route pattern and status, and payment requests by operation and outcome', async () => {
    const labels = 'operation="create",family="generic",environment="sandbox",outcome="accepted"';
    const before = sample((await call('/metrics')).body as string, 'paycollect_payment_requests_total', labels) ?? 0;
    const developer = await registerDeveloper();
    const created = await call('/v1/payments', {
      key: developer.key,
      body: { amount: 1500, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000001' },
    });
    await waitForPayment(developer.key, created.body.data.id, (p) => p.status === 'completed');
    const response = await call('/metrics');
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/text\/plain/);
    const text = response.body as string;
    expect(text).to.match(
      /paycollect_http_request_duration_seconds_bucket\{le="[^"]+",method="GET",route="\/v1\/payments\/:id",status="200"\}/,
    );
    expect(text).to.match(
      /paycollect_http_request_duration_seconds_count\{method="POST",route="\/v1\/payments",status="201"\} [1-9]/,
    );
    expect(sample(text, 'paycollect_payment_requests_total', labels)).to.equal(before + 1);
    expect(text).to.include('paycollect_api_process_resident_memory_bytes');
    expect(text).to.match(/^paycollect_read_model_up 1$/m);
    expect(text).not.to.match(/^paycollect_payments\{/m);
  });

  it('names the payment operation of each money route and no other', () => {
    expect(paymentOperationOf('POST', '/v1/payments')).to.deep.equal({ operation: 'create', family: 'generic' });
    expect(paymentOperationOf('POST', '/v1/api/merchants/:merchant_id/payments/')).to.deep.equal({
      operation: 'create',
      family: 'merchant',
    });
    expect(paymentOperationOf('POST', '/v1/payments/:id/cancel')).to.deep.equal({
      operation: 'cancel',
      family: 'generic',
    });
    expect(paymentOperationOf('POST', '/v1/developer/payments/:id/refund')).to.deep.equal({
      operation: 'refund',
      family: 'developer',
    });
    expect(paymentOperationOf('GET', '/v1/payments/:id')).to.equal(undefined);
    expect(paymentOperationOf('POST', '/v1/developer/webhooks')).to.equal(undefined);
  });
});
