/**
 * The merchant CLI (`npx paycollect`, bin/paycollect.js → src/cli/paycollect.ts) as real processes
 * against the shared stack: `listen` forwards streamed events to a local receiver, signed with the
 * secret it printed, shows refused deliveries and goes on, and resumes with Last-Event-ID when the
 * stream drops; `trigger` creates the sandbox objects of each event and refuses unknown ones.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { expect } from 'chai';
import { SseReader, type SseMessage } from '../../src/cli/sse';
import { newWebhookSecret } from '../../src/lib/webhook-signature';
import { freePort } from '../../scripts/lib/ports';
import { call, registerDeveloper, waitForPayment, type TestDeveloper } from '../helpers/http';
import { insertLiveKey } from '../helpers/live-key';
import { startApp } from '../helpers/processes';
import { startReceiver, verifyDelivery, type Receiver } from '../helpers/receiver';
import { getStack, testConfig } from '../helpers/stack';

const BIN = path.resolve(__dirname, '../../bin/paycollect.js');

/** Environment of the CLI processes: the test run's, without a key of its own. */
function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.PAYCOLLECT_API_KEY;
  delete env.PAYCOLLECT_API_BASE;
  delete env.PORT;
  return { ...env, ...extra };
}

/** Runs `paycollect <args>` to its end. */
function runCli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A running `paycollect listen`. */
class Listener {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;

  constructor(args: string[]) {
    this.child = spawn(process.execPath, [BIN, 'listen', ...args], {
      env: cliEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (this.stdout += chunk));
    this.child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => this.child.on('close', (code) => resolve(code)));
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The lines printed so far matching `pattern`. */
  lines(pattern: RegExp): string[] {
    return this.stdout.split('\n').filter((line) => pattern.test(line));
  }

  /** Resolves once `count` lines match `pattern`; rejects after `timeoutMs` or when the process ends. */
  async waitForLines(pattern: RegExp, count = 1, timeoutMs = 30_000): Promise<string[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.lines(pattern);
      if (found.length >= count) return found;
      if (!this.running) throw new Error(`listen exited before printing ${pattern}: ${this.stdout}${this.stderr}`);
      if (Date.now() > deadline)
        throw new Error(
          `listen printed ${found.length} of ${count} lines matching ${pattern} in ${timeoutMs} ms:\n${this.stdout}${this.stderr}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** The signing secret printed at start. */
  async secret(): Promise<string> {
    const [line] = await this.waitForLines(/signing secret/);
    const secret = /(whsec_[A-Za-z0-9+/=]+)/.exec(line ?? '')?.[1];
    if (!secret) throw new Error(`no secret in ${line}`);
    return secret;
  }

  /** Ctrl-C. @returns the exit status */
  async stop(): Promise<number | null> {
    if (this.running) this.child.kill('SIGINT');
    return this.exited;
  }
}

/** The payment id a `trigger` printed. */
function createdPaymentId(stdout: string): string {
  const id = /Created payment (pay_[A-Za-z0-9]+)/.exec(stdout)?.[1];
  if (!id) throw new Error(`no payment in ${stdout}`);
  return id;
}

/** Events of the payment in the account's event list, oldest first. */
async function eventTypesOf(developer: TestDeveloper, paymentId: string): Promise<string[]> {
  const list = await call('/v1/developer/events?limit=100', { key: developer.key });
  return (
    list.body.data.events as { event: string; data: { id?: string; payment_id?: string; payment?: { id: string } } }[]
  )
    .filter(
      (event) =>
        event.data.id === paymentId || event.data.payment_id === paymentId || event.data.payment?.id === paymentId,
    )
    .map((event) => event.event)
    .reverse();
}

async function eventually<T>(what: string, read: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('SSE reader of paycollect listen', () => {
  function read(...chunks: string[]): {
    messages: SseMessage[];
    comments: string[];
    retries: number[];
    lastEventId: string | undefined;
  } {
    const messages: SseMessage[] = [];
    const comments: string[] = [];
    const retries: number[] = [];
    const reader = new SseReader({
      message: (m) => messages.push(m),
      comment: (c) => comments.push(c),
      retry: (ms) => retries.push(ms),
    });
    for (const chunk of chunks) reader.push(chunk);
    return { messages, comments, retries, lastEventId: reader.lastEventId };
  }

  it('reads messages split anywhere, with CRLF, CR or LF line ends, and joins data lines with LF', () => {
    const text =
      'retry: 1000\r\nid: 0\r\n: connected\r\n\r\nid: evt_1\revent: payment.created\rdata: {"a":\rdata:1}\r\rid: evt_2\nevent: payment.completed\ndata: x\n\n';
    const whole = read(text);
    expect(whole.messages).to.deep.equal([
      { event: 'payment.created', data: '{"a":\n1}', id: 'evt_1' },
      { event: 'payment.completed', data: 'x', id: 'evt_2' },
    ]);
    expect(whole.comments).to.deep.equal(['connected']);
    expect(whole.retries).to.deep.equal([1000]);
    expect(whole.lastEventId).to.equal('evt_2');
    for (let cut = 1; cut < text.length; cut += 1) {
      expect(read(text.slice(0, cut), text.slice(cut)).messages, `cut at ${cut}`).to.deep.equal(whole.messages);
    }
  });

  it('keeps an id sent without data as the position, and dispatches nothing for it', () => {
    const read1 = read('retry: 1000\nid: evt_9\n: connected\n\n: heartbeat now\n\n');
    expect(read1.messages).to.deep.equal([]);
    expect(read1.lastEventId).to.equal('evt_9');
    expect(read1.comments).to.deep.equal(['connected', 'heartbeat now']);
    expect(read('retry: soon\n\n').retries).to.deep.equal([]);
  });
});

describe('paycollect CLI (docs/developer-tools.md)', function () {
  this.timeout(120_000);
  let baseUrl: string;
  const listeners: Listener[] = [];
  const receivers: Receiver[] = [];

  before(async () => {
    baseUrl = (await getStack()).baseUrl;
  });

  afterEach(async function () {
    for (const listener of listeners.splice(0)) {
      await listener.stop();
      // What listen printed, to see why a test failed.
      if (this.currentTest?.state === 'failed')
        console.log(`      listen printed:\n${listener.stdout}${listener.stderr}`);
    }
    for (const receiver of receivers.splice(0)) await receiver.close();
  });

  function listen(args: string[]): Listener {
    const listener = new Listener(args);
    listeners.push(listener);
    return listener;
  }

  it('trigger of an unknown event prints one line listing the known events and exits 2', async () => {
    const run = await runCli(['trigger', 'payment.exploded']);
    expect(run.code).to.equal(2);
    expect(run.stdout).to.equal('');
    expect(run.stderr).to.equal(
      'error: unknown event "payment.exploded"; known events: payment.completed, payment.failed, payment.cancelled, refund.completed, refund.failed, payment.late_success, payout.paid, payout.failed, payout.returned, checkout.session.completed, checkout.session.expired\n',
    );
  });

  it('trigger refuses a live key and a missing key with one line and exit 2, before calling the API', async () => {
    const developer = await registerDeveloper();
    const live = await runCli([
      'trigger',
      'payment.completed',
      '--api-key',
      await insertLiveKey(developer.merchantId),
      '--api-base',
      baseUrl,
    ]);
    expect(live.code).to.equal(2);
    expect(live.stderr).to.equal(
      'error: trigger takes a sandbox secret key (sk_sandbox_…): it creates test payments\n',
    );
    const none = await runCli(['trigger', 'payment.completed', '--api-base', baseUrl]);
    expect(none.code).to.equal(2);
    expect(none.stderr).to.equal('error: no API key: pass --api-key sk_sandbox_… or set PAYCOLLECT_API_KEY\n');
    expect((await call('/v1/developer/events', { key: developer.key })).body.data.events).to.deep.equal([]);
  });

  it('trigger and listen find the API on PORT when neither --api-base nor PAYCOLLECT_API_BASE says where', async () => {
    const developer = await registerDeveloper();
    const port = new URL(baseUrl).port;
    const triggered = await runCli(['trigger', 'payment.failed'], { PAYCOLLECT_API_KEY: developer.key, PORT: port });
    expect(triggered.code, triggered.stderr).to.equal(0);
    expect(triggered.stdout).to.match(/Created payment pay_/);
    const help = await runCli(['listen', '--help']);
    expect(help.stdout).to.include('PAYCOLLECT_API_BASE').and.include('$PORT');
  });

  it('listen gives up with one line and exit 1 when the API never answers, instead of retrying for ever', async () => {
    const nothing = await freePort();
    const run = await runCli(['listen', '--forward-to', 'http://127.0.0.1:9/hooks', '--api-key', 'sk_sandbox_x'], {
      PORT: String(nothing),
    });
    expect(run.code).to.equal(1);
    expect(run.stdout).to.include(`Forwarding the sandbox events of http://127.0.0.1:${nothing} `);
    expect(run.stderr).to.equal(
      `error: cannot reach http://127.0.0.1:${nothing}: connection refused (ECONNREFUSED), 4 times; is PayCollect running there? Pass --api-base or set PAYCOLLECT_API_BASE (or PORT)\n`,
    );
  });

  it('trigger payout.paid and payout.failed fund the sandbox balance and pay out to a wallet of that ending', async () => {
    const developer = await registerDeveloper();
    for (const [name, outcome] of [
      ['payout.paid', 'payout.paid'],
      ['payout.failed', 'payout.failed'],
    ] as const) {
      const triggered = await runCli(['trigger', name], {
        PAYCOLLECT_API_KEY: developer.key,
        PAYCOLLECT_API_BASE: baseUrl,
      });
      expect(triggered.code, triggered.stderr).to.equal(0);
      const payoutId = /Created payout (po_[A-Za-z0-9]+)/.exec(triggered.stdout)?.[1];
      expect(payoutId, triggered.stdout).to.be.a('string');
      expect(await eventTypesOf(developer, payoutId as string)).to.deep.equal(['payout.created', outcome]);
    }
  });

  it('listen forwards a triggered payment.completed to a local receiver, signed with the secret it printed', async () => {
    const developer = await registerDeveloper();
    const receiver = await startReceiver();
    receivers.push(receiver);
    const listener = listen([
      '--forward-to',
      `${receiver.origin}/hooks`,
      '--api-key',
      developer.key,
      '--api-base',
      baseUrl,
    ]);
    const secret = await listener.secret();
    await listener.waitForLines(/^> Connected to the event stream$/);

    const triggered = await runCli(['trigger', 'payment.completed'], {
      PAYCOLLECT_API_KEY: developer.key,
      PAYCOLLECT_API_BASE: baseUrl,
    });
    expect(triggered.code, triggered.stderr).to.equal(0);
    expect(triggered.stdout).to.include('> Trigger succeeded: ');
    const paymentId = createdPaymentId(triggered.stdout);

    const requests = await receiver.waitFor(2);
    const payloads = requests.map((request) => verifyDelivery(request, secret));
    expect(payloads.map((p) => [p.event, p.data.id])).to.deep.equal([
      ['payment.created', paymentId],
      ['payment.completed', paymentId],
    ]);
    const completed = requests[1];
    expect(completed?.path).to.equal('/hooks');
    expect(completed?.headers['webhook-id']).to.equal(payloads[1]?.id);
    expect(() => verifyDelivery(completed!, newWebhookSecret())).to.throw();
    // The body is the event as the API shows it, in the shape of a webhook delivery.
    const shown = (await call(`/v1/developer/events/${payloads[1]?.id}`, { key: developer.key })).body.data;
    expect(payloads[1]).to.deep.equal({
      id: shown.id,
      event: shown.event,
      created_at: shown.created_at,
      data: shown.data,
    });
    const [line] = await listener.waitForLines(/payment\.completed .* delivered/);
    expect(line).to.match(
      new RegExp(
        `payment\\.completed\\s+${payloads[1]?.id}  → \\[204\\] POST ${receiver.origin}/hooks delivered \\(\\d+ ms\\)$`,
      ),
    );
    expect(await listener.stop()).to.equal(0);
    expect(listener.stdout).to.match(/> Stopped\n$/);
  });

  it('listen to a forward URL that refuses connections shows each failure and keeps running', async () => {
    const developer = await registerDeveloper();
    const port = await freePort();
    const listener = listen([
      '--forward-to',
      `http://127.0.0.1:${port}/hooks`,
      '--api-key',
      developer.key,
      '--api-base',
      baseUrl,
    ]);
    await listener.waitForLines(/^> Connected to the event stream$/);

    const first = await runCli(['trigger', 'payment.completed', '--api-key', developer.key, '--api-base', baseUrl]);
    expect(first.code, first.stderr).to.equal(0);
    const failures = await listener.waitForLines(/→ \[ERR\] POST .* failed: connection refused \(ECONNREFUSED\)/, 2);
    expect(failures[0]).to.match(/payment\.created/);
    expect(failures[1]).to.match(/payment\.completed/);
    expect(listener.running).to.equal(true);

    // Still forwarding: once something listens there, the next events arrive.
    const received: string[] = [];
    const server = http.createServer((req, res) => {
      req.resume();
      received.push(String(req.headers['webhook-id']));
      req.on('end', () => res.writeHead(200).end('ok'));
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    try {
      const second = await runCli(['trigger', 'payment.failed', '--api-key', developer.key, '--api-base', baseUrl]);
      expect(second.code, second.stderr).to.equal(0);
      const delivered = await listener.waitForLines(/→ \[200\] POST .* delivered/, 2);
      expect(delivered[0]).to.match(/payment\.created/);
      expect(delivered[1]).to.match(/payment\.failed/);
      expect(listener.lines(/\[ERR\]/)).to.have.length(2);
      await eventually('both deliveries at the receiver', async () => (received.length === 2 ? true : undefined), 5000);
    } finally {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    }
  });

  it('listen reconnects with Last-Event-ID when the stream ends, forwarding every event once', async () => {
    // An API whose streams end after 1 s, so listen reconnects all the time.
    const app = await startApp(
      testConfig({ RATE_LIMIT_MULTIPLIER: '1000', EVENT_STREAM_MAX_DURATION_MS: '1000', EVENT_STREAM_POLL_MS: '100' }),
    );
    let listener: Listener | undefined;
    try {
      const developer = await registerDeveloper();
      const receiver = await startReceiver();
      receivers.push(receiver);
      listener = listen([
        '--forward-to',
        `${receiver.origin}/hooks`,
        '--api-key',
        developer.key,
        '--api-base',
        app.baseUrl,
      ]);
      const secret = await listener.secret();
      await listener.waitForLines(/^> Connected to the event stream$/);

      const ids: string[] = [];
      for (const event of ['payment.completed', 'payment.failed', 'payment.completed']) {
        const run = await runCli(['trigger', event, '--api-key', developer.key, '--api-base', app.baseUrl]);
        expect(run.code, run.stderr).to.equal(0);
        ids.push(createdPaymentId(run.stdout));
        await new Promise((resolve) => setTimeout(resolve, 1200));
      }
      await waitForPayment(developer.key, ids[2] as string, (p) => p.status === 'completed');
      const requests = await receiver.waitFor(6);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const payloads = receiver.requests.map((request) => verifyDelivery(request, secret));
      expect(payloads.map((p) => [p.event, p.data.id])).to.deep.equal([
        ['payment.created', ids[0]],
        ['payment.completed', ids[0]],
        ['payment.created', ids[1]],
        ['payment.failed', ids[1]],
        ['payment.created', ids[2]],
        ['payment.completed', ids[2]],
      ]);
      expect(new Set(requests.map((r) => r.headers['webhook-id'])).size).to.equal(6);
      expect(listener.lines(/^> the server ended the stream; reconnecting in 1\.0 s/).length).to.be.greaterThan(2);
      expect(listener.lines(/^> Connected again, resuming after evt_/).length).to.be.greaterThan(0);
    } catch (error) {
      console.log(listener?.stdout, listener?.stderr);
      throw error;
    } finally {
      // The listener first: the app's close waits for its connections.
      await listener?.stop();
      await app.close();
    }
  });

  it("listen with a live key stops with the API's 403 in one line and exit 1", async () => {
    const developer = await registerDeveloper();
    const listener = listen([
      '--forward-to',
      'http://127.0.0.1:9/hooks',
      '--api-key',
      await insertLiveKey(developer.merchantId),
      '--api-base',
      baseUrl,
    ]);
    expect(await listener.exited).to.equal(1);
    expect(listener.stderr).to.equal(
      'error: the stream answered 403 forbidden: the event stream serves sandbox events only: use a sandbox secret key (sk_sandbox_…) or a session token with environment=sandbox\n',
    );
  });

  it('trigger creates the sandbox objects of payment.failed, payment.cancelled, refund.completed, refund.failed and the late success', async () => {
    const developer = await registerDeveloper();
    const options = ['--api-key', developer.key, '--api-base', baseUrl];
    const expected: Record<string, string[]> = {
      'payment.failed': ['payment.created', 'payment.failed'],
      'payment.cancelled': ['payment.created', 'payment.cancelled'],
      'refund.completed': ['payment.created', 'payment.completed', 'refund.completed'],
      'refund.failed': ['payment.created', 'payment.completed', 'refund.failed'],
    };
    for (const [event, types] of Object.entries(expected)) {
      const run = await runCli(['trigger', event, ...options]);
      expect(run.code, run.stderr).to.equal(0);
      const paymentId = createdPaymentId(run.stdout);
      await eventually(`${event}'s events`, async () => {
        const found = await eventTypesOf(developer, paymentId);
        return found.length >= types.length ? found : undefined;
      });
      expect(await eventTypesOf(developer, paymentId), event).to.deep.equal(types);
    }

    // The late success (`0004`, docs/payments.md#sandbox-scenarios): a payment that expires after 60 s, whose success
    // comes 5 s later.
    const late = await runCli(['trigger', 'payment.late_success', ...options]);
    expect(late.code, late.stderr).to.equal(0);
    const payment = (await call(`/v1/payments/${createdPaymentId(late.stdout)}`, { key: developer.key })).body.data;
    expect(payment.status).to.be.oneOf(['pending', 'processing']);
    expect(payment.phone_number).to.equal('+250788000004');
    expect(Date.parse(payment.expires_at) - Date.parse(payment.created_at)).to.equal(60_000);
  });

  it('trigger checkout.session.completed and checkout.session.expired create a session whose life emits the event', async () => {
    const developer = await registerDeveloper();
    const options = ['--api-key', developer.key, '--api-base', baseUrl];
    for (const event of ['checkout.session.completed', 'checkout.session.expired']) {
      const run = await runCli(['trigger', event, ...options]);
      expect(run.code, run.stderr).to.equal(0);
      const sessionId = /Created checkout session (cs_[A-Za-z0-9]+)/.exec(run.stdout)?.[1];
      expect(sessionId, run.stdout).to.be.a('string');
      const found = await eventually(`${event}'s event`, async () => {
        const types = await eventTypesOf(developer, sessionId as string);
        return types.length > 0 ? types : undefined;
      });
      expect(found, event).to.deep.equal([event]);
    }
  });
});
