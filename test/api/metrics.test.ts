/** `GET /metrics` (D53): Prometheus text with request durations by route and payments by status and method. */
import { expect } from 'chai';
import { call, registerDeveloper, waitForPayment } from '../helpers/http';

describe('GET /metrics (D53)', () => {
  it('reports request durations by route pattern and status, and payments by status and method', async () => {
    const developer = await registerDeveloper();
    const created = await call('/v1/payments', { key: developer.key, body: { amount: 1500, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000001' } });
    await waitForPayment(developer.key, created.body.data.id, (p) => p.status === 'completed');
    const response = await call('/metrics');
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/text\/plain/);
    const text = response.body as string;
    expect(text).to.match(/paycollect_http_request_duration_seconds_bucket\{le="[^"]+",method="GET",route="\/v1\/payments\/:id",status="200"\}/);
    expect(text).to.match(/paycollect_http_request_duration_seconds_count\{method="POST",route="\/v1\/payments",status="201"\} [1-9]/);
    const completed = /paycollect_payments\{environment="sandbox",status="completed",method="mobile_money"\} (\d+)/.exec(text);
    expect(Number(completed?.[1])).to.be.at.least(1);
    expect(text).to.include('paycollect_api_process_resident_memory_bytes');
    expect(text).to.include('# TYPE paycollect_webhook_deliveries gauge');
  });
});
