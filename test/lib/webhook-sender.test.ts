/**
 * One delivery attempt against a real local receiver (docs/webhooks.md): signatures a merchant can verify
 * with the `standardwebhooks` library and with the hex scheme (with either secret during a
 * rotation's overlap), outcomes, the 1 KiB excerpt, no redirects, the time-out, and targets refused
 * after DNS resolution, IPv6 forms carrying IPv4 addresses included (no request is made).
 */
import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { sendWebhook, type SendWebhookOptions, type WebhookPayload } from '../../src/lib/webhook-sender';
import { newWebhookSecret } from '../../src/lib/webhook-signature';
import { nonPublicReason, resolveWebhookTarget } from '../../src/lib/webhook-target';
import { startReceiver, type Receiver } from '../helpers/receiver';

const payload: WebhookPayload = {
  id: 'evt_0123456789abcdefghijklmn',
  event: 'payment.completed',
  created_at: '2026-11-21T10:00:00.000Z',
  data: { id: 'pay_x', amount: 1500, note: 'héllo' },
};

describe('sendWebhook: one signed attempt (docs/webhooks.md)', function () {
  this.timeout(20_000);
  let receiver: Receiver;
  const secret = newWebhookSecret();

  before(async () => {
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
  });
  beforeEach(() => {
    receiver.requests.length = 0;
    receiver.respond(() => ({ status: 204 }));
  });

  function send(overrides: Partial<SendWebhookOptions> = {}) {
    return sendWebhook({
      url: `${receiver.origin}/hooks`,
      secrets: [secret],
      payload,
      environment: 'sandbox',
      allowPrivateTargetsInSandbox: true,
      ...overrides,
    });
  }

  it('creates a whsec_ secret of 32 random bytes (docs/webhooks.md#endpoints)', () => {
    expect(secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).to.have.length(32);
  });

  it('POSTs the JSON payload with both signatures, which verify as a merchant would check them (docs/webhooks.md#signatures)', async () => {
    const outcome = await send();
    expect(outcome).to.include({ statusCode: 204, error: null, retryAfterMs: null });
    const [request] = receiver.requests;
    expect(request?.method).to.equal('POST');
    expect(request?.headers['content-type']).to.equal('application/json');
    expect(request?.headers['webhook-id']).to.equal(payload.id);
    expect(Number(request?.headers['webhook-timestamp'])).to.be.closeTo(Date.now() / 1000, 5);
    // Standard Webhooks, with the npm library unchanged:
    const verified = new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>);
    expect(verified).to.deep.equal(payload);
    // The interface's scheme: hex HMAC-SHA256 of the raw body, keyed with the secret as shown.
    const expected = `sha256=${createHmac('sha256', secret).update(request!.body).digest('hex')}`;
    expect(request?.headers['x-webhook-signature']).to.equal(expected);
  });

  it('signs with both secrets during a rotation’s overlap: either verifies, with the library and with the hex scheme (docs/webhooks.md#secret-rotation)', async () => {
    const replaced = newWebhookSecret();
    await send({ secrets: [secret, replaced] });
    const [request] = receiver.requests;
    const headers = request!.headers as Record<string, string>;
    expect(headers['webhook-signature']!.split(' '))
      .to.have.length(2)
      .and.satisfy((values: string[]) => values.every((v) => v.startsWith('v1,')));
    for (const key of [secret, replaced]) {
      expect(new Webhook(key).verify(request!.body, headers)).to.deep.equal(payload);
      expect(headers['x-webhook-signature']!.split(' ')).to.include(
        `sha256=${createHmac('sha256', key).update(request!.body).digest('hex')}`,
      );
    }
    // The current secret's signatures come first.
    expect(headers['x-webhook-signature']!.split(' ')[0]).to.equal(
      `sha256=${createHmac('sha256', secret).update(request!.body).digest('hex')}`,
    );
    expect(() => new Webhook(newWebhookSecret()).verify(request!.body, headers)).to.throw(/No matching signature/);
  });

  it('fails verification with another secret', async () => {
    await send();
    const [request] = receiver.requests;
    expect(() =>
      new Webhook(newWebhookSecret()).verify(request!.body, request!.headers as Record<string, string>),
    ).to.throw(/No matching signature/);
  });

  it('records a failure status and the first 1 KiB of the answer, without NUL characters', async () => {
    receiver.respond(() => ({ status: 500, body: `\u0000${'x'.repeat(5000)}` }));
    const outcome = await send();
    expect(outcome.statusCode).to.equal(500);
    expect(outcome.responseBody).to.equal(`\uFFFD${'x'.repeat(1023)}`); // 1024 bytes read, the NUL replaced
    expect(outcome.durationMs).to.be.a('number').and.at.least(0);
  });

  it('cuts the excerpt at a character boundary', async () => {
    receiver.respond(() => ({ status: 400, body: 'é'.repeat(600) })); // 1200 bytes
    const outcome = await send();
    expect(outcome.responseBody).to.equal('é'.repeat(512));
  });

  it('reads Retry-After on 503 and 429, not on other statuses', async () => {
    receiver.respond(() => ({ status: 503, headers: { 'retry-after': '3600' } }));
    expect((await send()).retryAfterMs).to.equal(3_600_000);
    receiver.respond(() => ({ status: 429, headers: { 'retry-after': '90' } }));
    expect((await send()).retryAfterMs).to.equal(90_000);
    receiver.respond(() => ({ status: 500, headers: { 'retry-after': '3600' } }));
    expect((await send()).retryAfterMs).to.equal(null);
  });

  it('does not follow a redirect (docs/webhooks.md#retries): the 302 is the outcome', async () => {
    receiver.respond(() => ({ status: 302, headers: { location: `${receiver.origin}/elsewhere` } }));
    const outcome = await send();
    expect(outcome.statusCode).to.equal(302);
    await new Promise((r) => setTimeout(r, 100));
    expect(receiver.requests.map((r) => r.path)).to.deep.equal(['/hooks']);
  });

  it('gives up after the time-out with an error and no status', async () => {
    receiver.respond(() => ({ status: 200, delayMs: 2_000 }));
    const outcome = await send({ timeoutMs: 300 });
    expect(outcome).to.include({ statusCode: null, error: 'timed out after 300 ms without a response' });
    expect(outcome.durationMs).to.be.within(290, 1_500);
  });

  it('reports a refused connection as an error', async () => {
    const closed = await startReceiver();
    const url = `${closed.origin}/hooks`;
    await closed.close();
    const outcome = await send({ url });
    expect(outcome.statusCode).to.equal(null);
    expect(outcome.error).to.match(/ECONNREFUSED/);
  });

  describe('targets (docs/webhooks.md#targets), checked again at delivery', () => {
    for (const url of [
      'http://127.0.0.1:9/x',
      'https://127.0.0.1/x',
      'https://localhost/x',
      'https://[::1]/x',
      'https://[::ffff:127.0.0.1]/x',
      'https://10.0.0.8/x',
      'https://169.254.169.254/latest',
      'https://192.168.1.1/',
      'https://224.0.0.1/',
      'https://0.0.0.0/',
      'https://2130706433/',
    ]) {
      it(`refuses ${url} in live mode without sending anything`, async () => {
        const outcome = await send({ url, environment: 'live' });
        expect(outcome.statusCode).to.equal(null);
        expect(outcome.error).to.match(/^refused: url (must use https in live mode|host .* (is|resolves to))/);
      });
    }

    for (const [host, message] of [
      ['[::7f00:1]', 'url host ::7f00:1 is an IPv4-compatible IPv6 address (127.0.0.1, a loopback address)'],
      ['[::127.0.0.1]', 'url host ::7f00:1 is an IPv4-compatible IPv6 address (127.0.0.1, a loopback address)'],
      ['[0:0:0:0:0:0:7f00:1]', 'url host ::7f00:1 is an IPv4-compatible IPv6 address (127.0.0.1, a loopback address)'],
      ['[::a00:1]', 'url host ::a00:1 is an IPv4-compatible IPv6 address (10.0.0.1, a private address)'],
      ['[::c0a8:101]', 'url host ::c0a8:101 is an IPv4-compatible IPv6 address (192.168.1.1, a private address)'],
      [
        '[::a9fe:a9fe]',
        'url host ::a9fe:a9fe is an IPv4-compatible IPv6 address (169.254.169.254, a link-local address)',
      ],
      ['[::808:808]', 'url host ::808:808 is an IPv4-compatible IPv6 address (8.8.8.8)'],
      ['[::ffff:7f00:1]', 'url host ::ffff:7f00:1 is a loopback address'],
      ['[::ffff:a00:1]', 'url host ::ffff:a00:1 is a private address'],
      ['[::ffff:0:7f00:1]', 'url host ::ffff:0:7f00:1 is a reserved address (rfc6145)'],
      ['[64:ff9b::7f00:1]', 'url host 64:ff9b::7f00:1 is a reserved address (rfc6052)'],
      ['[2002:7f00:1::]', 'url host 2002:7f00:1:: is a reserved address (6to4)'],
    ] as const) {
      it(`refuses the IPv6 form https://${host}/x, and sends nothing`, async () => {
        const outcome = await send({ url: `https://${host}/x`, environment: 'live' });
        expect(outcome).to.include({ statusCode: null, error: `refused: ${message}; webhooks need a public host` });
      });
    }

    it('refuses a host name that resolves to an IPv4-compatible IPv6 address', async () => {
      const outcome = await send({
        url: 'https://v6.merchant.example/x',
        environment: 'live',
        resolve: async () => [{ address: '::7f00:1', family: 6 }],
      });
      expect(outcome.error).to.equal(
        'refused: url host v6.merchant.example resolves to ::7f00:1, an IPv4-compatible IPv6 address (127.0.0.1, a loopback address); webhooks need a public host',
      );
    });

    it('reads an IPv6 address with a dotted IPv4 tail as written (::8.8.8.8 is IPv4-compatible, ::ffff:8.8.8.8 a public mapped address)', () => {
      expect(nonPublicReason('::127.0.0.1')).to.equal(
        'an IPv4-compatible IPv6 address (127.0.0.1, a loopback address)',
      );
      expect(nonPublicReason('::8.8.8.8')).to.equal('an IPv4-compatible IPv6 address (8.8.8.8)');
      expect(nonPublicReason('::ffff:127.0.0.1')).to.equal('a loopback address');
      expect(nonPublicReason('::ffff:8.8.8.8')).to.equal(undefined);
      expect(nonPublicReason('::')).to.equal('an unspecified address');
      expect(nonPublicReason('::1')).to.equal('a loopback address');
    });

    it('refuses a sandbox private target where configuration does not allow it, and sends nothing', async () => {
      const outcome = await send({ allowPrivateTargetsInSandbox: false });
      expect(outcome.error).to.match(/^refused: url host 127\.0\.0\.1 is a loopback address/);
      expect(receiver.requests).to.have.length(0);
    });

    it('refuses a host name whose address changed to a private one since creation (resolution at delivery)', async () => {
      const outcome = await send({
        url: 'https://hooks.merchant.example/x',
        environment: 'live',
        resolve: async () => [{ address: '127.0.0.1', family: 4 }],
      });
      expect(outcome.error).to.equal(
        'refused: url host hooks.merchant.example resolves to 127.0.0.1, a loopback address; webhooks need a public host',
      );
    });

    it('refuses a host name when any of its addresses is private', async () => {
      const resolve = async () => [
        { address: '93.184.215.14', family: 4 },
        { address: '10.1.2.3', family: 4 },
      ];
      let message = '';
      await resolveWebhookTarget(new URL('https://mixed.example/'), false, resolve).catch(
        (error: Error) => (message = error.message),
      );
      expect(message).to.match(/resolves to 10\.1\.2\.3, a private address/);
    });

    it('accepts a host name that resolves to public addresses only, and returns exactly those to connect to', async () => {
      const addresses = await resolveWebhookTarget(new URL('https://public.example/'), false, async () => [
        { address: '93.184.215.14', family: 4 },
      ]);
      expect(addresses).to.deep.equal([{ address: '93.184.215.14', family: 4 }]);
    });

    it('classifies addresses: only public unicast passes', () => {
      expect(nonPublicReason('93.184.215.14')).to.equal(undefined);
      expect(nonPublicReason('2606:4700::1111')).to.equal(undefined);
      expect(nonPublicReason('fd12::1')).to.equal('a private address');
      expect(nonPublicReason('fe80::1')).to.equal('a link-local address');
      expect(nonPublicReason('100.64.0.1')).to.equal('a shared (carrier-grade NAT) address');
      expect(nonPublicReason('192.0.2.1')).to.equal('a reserved address (reserved)');
    });
  });
});
