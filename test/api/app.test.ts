/** The Koa app's envelope, errors and operations endpoints (docs/api.md#errors, docs/api.md#health) over real HTTP. */
import { expect } from 'chai';
import { call, registerDeveloper } from '../helpers/http';

describe('app: envelope, errors, health (docs/api.md#errors, docs/api.md#health)', () => {
  it('GET /healthz answers ok and GET /readyz checks PostgreSQL and Temporal', async () => {
    expect((await call('/healthz')).body).to.deep.equal({ status: 'ok' });
    const ready = await call('/readyz');
    expect(ready.status).to.equal(200);
    expect(ready.body).to.deep.equal({ status: 'ok', checks: { database: 'ok', temporal: 'ok' } });
  });

  it("echoes a request id in X-Request-Id, the caller's when given", async () => {
    const generated = await call('/healthz');
    expect(generated.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
    const given = await call('/healthz', { headers: { 'x-request-id': 'trace-12345678' } });
    expect(given.headers.get('x-request-id')).to.equal('trace-12345678');
  });

  it('answers an unknown path with 404 not_found in the envelope, also under another version (docs/versioning.md)', async () => {
    for (const path of ['/v1/nothing-here', '/v2/payments', '/']) {
      const response = await call(path);
      expect(response.status, path).to.equal(404);
      expect(response.body).to.deep.equal({
        success: false,
        error: { code: 'not_found', message: 'no such endpoint' },
      });
    }
  });

  it('answers a wrong method with 405 method_not_allowed and an Allow header', async () => {
    const developer = await registerDeveloper();
    const response = await call('/v1/payments/pay_000000000000000000000000', { method: 'DELETE', key: developer.key });
    expect(response.status).to.equal(405);
    expect(response.body.error.code).to.equal('method_not_allowed');
    expect(response.headers.get('allow')).to.match(/GET/);
    const onRegister = await call('/v1/auth/register', { method: 'GET' });
    expect(onRegister.status).to.equal(405);
  });

  it('refuses a JSON body over 1 MB with 413 in the envelope', async () => {
    const developer = await registerDeveloper();
    const big = JSON.stringify({ amount: 1500, description: 'x'.repeat(1024 * 1024 + 10) });
    const response = await call('/v1/payments', {
      key: developer.key,
      rawBody: big,
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).to.equal(413);
    expect(response.body).to.deep.equal({
      success: false,
      error: { code: 'invalid_request', message: 'request body is larger than 1 MB' },
    });
  });
});
