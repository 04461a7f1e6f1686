/**
 * The webhook endpoints over real HTTP with the real worker (docs/webhooks.md): the record and its answers,
 * the URL rules (docs/webhooks.md#targets) in sandbox and live, bad input answered in the envelope changing nothing,
 * the
 * limit of 16, foreign ids, `webhook.created` (never to the webhook being created), test,
 * deliveries, retry, secret rotation with its 24 h overlap, and an endpoint failed by a 410 Gone.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { createApp } from '../../src/api/app';
import { createSandboxLedger } from '../../src/db/sandbox-ledger';
import { createLogger } from '../../src/logger';
import { providerRegistryFromConfig } from '../../src/providers/registry';
import { call, registerDeveloper, type TestDeveloper } from '../helpers/http';
import { insertLiveKey } from '../helpers/live-key';
import { startReceiver, verifyDelivery, type Receiver } from '../helpers/receiver';
import { getStack, testConfig } from '../helpers/stack';

const PATH = '/v1/developer/webhooks';

/**
 * The webhook as lists and events show it: everything but the secret (docs/payments.md#events,
 * docs/webhooks.md#endpoints).
 */
function withoutSecret(webhook: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(webhook).filter(([key]) => key !== 'secret'));
}

describe('webhook endpoints over HTTP (docs/webhooks.md)', function () {
  this.timeout(60_000);
  let receiver: Receiver;
  let developer: TestDeveloper;

  before(async () => {
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
  });
  beforeEach(async () => {
    developer = await registerDeveloper();
    receiver.respond(() => ({ status: 204 }));
  });

  async function create(body: object, key = developer.key) {
    const response = await call(PATH, { key, body });
    expect(response.status, JSON.stringify(response.body)).to.equal(201);
    return response.body.data;
  }

  async function count(key = developer.key): Promise<number> {
    return (await call(PATH, { key })).body.data.webhooks.length;
  }

  /** Requests the receiver got for this path, after `count` arrived. */
  async function receivedAt(path: string, count: number) {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const got = receiver.requests.filter((r) => r.path === path);
      if (got.length >= count || Date.now() > deadline) return got;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  describe('the record (docs/webhooks.md#endpoints)', () => {
    it('creates an enabled webhook and shows its whsec_ secret once', async () => {
      const data = await create({
        url: `${receiver.origin}/one`,
        events: ['payment.completed', 'payment.failed', 'payment.completed'],
        description: 'orders',
      });
      expect(data).to.include({
        object: 'webhook',
        url: `${receiver.origin}/one`,
        status: 'enabled',
        description: 'orders',
        environment: 'sandbox',
      });
      expect(data.id).to.match(/^whk_[0-9A-Za-z]{24}$/);
      expect(data.events).to.deep.equal(['payment.completed', 'payment.failed']);
      expect(data.secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(data.created_at).to.equal(data.updated_at);

      const listed = await call(PATH, { key: developer.key });
      expect(listed.status).to.equal(200);
      expect(listed.body).to.include({ success: true });
      expect(listed.body.data.webhooks).to.have.length(1);
      expect(listed.body.data.webhooks[0]).to.deep.equal(withoutSecret(data));
      const shown = await call(`${PATH}/${data.id}`, { key: developer.key });
      expect(shown.body.data).not.to.have.property('secret');
    });

    it('takes a session token as well as a secret key (docs/api.md#credentials), and nothing else', async () => {
      const data = await create({ url: `${receiver.origin}/session`, events: ['payment.created'] }, developer.token);
      expect((await call(`${PATH}/${data.id}`, { key: developer.key })).status).to.equal(200);
      expect((await call(PATH)).status).to.equal(401);
      const bad = await call(PATH, { key: 'sk_sandbox_' + 'x'.repeat(32) });
      expect(bad.status).to.equal(401);
      expect(bad.body.error.code).to.equal('invalid_api_key');
    });

    it('changes url, events, status and description with PUT, and clears the description with null', async () => {
      const data = await create({ url: `${receiver.origin}/before`, events: ['payment.created'], description: 'x' });
      const response = await call(`${PATH}/${data.id}`, {
        key: developer.key,
        method: 'PUT',
        body: { url: `${receiver.origin}/after`, events: ['refund.completed'], status: 'disabled', description: null },
      });
      expect(response.status).to.equal(200);
      expect(response.body.data).to.include({ url: `${receiver.origin}/after`, status: 'disabled', description: null });
      expect(response.body.data.events).to.deep.equal(['refund.completed']);
      expect(Date.parse(response.body.data.updated_at)).to.be.at.least(Date.parse(data.updated_at));
      const enabled = await call(`${PATH}/${data.id}`, {
        key: developer.key,
        method: 'PUT',
        body: { status: 'enabled' },
      });
      expect(enabled.body.data.status).to.equal('enabled');
    });

    it('refuses an empty PUT, the status failed and unknown fields, changing nothing', async () => {
      const data = await create({ url: `${receiver.origin}/keep`, events: ['payment.created'] });
      for (const [body, message] of [
        [{}, 'body must change at least one of: url, events, status, description'],
        [{ status: 'failed' }, 'status must be one of: enabled, disabled'],
        [{ secret: 'whsec_mine' }, 'unknown field: secret'],
        [{ url: 'ftp://files.example.com/x' }, 'url must use http or https'],
        [{ events: [] }, 'events must not be empty'],
      ] as const) {
        const response = await call(`${PATH}/${data.id}`, { key: developer.key, method: 'PUT', body });
        expect(response.status, JSON.stringify(body)).to.equal(400);
        expect(response.body.error).to.include({ code: 'validation_error', message });
      }
      const shown = (await call(`${PATH}/${data.id}`, { key: developer.key })).body.data;
      expect(shown).to.include({ url: `${receiver.origin}/keep`, status: 'enabled', updated_at: data.updated_at });
    });

    it('deletes a webhook: 200 {id, deleted: true}, then it is gone everywhere', async () => {
      const data = await create({ url: `${receiver.origin}/bye`, events: ['payment.created'] });
      const response = await call(`${PATH}/${data.id}`, { key: developer.key, method: 'DELETE' });
      expect(response.status).to.equal(200);
      expect(response.body.data).to.deep.equal({ id: data.id, deleted: true });
      expect((await call(`${PATH}/${data.id}`, { key: developer.key })).status).to.equal(404);
      expect((await call(`${PATH}/${data.id}`, { key: developer.key, method: 'DELETE' })).status).to.equal(404);
      expect(await count()).to.equal(0);
    });

    it('allows 16 webhooks per merchant and environment and refuses the 17th with 409, creating nothing (docs/webhooks.md#endpoints)', async () => {
      for (let i = 0; i < 16; i += 1) await create({ url: `${receiver.origin}/n${i}`, events: ['payment.created'] });
      const response = await call(PATH, {
        key: developer.key,
        body: { url: `${receiver.origin}/n16`, events: ['payment.created'] },
      });
      expect(response.status).to.equal(409);
      expect(response.body).to.deep.equal({
        success: false,
        error: { code: 'conflict', message: 'at most 16 webhooks per merchant and environment; delete one first' },
      });
      expect(await count()).to.equal(16);
      // The live environment has its own 16.
      const live = await insertLiveKey(developer.merchantId);
      await create({ url: 'https://93.184.215.14/hooks', events: ['payment.failed'] }, live);
      // Deleting one makes room again.
      const [first] = (await call(PATH, { key: developer.key })).body.data.webhooks;
      await call(`${PATH}/${first.id}`, { key: developer.key, method: 'DELETE' });
      await create({ url: `${receiver.origin}/n16`, events: ['payment.created'] });
    });

    it('answers 404 for another merchant’s webhook on every operation (docs/api.md#merchants-and-environments)', async () => {
      const data = await create({ url: `${receiver.origin}/mine`, events: ['payment.created'] });
      const other = await registerDeveloper();
      const id = data.id as string;
      for (const [method, path, body] of [
        ['GET', `${PATH}/${id}`, undefined],
        ['PUT', `${PATH}/${id}`, { status: 'disabled' }],
        ['DELETE', `${PATH}/${id}`, undefined],
        ['POST', `${PATH}/${id}/test`, undefined],
        ['POST', `${PATH}/${id}/rotate-secret`, undefined],
        ['GET', `${PATH}/${id}/deliveries`, undefined],
        ['POST', `${PATH}/${id}/deliveries/dlv_${'x'.repeat(24)}/retry`, undefined],
      ] as const) {
        const response = await call(path, { key: other.key, method, body });
        expect(response.status, `${method} ${path}`).to.equal(404);
        expect(response.body.error.code).to.equal('not_found');
      }
      expect(receiver.requests.filter((r) => r.path === '/mine')).to.have.length(0);
      expect((await call(`${PATH}/${id}`, { key: developer.key })).body.data.status).to.equal('enabled');
    });
  });

  describe('bad input (docs/webhooks.md, docs/api.md#errors)', () => {
    for (const [name, body, message] of [
      ['an invalid URL', { url: 'not a url', events: ['payment.created'] }, 'url must be a valid absolute URL'],
      [
        'an ftp URL',
        { url: 'ftp://files.example.com/hook', events: ['payment.created'] },
        'url must use http or https',
      ],
      ['a file URL', { url: 'file:///etc/passwd', events: ['payment.created'] }, 'url must use http or https'],
      [
        'a URL with credentials',
        { url: 'https://me:pw@hooks.example.com/', events: ['payment.created'] },
        'url must not contain a user name or password',
      ],
      [
        'an unknown event name',
        { url: 'https://hooks.example.com/', events: ['payment.created', 'payment.exploded'] },
        'events.1 must be one of: payment.created, payment.completed, payment.failed, payment.cancelled, refund.completed, refund.failed, webhook.created, payout.created, payout.paid, payout.failed, payout.returned, checkout.session.completed, checkout.session.expired, provider.status_changed',
      ],
      [
        'webhook.test as a subscription',
        { url: 'https://hooks.example.com/', events: ['webhook.test'] },
        'events.0 must be one of: payment.created, payment.completed, payment.failed, payment.cancelled, refund.completed, refund.failed, webhook.created, payout.created, payout.paid, payout.failed, payout.returned, checkout.session.completed, checkout.session.expired, provider.status_changed',
      ],
      ['an empty events list', { url: 'https://hooks.example.com/', events: [] }, 'events must not be empty'],
      ['no events', { url: 'https://hooks.example.com/' }, 'events is required'],
      ['no url', { events: ['payment.created'] }, 'url is required'],
      [
        'an unknown field',
        { url: 'https://hooks.example.com/', events: ['payment.created'], secret: 'whsec_x' },
        'unknown field: secret',
      ],
    ] as const) {
      it(`refuses ${name} with 400 naming the field, creating nothing`, async () => {
        const response = await call(PATH, { key: developer.key, body });
        expect(response.status).to.equal(400);
        expect(response.body).to.deep.include({ success: false });
        expect(response.body.error).to.include({ code: 'validation_error', message });
        expect(await count()).to.equal(0);
      });
    }

    it('refuses a body that is not JSON', async () => {
      const response = await call(PATH, {
        key: developer.key,
        rawBody: '{"url":',
        headers: { 'content-type': 'application/json' },
        method: 'POST',
      });
      expect(response.status).to.equal(400);
      expect(response.body.error.code).to.equal('invalid_request');
    });

    describe('live mode: https only and no private targets (docs/webhooks.md#targets)', () => {
      let live: string;
      beforeEach(async () => {
        live = await insertLiveKey(developer.merchantId);
      });

      for (const [url, message] of [
        ['http://93.184.215.14/hooks', 'url must use https in live mode'],
        ['https://127.0.0.1/hooks', 'url host 127.0.0.1 is a loopback address; webhooks need a public host'],
        ['https://localhost/hooks', 'url host localhost resolves to '],
        ['https://[::1]/hooks', 'url host ::1 is a loopback address; webhooks need a public host'],
        [
          'https://[::7f00:1]/hooks',
          'url host ::7f00:1 is an IPv4-compatible IPv6 address (127.0.0.1, a loopback address); webhooks need a public host',
        ],
        [
          'https://[::127.0.0.1]/hooks',
          'url host ::7f00:1 is an IPv4-compatible IPv6 address (127.0.0.1, a loopback address); webhooks need a public host',
        ],
        ['https://[::ffff:7f00:1]/hooks', 'url host ::ffff:7f00:1 is a loopback address; webhooks need a public host'],
        [
          'https://[::a00:1]/hooks',
          'url host ::a00:1 is an IPv4-compatible IPv6 address (10.0.0.1, a private address); webhooks need a public host',
        ],
        ['https://10.0.0.12/hooks', 'url host 10.0.0.12 is a private address; webhooks need a public host'],
        ['https://192.168.0.1/hooks', 'url host 192.168.0.1 is a private address; webhooks need a public host'],
        [
          'https://169.254.169.254/latest/meta-data',
          'url host 169.254.169.254 is a link-local address; webhooks need a public host',
        ],
        ['https://239.1.1.1/hooks', 'url host 239.1.1.1 is a multicast address; webhooks need a public host'],
      ] as const) {
        it(`refuses ${url}`, async () => {
          const response = await call(PATH, { key: live, body: { url, events: ['payment.completed'] } });
          expect(response.status).to.equal(400);
          expect(response.body.error.code).to.equal('validation_error');
          expect(response.body.error.message.startsWith(message), response.body.error.message).to.equal(true);
          expect(response.body.error.details).to.deep.equal([{ field: 'url', message: response.body.error.message }]);
          expect(await count(live)).to.equal(0);
        });
      }

      it('names the loopback address a host name resolves to (localhost → 127.0.0.1 or ::1)', async () => {
        const response = await call(PATH, {
          key: live,
          body: { url: 'https://localhost:8443/hooks', events: ['payment.completed'] },
        });
        expect(response.body.error.message).to.match(
          /^url host localhost resolves to (127\.0\.0\.1|::1), a loopback address; webhooks need a public host$/,
        );
      });

      it('refuses a private URL on PUT too, leaving the webhook as it was', async () => {
        const data = await create({ url: 'https://93.184.215.14/hooks', events: ['payment.failed'] }, live);
        const response = await call(`${PATH}/${data.id}`, {
          key: live,
          method: 'PUT',
          body: { url: 'https://localhost/hooks' },
        });
        expect(response.status).to.equal(400);
        expect((await call(`${PATH}/${data.id}`, { key: live })).body.data.url).to.equal('https://93.184.215.14/hooks');
      });

      it('keeps live and sandbox apart: a live webhook is not found with the sandbox key (docs/api.md#merchants-and-environments)', async () => {
        const data = await create({ url: 'https://93.184.215.14/hooks', events: ['payment.failed'] }, live);
        expect(data.environment).to.equal('live');
        expect((await call(`${PATH}/${data.id}`, { key: developer.key })).status).to.equal(404);
      });
    });

    it('refuses private sandbox targets where configuration does not allow them (docs/webhooks.md#targets, production default)', async () => {
      const { db, client } = await getStack();
      const config = testConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' });
      const app = createApp({
        config,
        db,
        temporal: client,
        providers: providerRegistryFromConfig(createSandboxLedger(db), config),
        logger: createLogger('webhook-test', 'silent'),
      });
      const server = http.createServer(app.callback());
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        const response = await fetch(`${base}${PATH}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${developer.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ url: `${receiver.origin}/private`, events: ['payment.created'] }),
        });
        expect(response.status).to.equal(400);
        expect(((await response.json()) as { error: { message: string } }).error.message).to.equal(
          'url host 127.0.0.1 is a loopback address; webhooks need a public host',
        );
      } finally {
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
      expect(await count()).to.equal(0);
    });
  });

  describe('webhook.created (docs/payments.md#events)', () => {
    it('is written once per webhook and delivered to the other subscribers, without the secret, never to the webhook being created', async () => {
      const first = await create({ url: `${receiver.origin}/created`, events: ['webhook.created'] });
      const second = await create({ url: `${receiver.origin}/other`, events: ['payment.created'] });
      const third = await create({ url: `${receiver.origin}/created-too`, events: ['webhook.created'] });
      const requests = await receivedAt('/created', 2);
      const payloads = requests.map((r) => verifyDelivery(r, first.secret));
      expect(payloads.map((p) => [p.event, p.data.id])).to.have.deep.members([
        ['webhook.created', second.id],
        ['webhook.created', third.id],
      ]);
      const forSecond = payloads.find((p) => p.data.id === second.id)!;
      expect(forSecond.data).to.deep.equal(withoutSecret(second));
      await new Promise((r) => setTimeout(r, 500));
      // Its own creation reaches no webhook: its receiver cannot know the secret yet.
      expect(receiver.requests.filter((r) => r.path === '/created')).to.have.length(2);
      expect(receiver.requests.filter((r) => r.path === '/created-too' || r.path === '/other')).to.have.length(0);
      expect(
        (await call(`${PATH}/${third.id}/deliveries`, { key: developer.key })).body.data.pagination.total,
      ).to.equal(0);
      // Every creation is an event, the first webhook's own included.
      const events = await call('/v1/developer/events?type=webhook.created', { key: developer.key });
      const written = events.body.data.events as { id: string; data: { id: string } }[];
      expect(written.map((e) => e.data.id)).to.have.members([first.id, second.id, third.id]);
      expect(written.map((e) => e.id)).to.include.members(payloads.map((p) => p.id));
    });
  });

  describe('test (docs/webhooks.md#test)', () => {
    it('sends one signed webhook.test at once and answers what happened', async () => {
      const data = await create({ url: `${receiver.origin}/test`, events: ['payment.created'] });
      const response = await call(`${PATH}/${data.id}/test`, { key: developer.key, method: 'POST' });
      expect(response.status).to.equal(200);
      expect(response.body.data).to.include({ delivered: true, status_code: 204, error: null });
      expect(response.body.data.duration_ms).to.be.a('number').and.at.least(0);
      const [request] = await receivedAt('/test', 1);
      const payload = verifyDelivery(request!, data.secret);
      expect(payload).to.include({ event: 'webhook.test' });
      expect(payload.id).to.match(/^evt_/);
      expect(payload.data).to.deep.equal({ webhook_id: data.id });
    });

    it('answers delivered false for a failing endpoint without changing its status, and logs the attempt', async () => {
      receiver.respond(() => ({ status: 500, body: 'nope' }));
      const data = await create({ url: `${receiver.origin}/test-fail`, events: ['payment.created'] });
      const response = await call(`${PATH}/${data.id}/test`, { key: developer.key, method: 'POST' });
      expect(response.body.data).to.include({ delivered: false, status_code: 500, error: null });
      expect((await call(`${PATH}/${data.id}`, { key: developer.key })).body.data.status).to.equal('enabled');
      const log = (await call(`${PATH}/${data.id}/deliveries`, { key: developer.key })).body.data;
      expect(log.deliveries).to.have.length(1);
      expect(log.deliveries[0]).to.include({ event: 'webhook.test', status: 'failed', attempt_count: 1 });
      expect(log.deliveries[0].attempts[0]).to.include({ attempt: 1, status_code: 500, response_body: 'nope' });
      const retry = await call(`${PATH}/${data.id}/deliveries/${log.deliveries[0].id}/retry`, {
        key: developer.key,
        method: 'POST',
      });
      expect(retry.status).to.equal(409);
      expect(retry.body.error.code).to.equal('conflict');
    });

    it('reports an endpoint that does not answer as an error', async () => {
      const closed = await startReceiver();
      const url = `${closed.origin}/gone`;
      await closed.close();
      const data = await create({ url, events: ['payment.created'] });
      const response = await call(`${PATH}/${data.id}/test`, { key: developer.key, method: 'POST' });
      expect(response.body.data).to.include({ delivered: false, status_code: null });
      expect(response.body.data.error).to.match(/ECONNREFUSED/);
    });
  });

  describe('deliveries, retry and rotation (docs/webhooks.md#endpoints, docs/webhooks.md#retries)', () => {
    it('lists deliveries newest first with their attempts, paginated, and retries one as a new delivery of the same event', async () => {
      const data = await create({ url: `${receiver.origin}/log`, events: ['webhook.created'] });
      await create({ url: `${receiver.origin}/log-2`, events: ['payment.created'] });
      await create({ url: `${receiver.origin}/log-3`, events: ['payment.created'] });
      await receivedAt('/log', 2);
      const settled = (page: { deliveries: { status: string }[] }) =>
        page.deliveries.length === 2 && page.deliveries.every((d) => d.status === 'succeeded');
      for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
        if (settled((await call(`${PATH}/${data.id}/deliveries`, { key: developer.key })).body.data)) break;
      }
      const page1 = await call(`${PATH}/${data.id}/deliveries?limit=1`, { key: developer.key });
      expect(page1.status).to.equal(200);
      expect(page1.body.data.pagination).to.deep.equal({ page: 1, limit: 1, total: 2, total_pages: 2 });
      const [newest] = page1.body.data.deliveries;
      expect(newest).to.include({
        object: 'webhook_delivery',
        webhook_id: data.id,
        event: 'webhook.created',
        status: 'succeeded',
        attempt_count: 1,
        next_attempt_at: null,
        retry_of: null,
      });
      expect(newest.id).to.match(/^dlv_/);
      expect(newest.attempts).to.have.length(1);
      expect(newest.attempts[0]).to.include({ attempt: 1, status_code: 204, response_body: '', error: null });
      const page2 = await call(`${PATH}/${data.id}/deliveries?limit=1&page=2`, { key: developer.key });
      expect(Date.parse(page2.body.data.deliveries[0].created_at)).to.be.at.most(Date.parse(newest.created_at));
      expect((await call(`${PATH}/${data.id}/deliveries?limit=500`, { key: developer.key })).status).to.equal(400);

      const retried = await call(`${PATH}/${data.id}/deliveries/${newest.id}/retry`, {
        key: developer.key,
        method: 'POST',
      });
      expect(retried.status).to.equal(201);
      expect(retried.body.data).to.include({ event_id: newest.event_id, retry_of: newest.id });
      expect(retried.body.data.id).not.to.equal(newest.id);
      const requests = await receivedAt('/log', 3);
      expect(requests.filter((r) => r.headers['webhook-id'] === newest.event_id)).to.have.length(2);
    });

    it('refuses to retry toward a disabled webhook (409) and sends a disabled webhook nothing', async () => {
      const data = await create({ url: `${receiver.origin}/off`, events: ['webhook.created'] });
      await create({ url: `${receiver.origin}/off-1`, events: ['payment.created'] });
      await receivedAt('/off', 1);
      const [delivery] = (await call(`${PATH}/${data.id}/deliveries`, { key: developer.key })).body.data.deliveries;
      await call(`${PATH}/${data.id}`, { key: developer.key, method: 'PUT', body: { status: 'disabled' } });
      const retry = await call(`${PATH}/${data.id}/deliveries/${delivery.id}/retry`, {
        key: developer.key,
        method: 'POST',
      });
      expect(retry.status).to.equal(409);
      await create({ url: `${receiver.origin}/off-2`, events: ['payment.created'] });
      await new Promise((r) => setTimeout(r, 1_000));
      expect(receiver.requests.filter((r) => r.path === '/off')).to.have.length(1);
      expect((await call(`${PATH}/${data.id}/deliveries`, { key: developer.key })).body.data.pagination.total).to.equal(
        1,
      );
    });

    it('answers 404 for a delivery of another webhook or another merchant, starting nothing (docs/api.md#merchants-and-environments)', async () => {
      const mine = await create({ url: `${receiver.origin}/scope-a`, events: ['webhook.created'] });
      const other = await create({ url: `${receiver.origin}/scope-b`, events: ['webhook.created'] });
      // Mine hears of the other's creation (not of its own): one delivery, then nothing more from what follows.
      await receivedAt('/scope-a', 1);
      const [delivery] = (await call(`${PATH}/${mine.id}/deliveries`, { key: developer.key })).body.data.deliveries;
      // Another of my webhooks: the delivery is not its.
      const wrongWebhook = await call(`${PATH}/${other.id}/deliveries/${delivery.id}/retry`, {
        key: developer.key,
        method: 'POST',
      });
      expect(wrongWebhook.status).to.equal(404);
      expect(wrongWebhook.body.error.message).to.include(`no delivery with id ${delivery.id}`);
      // Another merchant, through its own webhook and through mine: never found.
      const stranger = await registerDeveloper();
      const theirs = await create({ url: `${receiver.origin}/scope-c`, events: ['webhook.created'] }, stranger.key);
      for (const webhookId of [theirs.id, mine.id]) {
        const foreign = await call(`${PATH}/${webhookId}/deliveries/${delivery.id}/retry`, {
          key: stranger.key,
          method: 'POST',
        });
        expect(foreign.status, webhookId).to.equal(404);
        expect(foreign.body.error.code).to.equal('not_found');
      }
      await new Promise((r) => setTimeout(r, 500));
      expect(receiver.requests.filter((r) => r.path === '/scope-a')).to.have.length(1);
      expect((await call(`${PATH}/${mine.id}/deliveries`, { key: developer.key })).body.data.pagination.total).to.equal(
        1,
      );
    });

    it('after a rotation signs with the new and the old secret for 24 h, either verifying, and says until when (#secret-rotation)', async () => {
      const data = await create({ url: `${receiver.origin}/rotate`, events: ['webhook.created'] });
      const before = Date.now();
      const rotated = await call(`${PATH}/${data.id}/rotate-secret`, { key: developer.key, method: 'POST' });
      expect(rotated.status).to.equal(200);
      expect(rotated.body.data).to.include({ id: data.id, url: data.url, status: 'enabled' });
      expect(rotated.body.data.secret)
        .to.match(/^whsec_/)
        .and.not.equal(data.secret);
      const until = Date.parse(rotated.body.data.previous_secret_expires_at);
      expect(until - before).to.be.within(24 * 3_600_000 - 1_000, 24 * 3_600_000 + 5_000);
      const shown = (await call(`${PATH}/${data.id}`, { key: developer.key })).body.data;
      expect(shown).to.include({ previous_secret_expires_at: rotated.body.data.previous_secret_expires_at });
      expect(shown).not.to.have.property('secret');

      // A test and a workflow delivery (another webhook's creation): each verifies with either secret.
      await call(`${PATH}/${data.id}/test`, { key: developer.key, method: 'POST' });
      await create({ url: `${receiver.origin}/rotate-2`, events: ['payment.created'] });
      const requests = await receivedAt('/rotate', 2);
      expect(requests.map((r) => JSON.parse(r.body).event)).to.have.members(['webhook.test', 'webhook.created']);
      for (const request of requests) {
        for (const secret of [rotated.body.data.secret, data.secret]) {
          expect(verifyDelivery(request, secret).id).to.equal(request.headers['webhook-id']);
          expect(new Webhook(secret).verify(request.body, request.headers as Record<string, string>)).to.have.property(
            'id',
          );
        }
      }
    });

    it('signs with the new secret only once the 24 h have passed, and a second rotation drops the secret the first one replaced', async () => {
      const { db } = await getStack();
      const data = await create({ url: `${receiver.origin}/rotated`, events: ['payment.created'] });
      const first = (await call(`${PATH}/${data.id}/rotate-secret`, { key: developer.key, method: 'POST' })).body.data;
      await db('webhooks')
        .where({ id: data.id })
        .update({ previous_secret_expires_at: new Date(Date.now() - 1_000) });
      expect((await call(`${PATH}/${data.id}`, { key: developer.key })).body.data.previous_secret_expires_at).to.equal(
        null,
      );
      await call(`${PATH}/${data.id}/test`, { key: developer.key, method: 'POST' });
      const [after] = await receivedAt('/rotated', 1);
      verifyDelivery(after!, first.secret);
      expect(() => verifyDelivery(after!, data.secret)).to.throw();
      expect(() => new Webhook(data.secret).verify(after!.body, after!.headers as Record<string, string>)).to.throw(
        /No matching signature/,
      );

      // Two rotations in a row: the secret just replaced stays valid, the one replaced before it no longer.
      const second = (await call(`${PATH}/${data.id}/rotate-secret`, { key: developer.key, method: 'POST' })).body.data;
      const third = (await call(`${PATH}/${data.id}/rotate-secret`, { key: developer.key, method: 'POST' })).body.data;
      await call(`${PATH}/${data.id}/test`, { key: developer.key, method: 'POST' });
      const [, latest] = await receivedAt('/rotated', 2);
      verifyDelivery(latest!, third.secret);
      verifyDelivery(latest!, second.secret);
      expect(() => verifyDelivery(latest!, first.secret)).to.throw();
    });
  });

  describe('an endpoint that answers 410 Gone (#endpoint-failure)', () => {
    it('is marked failed with the reason shown, gets nothing more, refuses retries, and comes back when the merchant enables it', async () => {
      receiver.respond((request) =>
        request.path === '/gone' ? { status: 410, body: 'no such hook' } : { status: 204 },
      );
      const data = await create({ url: `${receiver.origin}/gone`, events: ['webhook.created'] });
      await create({ url: `${receiver.origin}/gone-1`, events: ['payment.created'] });
      await receivedAt('/gone', 1);
      let shown: Record<string, any> = {};
      for (
        const deadline = Date.now() + 10_000;
        Date.now() < deadline && shown.status !== 'failed';
        await new Promise((r) => setTimeout(r, 100))
      ) {
        shown = (await call(`${PATH}/${data.id}`, { key: developer.key })).body.data;
      }
      const [delivery] = (await call(`${PATH}/${data.id}/deliveries`, { key: developer.key })).body.data.deliveries;
      expect(delivery).to.include({ status: 'failed', attempt_count: 1 });
      expect(shown).to.include({
        status: 'failed',
        failure_reason: `the endpoint answered 410 Gone at ${delivery.attempts[0].attempted_at}`,
      });
      const listed = (await call(PATH, { key: developer.key })).body.data.webhooks.find(
        (w: { id: string }) => w.id === data.id,
      );
      expect(listed).to.include({ status: 'failed', failure_reason: shown.failure_reason });

      // Nothing more: no delivery starts, and a retry is refused.
      await create({ url: `${receiver.origin}/gone-2`, events: ['payment.created'] });
      const retry = await call(`${PATH}/${data.id}/deliveries/${delivery.id}/retry`, {
        key: developer.key,
        method: 'POST',
      });
      expect(retry.status).to.equal(409);
      expect(retry.body.error.message).to.equal(
        `webhook ${data.id} failed: its endpoint answered 410 Gone; enable it before retrying a delivery`,
      );
      await new Promise((r) => setTimeout(r, 1_000));
      expect(receiver.requests.filter((r) => r.path === '/gone')).to.have.length(1);
      expect((await call(`${PATH}/${data.id}/deliveries`, { key: developer.key })).body.data.pagination.total).to.equal(
        1,
      );

      // The merchant enables it again: the reason is cleared and deliveries resume.
      receiver.respond(() => ({ status: 204 }));
      const enabled = await call(`${PATH}/${data.id}`, {
        key: developer.key,
        method: 'PUT',
        body: { status: 'enabled' },
      });
      expect(enabled.body.data).to.include({ status: 'enabled', failure_reason: null });
      await create({ url: `${receiver.origin}/gone-3`, events: ['payment.created'] });
      const [, again] = await receivedAt('/gone', 2);
      expect(verifyDelivery(again!, data.secret).event).to.equal('webhook.created');
    });
  });
});
