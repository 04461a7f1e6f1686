/**
 * A checkout session's live status (docs/checkout.md#live-status) over real HTTP against the real stack: without a
 * key, the current state first, then each change of the latest attempt and of the session, until the session is final
 * and the stream ends; a final session answers its state and ends at once; 404 for an unknown id; heartbeats; the
 * per-session and per-address caps (429 with Retry-After) and a client that leaves freeing its place.
 */
import { expect } from 'chai';
import { call, registerDeveloper, type TestDeveloper } from '../helpers/http';
import { startApp } from '../helpers/processes';
import { openSse, type StreamClient } from '../helpers/sse';
import { getStack, testConfig } from '../helpers/stack';

const SESSION = {
  amount: 2_500,
  currency: 'RWF',
  description: 'Two baskets',
  success_url: 'https://shop.example/paid',
};

interface LiveState {
  status: string;
  attempt: { status: string; failure_code: string | null } | null;
}

const opened: StreamClient[] = [];

async function openStatus(id: string, baseUrl?: string): Promise<StreamClient> {
  const base = baseUrl ?? (await getStack()).baseUrl;
  const client = await openSse(`${base}/v1/checkout/sessions/${id}/events`);
  opened.push(client);
  return client;
}

const states = (client: StreamClient) => client.messages.map((m) => JSON.parse(m.data) as LiveState);
const last = (client: StreamClient) => states(client).at(-1);

async function createSession(dev: TestDeveloper): Promise<{ id: string }> {
  const created = await call('/v1/checkout/sessions', {
    key: dev.key,
    body: SESSION,
    headers: { 'idempotency-key': `ev-${Math.random()}` },
  });
  expect(created.status, JSON.stringify(created.body)).to.equal(201);
  return created.body.data;
}

const attempt = (id: string, phone: string) =>
  call(`/v1/checkout/sessions/${id}/attempts`, { body: { payment_method: 'mobile_money', phone_number: phone } });

describe('checkout session live status (docs/checkout.md#live-status)', function () {
  this.timeout(120_000);
  let dev: TestDeveloper;
  before(async () => {
    dev = await registerDeveloper();
  });
  afterEach(() => {
    for (const client of opened.splice(0)) client.close();
  });

  it('sends the current state first, then a decline, then the success, and ends once the session is complete', async () => {
    const session = await createSession(dev);
    const stream = await openStatus(session.id);
    expect(stream.status).to.equal(200);
    expect(stream.headers.get('content-type')).to.match(/^text\/event-stream/);
    expect(stream.headers.get('cache-control')).to.equal('no-cache, no-transform');
    await stream.until(() => stream.messages.length >= 1, 'the first state');
    expect(states(stream)[0]).to.deep.equal({ status: 'open', attempt: null });
    expect(stream.comments[0]).to.equal('connected');

    const declined = await attempt(session.id, '+250788000002');
    expect(declined.status, JSON.stringify(declined.body)).to.equal(201);
    await stream.until(() => last(stream)?.attempt?.status === 'failed', 'the decline');
    expect(last(stream)).to.deep.equal({ status: 'open', attempt: { status: 'failed', failure_code: 'declined' } });

    // The decline's outcome reaches the session before the next attempt is admitted.
    let paid = await attempt(session.id, '+250788000001');
    for (let i = 0; paid.status === 409 && i < 50; i++) {
      await new Promise((r) => setTimeout(r, 200));
      paid = await attempt(session.id, '+250788000001');
    }
    expect(paid.status, JSON.stringify(paid.body)).to.equal(201);
    await stream.ended;
    expect(last(stream)).to.deep.equal({ status: 'complete', attempt: { status: 'completed', failure_code: null } });
    expect(stream.comments.at(-1)).to.equal('checkout session complete');
    // No message repeats the one before it: each is a change.
    const sent = stream.messages.map((m) => m.data);
    expect(sent.filter((data, i) => i > 0 && data === sent[i - 1])).to.deep.equal([]);
  });

  it('answers a final session with its state and ends at once', async () => {
    const session = await createSession(dev);
    const expired = await call(`/v1/checkout/sessions/${session.id}/expire`, { key: dev.key, method: 'POST' });
    expect(expired.status).to.equal(200);
    const stream = await openStatus(session.id);
    expect(stream.status).to.equal(200);
    await stream.ended;
    expect(states(stream)).to.deep.equal([{ status: 'expired', attempt: null }]);
  });

  it('answers 404 in the envelope for an unknown session, without a stream', async () => {
    const { baseUrl } = await getStack();
    const response = await fetch(`${baseUrl}/v1/checkout/sessions/cs_000000000000000000000000/events`, {
      headers: { accept: 'text/event-stream' },
    });
    expect(response.status).to.equal(404);
    expect(response.headers.get('content-type')).to.match(/^application\/json/);
    expect(((await response.json()) as { error: { code: string } }).error.code).to.equal('not_found');
  });

  describe('with short heartbeats and small caps', () => {
    let app: { baseUrl: string; close(): Promise<void> };
    before(async () => {
      app = await startApp(
        testConfig({
          RATE_LIMIT_MULTIPLIER: '1000',
          EVENT_STREAM_HEARTBEAT_MS: '100',
          CHECKOUT_STREAM_MAX_PER_SESSION: '2',
          CHECKOUT_STREAM_MAX_PER_ADDRESS: '3',
        }),
      );
    });
    after(async () => {
      for (const client of opened.splice(0)) client.close();
      await app.close();
    });

    /** Opens a stream of `id` once the server freed a closed client's place (within 5 s). */
    async function openWhenFree(id: string): Promise<StreamClient> {
      const deadline = Date.now() + 5_000;
      let stream = await openStatus(id, app.baseUrl);
      while (stream.status === 429 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        stream = await openStatus(id, app.baseUrl);
      }
      return stream;
    }

    it('keeps an open stream alive with heartbeat comments', async () => {
      const session = await createSession(dev);
      const stream = await openStatus(session.id, app.baseUrl);
      await stream.until(() => stream.comments.filter((c) => c.startsWith('heartbeat')).length >= 2, 'heartbeats');
      expect(states(stream)).to.deep.equal([{ status: 'open', attempt: null }]);
    });

    it('caps streams per session and per client address with 429 and Retry-After; a client that leaves frees its place', async () => {
      const session = await createSession(dev);
      const first = await openStatus(session.id, app.baseUrl);
      await openStatus(session.id, app.baseUrl);
      const third = await openStatus(session.id, app.baseUrl);
      expect(third.status).to.equal(429);
      expect(third.headers.get('retry-after')).to.equal('10');

      first.close();
      expect((await openWhenFree(session.id)).status).to.equal(200);

      // Every place freed, then three sessions' streams fill this address's three places.
      for (const client of opened.splice(0)) client.close();
      const others = [await createSession(dev), await createSession(dev)];
      for (const id of [session.id, others[0]!.id, others[1]!.id])
        expect((await openWhenFree(id)).status).to.equal(200);
      const fourth = await openStatus(others[0]!.id, app.baseUrl);
      expect(fourth.status).to.equal(429);
      expect(fourth.headers.get('retry-after')).to.equal('10');
    });
  });
});
