/**
 * One JSON log (docs/operations.md#logs): the worker (`src/worker.ts`) and the API (`src/server.ts`) run as their own
 * processes at LOG_LEVEL=info, a developer registers, signs in and makes a payment that completes
 * through the provider's callback; then every line either process wrote is JSON with an ISO time, the
 * payment's lines carry its payment, merchant and workflow ids, and no line holds the customer's
 * phone number, the secret key, the session token or the password.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { expect } from 'chai';
import { freePort } from '../../scripts/lib/ports';
import { CapturedProcess } from './captured-process';

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('one JSON log for the API and the worker (docs/operations.md#logs)', function () {
  this.timeout(180_000);

  const taskQueue = `obs-logs-${randomBytes(4).toString('hex')}`;
  let api: CapturedProcess;
  let worker: CapturedProcess;
  let baseUrl = '';

  before(async () => {
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    const common = {
      TEMPORAL_TASK_QUEUE: taskQueue,
      LOG_LEVEL: 'info',
      PROVIDER_CALLBACK_BASE_URL: baseUrl,
      SANDBOX_APPROVAL_DELAY_MS: '300',
    };
    worker = new CapturedProcess('src/worker.ts', { ...common, WORKER_METRICS_PORT: '0' });
    api = new CapturedProcess('src/server.ts', {
      ...common,
      HOST: '127.0.0.1',
      PORT: String(port),
      RATE_LIMIT_MULTIPLIER: '100',
    });
    worker.start();
    api.start();
    await api.waitForLine((line) => line.msg === 'api listening');
    await worker.waitForLine((line) => line.msg === 'worker started');
  });

  after(async () => {
    await Promise.all([api?.stop('SIGKILL'), worker?.stop('SIGKILL')]);
  });

  it("writes only JSON lines with ISO times, ids on a payment's lines, and no phone number or secret", async () => {
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(baseUrl + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });

    // A developer, a session and a payment to a phone number no other test uses (it completes after a simulated
    // approval, docs/payments.md#sandbox-scenarios).
    const password = `pw-${randomBytes(8).toString('hex')}`;
    const registered = await post('/v1/auth/register', {
      email: `obs-${randomBytes(6).toString('hex')}@example.com`,
      password,
      name: 'Log Test',
    });
    expect(registered.status).to.equal(201);
    const developer = (
      (await registered.json()) as {
        data: { developer: { merchant_id: string }; token: string; api_key: { secret: string } };
      }
    ).data;
    const secretKey = developer.api_key.secret;
    const merchantId = developer.developer.merchant_id;
    const sessionToken = developer.token;
    const keys = await fetch(`${baseUrl}/v1/developer/keys`, { headers: { authorization: `Bearer ${sessionToken}` } });
    expect(keys.status).to.equal(200);

    const national = `78${String(randomInt(0, 1_000_000)).padStart(6, '0')}9`;
    const phone = `+250${national}`;
    const created = await post(
      '/v1/payments',
      { amount: 2500, currency: 'RWF', payment_method: 'mobile_money', phone_number: phone },
      { authorization: `Bearer ${secretKey}`, 'x-request-id': 'obs-request-0001' },
    );
    expect(created.status).to.equal(201);
    expect(created.headers.get('x-request-id')).to.equal('obs-request-0001');
    const paymentId = ((await created.json()) as { data: { id: string } }).data.id;

    let status = '';
    for (const deadline = Date.now() + 60_000; status !== 'completed' && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const shown = await fetch(`${baseUrl}/v1/payments/${paymentId}`, {
        headers: { authorization: `Bearer ${secretKey}` },
      });
      status = ((await shown.json()) as { data: { status: string } }).data.status;
    }
    expect(status).to.equal('completed');
    // A refused key is not logged either.
    const bogusKey = `sk_sandbox_${randomBytes(16).toString('hex')}`;
    expect(
      (await fetch(`${baseUrl}/v1/payments/${paymentId}`, { headers: { authorization: `Bearer ${bogusKey}` } })).status,
    ).to.equal(401);

    await worker.waitForLine((line) => line.msg === 'payment settled' && line.payment_id === paymentId);
    await api.stop('SIGTERM');
    await worker.stop('SIGTERM');

    for (const [name, process] of [
      ['api', api],
      ['worker', worker],
    ] as const) {
      const lines = process.parsed();
      expect(lines.length, `${name} wrote nothing`).to.be.greaterThan(3);
      for (const { line, json } of lines) {
        expect(json, `${name} ${line.stream} line is not JSON: ${line.text}`).to.be.an('object');
        expect(json?.time, `${name}: ${line.text}`).to.match(ISO_TIME);
        expect(json?.level, `${name}: ${line.text}`).to.be.oneOf(['trace', 'debug', 'info', 'warn', 'error', 'fatal']);
        expect(json?.process, `${name}: ${line.text}`).to.equal(name);
        for (const secret of [phone, phone.slice(1), national, secretKey, bogusKey, sessionToken, password]) {
          expect(line.text, `${name} logged a secret or the customer's phone number`).not.to.include(secret);
        }
        expect(line.text, `${name} logged webpack's statistics`).not.to.match(/modules by path|webpack \d+\.\d+/);
      }
    }

    // The API: one access line per request, with its request id, and merchant and payment ids once known.
    const apiLines = api.parsed().map((entry) => entry.json as Record<string, unknown>);
    const createLine = apiLines.find(
      (line) => line.msg === 'request' && line.method === 'POST' && line.path === '/v1/payments',
    );
    expect(createLine).to.include({
      request_id: 'obs-request-0001',
      merchant_id: merchantId,
      payment_id: paymentId,
      status: 201,
    });
    const showLines = apiLines.filter(
      (line) => line.msg === 'request' && line.path === `/v1/payments/${paymentId}` && line.status === 200,
    );
    expect(showLines.length).to.be.greaterThan(0);
    for (const line of showLines) {
      expect(line).to.include({ merchant_id: merchantId, payment_id: paymentId });
      expect(line.request_id).to.match(/^[0-9a-f-]{36}$/);
    }
    const callbackLines = apiLines.filter(
      (line) =>
        line.msg === 'request' && typeof line.path === 'string' && line.path.startsWith('/v1/provider-callbacks/'),
    );
    expect(callbackLines.length, 'the sandbox provider called back').to.be.greaterThan(0);

    // The worker: the payment's lines carry its ids; the Temporal SDK's own lines come through the same logger.
    const workerLines = worker.parsed().map((entry) => entry.json as Record<string, unknown>);
    const paymentLines = workerLines.filter((line) => line.payment_id === paymentId);
    expect(paymentLines.map((line) => line.msg)).to.include.members(['payment created', 'payment settled']);
    for (const line of paymentLines)
      expect(line, JSON.stringify(line)).to.include({ merchant_id: merchantId, workflow_id: `payment:${paymentId}` });
    expect(workerLines.some((line) => line.sdkComponent === 'worker' && line.msg === 'Worker state changed')).to.equal(
      true,
    );
    expect(workerLines.some((line) => line.msg === 'workflow bundle built')).to.equal(true);
  });
});
