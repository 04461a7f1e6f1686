/**
 * `GET /v1/developer/events/stream` (docs/developer-tools.md#event-stream) over real HTTP against
 * the shared stack: events arrive as Server-Sent Events, `Last-Event-ID` resumes with only the
 * later events, the order holds when transaction ids gain a digit, live credentials are refused,
 * heartbeats keep it open, and a client that leaves frees its stream.
 */
import { expect } from 'chai';
import type { SseMessage } from '../../src/cli/sse';
import { call, registerDeveloper, waitForPayment, type TestDeveloper } from '../helpers/http';
import { insertLiveKey } from '../helpers/live-key';
import { startApp } from '../helpers/processes';
import { openSse, type StreamClient } from '../helpers/sse';
import { getStack, testConfig } from '../helpers/stack';
import type { Db } from '../../src/db/knex';

const opened: StreamClient[] = [];

/** Opens the stream at `baseUrl` with `credential` and reads it in the background. */
async function openStream(
  credential: string,
  options: { lastEventId?: string; query?: string; baseUrl?: string } = {},
): Promise<StreamClient> {
  const baseUrl = options.baseUrl ?? (await getStack()).baseUrl;
  const headers: Record<string, string> = { authorization: `Bearer ${credential}` };
  if (options.lastEventId) headers['last-event-id'] = options.lastEventId;
  const client = await openSse(`${baseUrl}/v1/developer/events/stream${options.query ?? ''}`, headers);
  opened.push(client);
  return client;
}

/** The body of a non-stream answer (the JSON envelope). */
async function errorOf(
  credential: string,
  options: { lastEventId?: string; query?: string } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const { baseUrl } = await getStack();
  const headers: Record<string, string> = { authorization: `Bearer ${credential}` };
  if (options.lastEventId) headers['last-event-id'] = options.lastEventId;
  const response = await fetch(`${baseUrl}/v1/developer/events/stream${options.query ?? ''}`, { headers });
  return { status: response.status, body: await response.json(), headers: response.headers };
}

/** The payload of each message: `{id, event, created_at, data}`. */
const payloads = (client: StreamClient) =>
  client.messages.map(
    (message) => JSON.parse(message.data) as { id: string; event: string; created_at: string; data: any },
  );

/**
 * Creates a sandbox mobile-money payment that completes at once (`0001`, docs/payments.md#sandbox-scenarios) and waits
 * until it did.
 */
async function completedPayment(developer: TestDeveloper): Promise<string> {
  const created = await call('/v1/payments', {
    key: developer.key,
    body: { amount: 1200, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000001' },
  });
  expect(created.status).to.equal(201);
  const payment = await waitForPayment(developer.key, created.body.data.id, (p) => p.status === 'completed');
  expect(payment.status).to.equal('completed');
  return payment.id as string;
}

/** The `paycollect_event_streams_open` gauge of the shared app's `/metrics`. */
async function openStreamsGauge(): Promise<number> {
  const { baseUrl } = await getStack();
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const match = /^paycollect_event_streams_open (\d+)$/m.exec(text);
  if (!match) throw new Error('paycollect_event_streams_open is not in /metrics');
  return Number(match[1]);
}

/** PostgreSQL's next transaction id (a decimal xid8), without taking one. */
async function nextTransactionId(db: Db): Promise<bigint> {
  const { rows } = (await db.raw('select pg_snapshot_xmax(pg_current_snapshot())::text as next')) as {
    rows: [{ next: string }];
  };
  return BigInt(rows[0].next);
}

/**
 * Takes transaction ids until the next one is at least the power of ten above every id taken so far
 * (10,000 after 9,876), one committed transaction each, all in one statement: so what is written next
 * has a transaction id with one digit more than everything before it. Reports the power of ten.
 */
async function passNextPowerOfTen(db: Db): Promise<bigint> {
  const next = await nextTransactionId(db);
  const boundary = 10n ** BigInt(String(next).length);
  // Each loop takes one id and commits (a DO block may commit when it is not inside a transaction).
  await db.raw(
    `do $$ begin while pg_snapshot_xmax(pg_current_snapshot()) < '${boundary}'::xid8 loop perform pg_current_xact_id(); commit; end loop; end $$`,
  );
  return boundary;
}

async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('event stream (GET /v1/developer/events/stream)', function () {
  this.timeout(60_000);

  afterEach(async () => {
    for (const client of opened.splice(0)) {
      client.close();
      await client.ended;
    }
  });

  it('sends an event written after it opened as an SSE message with the delivery payload', async () => {
    const developer = await registerDeveloper();
    const stream = await openStream(developer.key);
    expect(stream.status).to.equal(200);
    expect(stream.headers.get('content-type')).to.match(/^text\/event-stream/);
    expect(stream.headers.get('cache-control')).to.include('no-cache');
    await stream.until(() => stream.comments.includes('connected'), 'the connected comment');

    const paymentId = await completedPayment(developer);
    await stream.until(() => payloads(stream).some((p) => p.event === 'payment.completed'), 'payment.completed');
    const events = payloads(stream);
    expect(events.map((p) => p.event)).to.deep.equal(['payment.created', 'payment.completed']);
    for (const [index, payload] of events.entries()) {
      expect(Object.keys(payload).sort()).to.deep.equal(['created_at', 'data', 'event', 'id']);
      expect(payload.id).to.match(/^evt_/);
      expect(payload.data.id).to.equal(paymentId);
      const message = stream.messages[index] as SseMessage;
      expect(message.id).to.equal(payload.id);
      expect(message.event).to.equal(payload.event);
    }
  });

  it('sends nothing of another merchant', async () => {
    const developer = await registerDeveloper();
    const other = await registerDeveloper();
    const stream = await openStream(developer.key);
    await stream.until(() => stream.comments.includes('connected'), 'the connected comment');
    await completedPayment(other);
    const own = await completedPayment(developer);
    await stream.until(() => payloads(stream).some((p) => p.event === 'payment.completed'), 'payment.completed');
    expect(payloads(stream).map((p) => p.data.id)).to.deep.equal([own, own]);
  });

  it('resumes after Last-Event-ID with only the later events, those written while away included, in the same order', async () => {
    const developer = await registerDeveloper();
    const first = await openStream(developer.key);
    await first.until(() => first.comments.includes('connected'), 'the connected comment');
    const before = await completedPayment(developer);
    await first.until(() => first.messages.length === 2, 'both events of the first payment');
    first.close();
    await first.ended;
    const [created, completed] = payloads(first);

    // Written while no stream was open.
    const away = await completedPayment(developer);
    const resumed = await openStream(developer.key, { lastEventId: created?.id });
    await resumed.until(() => resumed.messages.length >= 3, 'the later events');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(payloads(resumed).map((p) => [p.event, p.data.id])).to.deep.equal([
      ['payment.completed', before],
      ['payment.created', away],
      ['payment.completed', away],
    ]);
    expect(payloads(resumed)[0]?.id).to.equal(completed?.id);

    // Resuming after the last one sends nothing old, and what comes next.
    const last = payloads(resumed)[2]?.id;
    const caughtUp = await openStream(developer.key, { lastEventId: last });
    await caughtUp.until(() => caughtUp.comments.includes('connected'), 'the connected comment');
    const next = await completedPayment(developer);
    await caughtUp.until(() => caughtUp.messages.length >= 2, "the next payment's events");
    expect(payloads(caughtUp).map((p) => [p.event, p.data.id])).to.deep.equal([
      ['payment.created', next],
      ['payment.completed', next],
    ]);
  });

  it('announces where it started as its first id, so a client that reconnects before any event misses nothing; 0 replays from the first event', async () => {
    const developer = await registerDeveloper();
    const empty = await openStream(developer.key);
    await empty.until(() => empty.comments.includes('connected'), 'the connected comment');
    expect(empty.lastEventId(), 'an account without events starts at its first').to.equal('0');
    empty.close();
    const first = await completedPayment(developer);

    const fromStart = await openStream(developer.key, { lastEventId: empty.lastEventId() });
    await fromStart.until(() => fromStart.messages.length === 2, 'the events written while away');
    expect(payloads(fromStart).map((p) => [p.event, p.data.id])).to.deep.equal([
      ['payment.created', first],
      ['payment.completed', first],
    ]);
    fromStart.close();

    const later = await openStream(developer.key);
    await later.until(() => later.comments.includes('connected'), 'the connected comment');
    expect(later.lastEventId(), 'the last event so far').to.equal(payloads(fromStart)[1]?.id);
    expect(later.messages).to.deep.equal([]);
    later.close();
    const second = await completedPayment(developer);
    const resumed = await openStream(developer.key, { lastEventId: later.lastEventId() });
    await resumed.until(() => resumed.messages.length === 2, 'the events written while away');
    expect(payloads(resumed).map((p) => p.data.id)).to.deep.equal([second, second]);

    const replay = await openStream(developer.key, { lastEventId: '0' });
    await replay.until(() => replay.messages.length === 4, 'every event');
    expect(payloads(replay).map((p) => p.data.id)).to.deep.equal([first, first, second, second]);
  });

  it('keeps one order across transaction ids that gain a digit: a fresh stream starts after the last event, a replay from 0 sends each event once', async () => {
    const { db } = await getStack();
    const developer = await registerDeveloper();
    const before = await completedPayment(developer);
    const boundary = await passNextPowerOfTen(db);
    const after = await completedPayment(developer);
    // The events' transaction ids straddle the power of ten, so their text order is not their order.
    const stored = (await db('events')
      .where({ merchant_id: developer.merchantId, environment: 'sandbox' })
      .orderBy([{ column: 'txid' }, { column: 'id' }])
      .select('id', db.raw('txid::text as txid_text'))) as { id: string; txid_text: string }[];
    expect(
      stored.filter((row) => BigInt(row.txid_text) < boundary),
      `events below ${boundary}`,
    ).to.have.length(2);
    expect(
      stored.filter((row) => BigInt(row.txid_text) >= boundary),
      `events from ${boundary}`,
    ).to.have.length(2);
    const textOrder = [...stored].sort((a, b) => (a.txid_text < b.txid_text ? -1 : a.txid_text > b.txid_text ? 1 : 0));
    expect(
      textOrder.map((row) => row.id),
      'the test needs ids whose text order differs',
    ).to.not.deep.equal(stored.map((row) => row.id));

    // From now on: nothing old, then exactly what comes next.
    const fresh = await openStream(developer.key);
    await fresh.until(() => fresh.comments.includes('connected'), 'the connected comment');
    expect(fresh.lastEventId(), 'the last event so far').to.equal(stored.at(-1)?.id);
    const next = await completedPayment(developer);
    await fresh.until(() => fresh.messages.length >= 2, "the next payment's events");
    // Later reads (one a second) would send a repeat now.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(payloads(fresh).map((p) => [p.event, p.data.id])).to.deep.equal([
      ['payment.created', next],
      ['payment.completed', next],
    ]);

    // From the first event: each once, in the order written.
    const replay = await openStream(developer.key, { lastEventId: '0' });
    await replay.until(() => replay.messages.length >= 6, 'every event');
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(payloads(replay).map((p) => [p.event, p.data.id])).to.deep.equal([
      ['payment.created', before],
      ['payment.completed', before],
      ['payment.created', after],
      ['payment.completed', after],
      ['payment.created', next],
      ['payment.completed', next],
    ]);
  });

  it("answers 400 for a Last-Event-ID that names no event of the account (another merchant's included, docs/api.md#merchants-and-environments)", async () => {
    const developer = await registerDeveloper();
    const other = await registerDeveloper();
    const stream = await openStream(other.key);
    await stream.until(() => stream.comments.includes('connected'), 'the connected comment');
    await completedPayment(other);
    await stream.until(() => stream.messages.length === 2, "the other merchant's events");
    const foreign = payloads(stream)[0]?.id as string;

    for (const lastEventId of [foreign, 'evt_doesnotexist000000000000', 'not an id']) {
      const answer = await errorOf(developer.key, { lastEventId });
      expect(answer.status, lastEventId).to.equal(400);
      expect(answer.body).to.deep.include({ success: false });
      expect(answer.body.error.code).to.equal('validation_error');
      expect(answer.body.error.details).to.deep.equal([
        {
          field: 'Last-Event-ID',
          message: 'Last-Event-ID must be the id of one of your events (evt_…), or 0 for the first one',
        },
      ]);
    }
  });

  it('refuses live credentials with 403 forbidden in the envelope, and takes a sandbox session token', async () => {
    const developer = await registerDeveloper();
    const liveKey = await insertLiveKey(developer.merchantId);
    const live = await errorOf(liveKey);
    expect(live.status).to.equal(403);
    expect(live.headers.get('content-type')).to.match(/^application\/json/);
    expect(live.body).to.deep.equal({
      success: false,
      error: {
        code: 'forbidden',
        message:
          'the event stream serves sandbox events only: use a sandbox secret key (sk_sandbox_…) or a session token with environment=sandbox',
      },
    });
    const liveSession = await errorOf(developer.token, { query: '?environment=live' });
    expect(liveSession.status).to.equal(403);
    expect(liveSession.body.error.code).to.equal('forbidden');

    expect((await errorOf('sk_sandbox_' + 'x'.repeat(32))).body.error.code).to.equal('invalid_api_key');
    expect((await errorOf(developer.key, { query: '?since=yesterday' })).status).to.equal(400);

    const session = await openStream(developer.token);
    expect(session.status).to.equal(200);
    await session.until(() => session.comments.includes('connected'), 'the connected comment');
    const paymentId = await completedPayment(developer);
    await session.until(() => session.messages.length === 2, 'the events');
    expect(payloads(session).map((p) => p.data.id)).to.deep.equal([paymentId, paymentId]);
  });

  it('frees a stream whose client disconnects: the open-streams gauge returns to where it was', async () => {
    const developer = await registerDeveloper();
    const baseline = await openStreamsGauge();
    const streams = [await openStream(developer.key), await openStream(developer.token)];
    for (const stream of streams)
      await stream.until(() => stream.comments.includes('connected'), 'the connected comment');
    expect(await openStreamsGauge()).to.equal(baseline + 2);

    for (const stream of streams) stream.close();
    await eventually('the gauge did not return to its baseline', async () => (await openStreamsGauge()) === baseline);
  });

  it('keeps at most 5 streams of a merchant open: the sixth answers 429 rate_limited with Retry-After, until one closes', async () => {
    const developer = await registerDeveloper();
    const streams = [];
    for (let i = 0; i < 5; i += 1) streams.push(await openStream(developer.key));
    expect(streams.map((s) => s.status)).to.deep.equal([200, 200, 200, 200, 200]);
    const sixth = await errorOf(developer.key);
    expect(sixth.status).to.equal(429);
    expect(sixth.body.error.code).to.equal('rate_limited');
    expect(sixth.headers.get('retry-after')).to.equal('10');
    // Another merchant is not counted with this one.
    const other = await openStream((await registerDeveloper()).key);
    expect(other.status).to.equal(200);

    streams[0]?.close();
    await eventually('a freed place was not given again', async () => {
      const next = await openStream(developer.key);
      if (next.status !== 200) next.close();
      return next.status === 200;
    });
  });

  it('sends heartbeat comments, and ends a stream after its lifetime with a comment saying to reconnect', async () => {
    const app = await startApp(
      testConfig({
        RATE_LIMIT_MULTIPLIER: '1000',
        EVENT_STREAM_HEARTBEAT_MS: '200',
        EVENT_STREAM_MAX_DURATION_MS: '1500',
      }),
    );
    try {
      const developer = await registerDeveloper();
      const stream = await openStream(developer.key, { baseUrl: app.baseUrl });
      await stream.until(
        () => stream.comments.filter((c) => c.startsWith('heartbeat ')).length >= 3,
        'three heartbeats',
        5000,
      );
      await stream.ended;
      expect(stream.comments.at(-1)).to.equal('stream ends after 1.5 s; reconnect with Last-Event-ID');
    } finally {
      await app.close();
    }
  });

  it('is listed in the OpenAPI document as text/event-stream', async () => {
    const document = (await call('/v1/openapi.json')).body;
    const operation = document.paths['/v1/developer/events/stream']?.get;
    expect(operation, 'the stream operation').to.not.equal(undefined);
    expect(Object.keys(operation.responses['200'].content)).to.deep.equal(['text/event-stream']);
    expect(operation.responses).to.include.keys('400', '401', '403', '429');
    expect(operation.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).to.include(
      'header:Last-Event-ID',
    );
  });
});
