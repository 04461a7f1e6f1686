/**
 * `npx paycollect <command>` (or `npm run paycollect -- <command>`): the merchant's command-line
 * tool for the sandbox (docs/developer-tools.md). It talks only to the public API, with a sandbox
 * secret key (`--api-key` or `PAYCOLLECT_API_KEY`) at `--api-base` (or `PAYCOLLECT_API_BASE`, default
 * http://127.0.0.1:$PORT, the address `npm start` serves, port 3000 when PORT is not set).
 *
 *   listen --forward-to <url>   stream the account's events (GET /v1/developer/events/stream) and
 *                               POST each to <url>, signed like a real delivery with a secret made
 *                               for this session and printed at start; one line per delivery;
 *                               reconnects with Last-Event-ID when the stream drops; gives up
 *                               (exit 1) when it never connected in FIRST_CONNECT_ATTEMPTS tries
 *   trigger <event>             create the sandbox objects whose life emits <event>
 *
 * Exit status: 0 done (listen: stopped with Ctrl-C), 1 the API or the network refused (one line on
 * standard error), 2 a usage error (an unknown event, a missing or bad option). Text that came from
 * the server is printed with control characters escaped (./printable.ts).
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { Webhook } from 'standardwebhooks';
import { bodySignature, newWebhookSecret } from '../lib/webhook-signature';
import { printable } from './printable';
import { SseReader } from './sse';
import { processIo, type CliIo } from './io';

/**
 * The API's address when neither `--api-base` nor `PAYCOLLECT_API_BASE` is given: where `npm start` serves on this
 * machine, port `PORT` when it is set (as `npm start` reads it), else 3000 (README.md#settings).
 */
export function defaultApiBase(env: NodeJS.ProcessEnv = process.env): string {
  const port = env.PORT?.trim();
  return `http://127.0.0.1:${port && /^[0-9]{1,5}$/.test(port) ? port : '3000'}`;
}

/**
 * `listen` gives up when this many connections in a row failed before any succeeded (waiting 1, 2 and 4 s between):
 * the address is wrong or nothing runs there. Once the stream has worked, it reconnects for as long as it runs.
 */
export const FIRST_CONNECT_ATTEMPTS = 4;

/** A forwarded delivery's time-out, in milliseconds (as real deliveries, docs/webhooks.md#retries: 10 s). */
export const FORWARD_TIMEOUT_MS = 10_000;

/** Reconnection delays after a failed connection, in milliseconds: doubling from 1 s up to 16 s. */
const RECONNECT_MIN_MS = 1000;
const RECONNECT_MAX_MS = 16_000;

/** A stream that sends nothing (not even a heartbeat, every 15 s) for this long is reopened, in milliseconds. */
const STREAM_IDLE_MS = 45_000;

/** `User-Agent` of the command's requests and forwarded deliveries. */
const USER_AGENT = 'paycollect-cli/0.1';

/** A mistake in the command line: one line on standard error, exit status 2. */
class UsageError extends Error {}

/** A refusal of the API or the network: one line on standard error, exit status 1. */
class CliError extends Error {}

/** What `trigger` knows how to emit, with the sandbox objects it creates (docs/payments.md, Sandbox scenarios). */
export const TRIGGERS = {
  'payment.completed':
    'a mobile money payment to +250788000001 (completes at once): payment.created, payment.completed',
  'payment.failed': 'a mobile money payment to +250788000002 (declined): payment.created, payment.failed',
  'payment.cancelled': 'a bank transfer, then cancelled: payment.created, payment.cancelled',
  'refund.completed':
    'a mobile money payment to +250788000001, refunded once completed: payment.created, payment.completed, refund.completed',
  'refund.failed':
    'a mobile money payment to +250788000006 (the provider refuses its refunds), refunded once completed: payment.created, payment.completed, refund.failed',
  'payment.late_success':
    "a mobile money payment to +250788000004 expiring after 60 s; the provider's success arrives 5 s after expiry: payment.created, payment.failed (expired), then payment.completed with reconciled_at",
  'payout.paid':
    'a mobile money payment of RWF 2000 to +250788000001, its funds settled, then a payout of RWF 1000 to the wallet +250788000001 (paid at once): payout.created, payout.paid',
  'payout.failed':
    'the same, paid out to the wallet +250788000002 (refused, account_invalid; funds back): payout.created, payout.failed',
  'payout.returned':
    'the same, paid out to the wallet +250788000009 (paid, returned 30 s later; funds back): payout.created, payout.paid, payout.returned',
  'checkout.session.completed':
    'a checkout session of RWF 1000, paid on its page by mobile money from +250788000001: payment.created, payment.completed, checkout.session.completed',
  'checkout.session.expired': 'a checkout session of RWF 1000, then expired: checkout.session.expired',
} as const;

/** A name `trigger` accepts. */
export type TriggerName = keyof typeof TRIGGERS;

/** The settings every command shares. */
interface ApiOptions {
  apiKey: string;
  apiBase: string;
}

/** The options as parsed: the key may be missing (checked after the command's own arguments). */
type ParsedApiOptions = Omit<ApiOptions, 'apiKey'> & { apiKey?: string };

/** The options with the key present. @throws UsageError when neither `--api-key` nor `PAYCOLLECT_API_KEY` gives one */
function withKey<T extends ParsedApiOptions>(options: T): T & ApiOptions {
  if (!options.apiKey) throw new UsageError('no API key: pass --api-key sk_sandbox_… or set PAYCOLLECT_API_KEY');
  return options as T & ApiOptions;
}

function httpUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('must be an http:// or https:// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new InvalidArgumentError('must be an http:// or https:// URL');
  return url;
}

/** The service root without a trailing `/` or `/v1`. */
function apiRoot(value: string): string {
  return httpUrl(value).toString().replace(/\/+$/, '').replace(/\/v1$/, '');
}

const apiOptions = (command: Command) =>
  command
    .addOption(new Option('--api-key <key>', 'sandbox secret key (sk_sandbox_…)').env('PAYCOLLECT_API_KEY'))
    .addOption(
      new Option('--api-base <url>', 'the service root')
        .env('PAYCOLLECT_API_BASE')
        .default(defaultApiBase(), 'http://127.0.0.1:$PORT, port 3000 when PORT is not set')
        .argParser(apiRoot),
    );

/** The cause of a failed fetch, in one line (`connection refused (ECONNREFUSED)`, `timed out after 10 s`). */
function networkReason(error: unknown): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
    return `timed out after ${FORWARD_TIMEOUT_MS / 1000} s`;
  const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  const code = cause?.code;
  if (code === 'ECONNREFUSED') return 'connection refused (ECONNREFUSED)';
  if (code === 'ECONNRESET') return 'connection reset (ECONNRESET)';
  if (code === 'ENOTFOUND') return 'host not found (ENOTFOUND)';
  const message = cause?.message ?? (error instanceof Error ? error.message : String(error));
  return code ? `${message} (${code})` : message;
}

/** The envelope's error message of an answer, or its status line. */
async function errorMessage(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const parsed = JSON.parse(text) as { error?: { code?: string; message?: string } };
    if (parsed.error?.message)
      return `${response.status} ${parsed.error.code ?? ''}: ${parsed.error.message}`.replace(' :', ':');
  } catch {
    // not the envelope
  }
  return `${response.status} ${response.statusText}`.trim();
}

/**
 * One JSON request to the API with the secret key. @returns the envelope's `data` @throws CliError when it is not 2xx
 */
async function apiRequest(options: ApiOptions, method: string, path: string, body?: unknown): Promise<any> {
  let response: Response;
  try {
    response = await fetch(`${options.apiBase}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${options.apiKey}`,
        accept: 'application/json',
        'user-agent': USER_AGENT,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    throw new CliError(`${method} ${options.apiBase}${path}: ${networkReason(error)}`);
  }
  if (!response.ok) throw new CliError(`${method} ${path} answered ${printable(await errorMessage(response))}`);
  return ((await response.json()) as { data: unknown }).data;
}

function sleep(milliseconds: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, milliseconds);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** `HH:MM:SS` of now, UTC. */
function clock(): string {
  return new Date().toISOString().slice(11, 19);
}

// ---------------------------------------------------------------------------------------------
// listen

/** What `listen` needs. */
interface ListenOptions extends ApiOptions {
  forwardTo: URL;
}

/**
 * The delivery payload the stream sends as each message's data (`{id, event, created_at, data}`,
 * docs/webhooks.md#signatures).
 */
interface StreamedPayload {
  id: string;
  event: string;
}

/**
 * POSTs one event to the forward URL, signed with `secret` as a real delivery is (docs/webhooks.md#signatures: Standard
 * Webhooks headers with the `standardwebhooks` library, and `X-Webhook-Signature`), and prints its
 * line: status and duration, or why it failed. Never throws for the receiver's faults.
 * @param body the event's payload as the stream sent it (JSON text), forwarded byte for byte
 */
async function forward(
  options: ListenOptions,
  secret: string,
  body: string,
  io: CliIo,
  signal: AbortSignal,
): Promise<void> {
  let payload: StreamedPayload;
  try {
    payload = JSON.parse(body) as StreamedPayload;
  } catch {
    io.err(`${clock()}  skipped a message that is not JSON\n`);
    return;
  }
  const label = `${clock()}  ${printable(String(payload.event)).padEnd(18)}  ${printable(String(payload.id))}`;
  const seconds = Math.floor(Date.now() / 1000);
  const headers = {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'webhook-id': payload.id,
    'webhook-timestamp': String(seconds),
    'webhook-signature': new Webhook(secret).sign(payload.id, new Date(seconds * 1000), body),
    'x-webhook-signature': bodySignature(secret, body),
  };
  const startedAt = performance.now();
  const elapsed = () => `${Math.round(performance.now() - startedAt)} ms`;
  try {
    const response = await fetch(options.forwardTo, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.any([AbortSignal.timeout(FORWARD_TIMEOUT_MS), signal]),
    });
    await response.body?.cancel().catch(() => undefined);
    const outcome = response.status >= 200 && response.status < 300 ? 'delivered' : 'failed';
    io.out(`${label}  → [${response.status}] POST ${options.forwardTo} ${outcome} (${elapsed()})\n`);
  } catch (error) {
    if (signal.aborted) return;
    io.out(`${label}  → [ERR] POST ${options.forwardTo} failed: ${printable(networkReason(error))} (${elapsed()})\n`);
  }
}

/** How one connection to the stream ended. */
type StreamEnd =
  | { kind: 'ended' | 'dropped'; reason: string; connected: boolean }
  | { kind: 'wait'; reason: string; waitMs: number }
  | { kind: 'fatal'; reason: string };

/**
 * One connection to the stream: forwards its events one after the other until it ends.
 * @param state the last event id (`Last-Event-ID` of the next connection) and the server's retry delay, updated as
 *   messages come
 */
async function streamOnce(
  options: ListenOptions,
  secret: string,
  state: { lastEventId?: string; retryMs: number },
  io: CliIo,
  signal: AbortSignal,
): Promise<StreamEnd> {
  const connection = new AbortController();
  const stop = () => connection.abort();
  signal.addEventListener('abort', stop, { once: true });
  let idle: NodeJS.Timeout | undefined;
  const watch = () => {
    clearTimeout(idle);
    idle = setTimeout(() => connection.abort(new Error('no data for 45 s')), STREAM_IDLE_MS);
  };
  try {
    let response: Response;
    try {
      watch();
      response = await fetch(`${options.apiBase}/v1/developer/events/stream`, {
        headers: {
          authorization: `Bearer ${options.apiKey}`,
          accept: 'text/event-stream',
          'user-agent': USER_AGENT,
          ...(state.lastEventId ? { 'last-event-id': state.lastEventId } : {}),
        },
        signal: connection.signal,
      });
    } catch (error) {
      return { kind: 'dropped', reason: `cannot reach ${options.apiBase}: ${networkReason(error)}`, connected: false };
    }
    if (response.status === 429) {
      const seconds = Number(response.headers.get('retry-after') ?? '10');
      return {
        kind: 'wait',
        reason: printable(await errorMessage(response)),
        waitMs: (Number.isFinite(seconds) ? seconds : 10) * 1000,
      };
    }
    if (response.status >= 500)
      return {
        kind: 'dropped',
        reason: `the stream answered ${printable(await errorMessage(response))}`,
        connected: false,
      };
    if (response.status !== 200 || !response.body)
      return { kind: 'fatal', reason: `the stream answered ${printable(await errorMessage(response))}` };

    io.out(
      state.lastEventId
        ? `> Connected again, resuming after ${printable(state.lastEventId)}\n`
        : '> Connected to the event stream\n',
    );
    const pending: string[] = [];
    const reader = new SseReader({
      message: (message) => pending.push(message.data),
      retry: (milliseconds) => (state.retryMs = milliseconds),
    });
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body) {
        watch();
        reader.push(decoder.decode(chunk, { stream: true }));
        // Also the position the stream announces before any event, so a reconnection misses nothing.
        state.lastEventId = reader.lastEventId ?? state.lastEventId;
        // Deliveries go one at a time, in stream order; the stream waits meanwhile (TCP holds the rest).
        while (pending.length > 0) await forward(options, secret, pending.shift() as string, io, signal);
      }
    } catch (error) {
      if (signal.aborted) return { kind: 'ended', reason: 'stopped', connected: true };
      return {
        kind: 'dropped',
        reason: `the stream broke: ${networkReason(connection.signal.reason ?? error)}`,
        connected: true,
      };
    }
    return { kind: 'ended', reason: 'the server ended the stream', connected: true };
  } finally {
    clearTimeout(idle);
    signal.removeEventListener('abort', stop);
  }
}

/**
 * `listen`: prints the session's signing secret, then streams and forwards until `signal` aborts
 * (Ctrl-C), reconnecting with `Last-Event-ID` whenever the stream drops.
 * @returns 0 when stopped; 1 when the API refuses the credentials or the request (401, 403, 400), or when no
 *   connection succeeded in {@link FIRST_CONNECT_ATTEMPTS} tries
 */
async function listen(options: ListenOptions, io: CliIo, signal: AbortSignal): Promise<number> {
  const secret = newWebhookSecret();
  io.out(`> Ready. Your webhook signing secret for this session is ${secret}\n`);
  io.out(`> Forwarding the sandbox events of ${options.apiBase} to ${options.forwardTo} (Ctrl-C to stop)\n`);
  const state: { lastEventId?: string; retryMs: number } = { retryMs: RECONNECT_MIN_MS };
  let backoffMs = RECONNECT_MIN_MS;
  let everConnected = false;
  let failedFirstTries = 0;
  while (!signal.aborted) {
    const end = await streamOnce(options, secret, state, io, signal);
    if (signal.aborted) break;
    if (end.kind === 'fatal') {
      io.err(`error: ${end.reason}\n`);
      return 1;
    }
    everConnected ||= end.kind !== 'wait' && end.connected;
    if (!everConnected && end.kind === 'dropped' && ++failedFirstTries >= FIRST_CONNECT_ATTEMPTS) {
      io.err(
        `error: ${end.reason}, ${FIRST_CONNECT_ATTEMPTS} times; is PayCollect running there? Pass --api-base or set PAYCOLLECT_API_BASE (or PORT)\n`,
      );
      return 1;
    }
    let waitMs: number;
    if (end.kind === 'dropped') {
      // Failures in a row wait longer each time; a connection that worked starts over.
      if (end.connected) backoffMs = RECONNECT_MIN_MS;
      waitMs = backoffMs;
      backoffMs = Math.min(backoffMs * 2, RECONNECT_MAX_MS);
    } else {
      backoffMs = RECONNECT_MIN_MS;
      waitMs = end.kind === 'wait' ? end.waitMs : state.retryMs;
    }
    const resume = state.lastEventId ? ` with Last-Event-ID ${printable(state.lastEventId)}` : '';
    io.out(`> ${end.reason}; reconnecting in ${(waitMs / 1000).toFixed(1)} s${resume}\n`);
    await sleep(waitMs, signal);
  }
  io.out('> Stopped\n');
  return 0;
}

// ---------------------------------------------------------------------------------------------
// trigger

/** Polls the payment until it leaves `pending`/`processing`, for at most `timeoutMs`. @returns its last status */
async function settledStatus(options: ApiOptions, paymentId: string, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const payment = (await apiRequest(options, 'GET', `/v1/payments/${paymentId}`)) as { status: string };
    if (!['pending', 'processing'].includes(payment.status) || Date.now() > deadline) return payment.status;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

/** A sandbox payment through `POST /v1/payments`. @returns the created payment's id and status */
async function createPayment(
  options: ApiOptions,
  trigger: TriggerName,
  fields: Record<string, unknown>,
): Promise<{ id: string; status: string; expires_at?: string }> {
  const body = { description: `paycollect trigger ${trigger}`, metadata: { source: 'paycollect trigger' }, ...fields };
  return (await apiRequest(options, 'POST', '/v1/payments', body)) as {
    id: string;
    status: string;
    expires_at?: string;
  };
}

/**
 * `trigger <event>`: creates the sandbox objects whose life emits the event, prints what was made
 * and what follows.
 * @throws UsageError for an unknown event or a key that is not a sandbox key; CliError when the API refuses
 */
async function trigger(name: string, parsed: ParsedApiOptions, io: CliIo): Promise<void> {
  if (!Object.hasOwn(TRIGGERS, name)) {
    throw new UsageError(`unknown event "${printable(name)}"; known events: ${Object.keys(TRIGGERS).join(', ')}`);
  }
  const options = withKey(parsed);
  if (!options.apiKey.startsWith('sk_sandbox_'))
    throw new UsageError('trigger takes a sandbox secret key (sk_sandbox_…): it creates test payments');
  const event = name as TriggerName;
  const mobileMoney = (phone: string) => ({
    amount: 1000,
    currency: 'RWF',
    payment_method: 'mobile_money',
    phone_number: phone,
  });
  const created = (payment: { id: string; status: string }, what: string) =>
    io.out(`> Created payment ${payment.id} (${what}), status ${payment.status}\n`);

  switch (event) {
    case 'payment.completed':
    case 'payment.failed': {
      const phone = event === 'payment.completed' ? '+250788000001' : '+250788000002';
      created(await createPayment(options, event, mobileMoney(phone)), `mobile money, RWF 1000, ${phone}`);
      break;
    }
    case 'payment.cancelled': {
      const payment = await createPayment(options, event, {
        amount: 5000,
        currency: 'RWF',
        payment_method: 'bank_transfer',
      });
      created(payment, 'bank transfer, RWF 5000');
      const cancelled = (await apiRequest(options, 'POST', `/v1/payments/${payment.id}/cancel`, {
        reason: 'paycollect trigger',
      })) as { status: string };
      io.out(`> Cancelled ${payment.id}, status ${cancelled.status}\n`);
      break;
    }
    case 'refund.completed':
    case 'refund.failed': {
      const phone = event === 'refund.failed' ? '+250788000006' : '+250788000001';
      const payment = await createPayment(options, event, mobileMoney(phone));
      created(payment, `mobile money, RWF 1000, ${phone}`);
      const status = await settledStatus(options, payment.id, 30_000);
      if (status !== 'completed')
        throw new CliError(`payment ${payment.id} is ${status}, not completed, after 30 s; is a worker running?`);
      const refund = (await apiRequest(options, 'POST', `/v1/payments/${payment.id}/refund`, {
        reason: 'paycollect trigger',
      })) as { id: string; status: string };
      io.out(`> Refunded ${payment.id} in full: refund ${refund.id}, status ${refund.status}\n`);
      break;
    }
    case 'payment.late_success': {
      const payment = await createPayment(options, event, { ...mobileMoney('+250788000004'), expires_in: 60 });
      created(payment, `mobile money, RWF 1000, +250788000004, expires at ${payment.expires_at ?? 'in 60 s'}`);
      break;
    }
    case 'payout.paid':
    case 'payout.failed':
    case 'payout.returned': {
      const payment = await createPayment(options, event, { ...mobileMoney('+250788000001'), amount: 2000 });
      created(payment, 'mobile money, RWF 2000, +250788000001');
      const status = await settledStatus(options, payment.id, 30_000);
      if (status !== 'completed')
        throw new CliError(`payment ${payment.id} is ${status}, not completed, after 30 s; is a worker running?`);
      await apiRequest(options, 'POST', '/v1/sandbox/balance/settle');
      const wallet = {
        'payout.paid': '+250788000001',
        'payout.failed': '+250788000002',
        'payout.returned': '+250788000009',
      }[event];
      const destination = (await apiRequest(options, 'POST', '/v1/payout_destinations', {
        type: 'mobile_money',
        phone_number: wallet,
      })) as { id: string };
      const payout = (await apiRequest(options, 'POST', '/v1/payouts', {
        amount: 1000,
        currency: 'RWF',
        destination: destination.id,
        description: `paycollect trigger ${event}`,
      })) as { id: string; status: string };
      io.out(
        `> Created payout ${payout.id} (RWF 1000 to ${wallet}, destination ${destination.id}), status ${payout.status}\n`,
      );
      break;
    }
    case 'checkout.session.completed':
    case 'checkout.session.expired': {
      const session = (await apiRequest(options, 'POST', '/v1/checkout/sessions', {
        amount: 1000,
        currency: 'RWF',
        description: `paycollect trigger ${event}`,
        success_url: 'http://localhost/paid',
        metadata: { source: 'paycollect trigger' },
      })) as { id: string; url: string };
      io.out(`> Created checkout session ${session.id} (RWF 1000), its page ${session.url}\n`);
      if (event === 'checkout.session.expired') {
        const expired = (await apiRequest(options, 'POST', `/v1/checkout/sessions/${session.id}/expire`)) as {
          status: string;
        };
        io.out(`> Expired ${session.id}, status ${expired.status}\n`);
        break;
      }
      // The page's attempt, as a payer would make it (docs/checkout.md#api).
      const attempt = (await apiRequest(options, 'POST', `/v1/checkout/sessions/${session.id}/attempts`, {
        payment_method: 'mobile_money',
        phone_number: '+250788000001',
      })) as { payment: string; status: string };
      io.out(`> Started an attempt of ${session.id}: payment ${attempt.payment}, status ${attempt.status}\n`);
      break;
    }
  }
  io.out(`> Trigger succeeded: ${TRIGGERS[event]}\n`);
}

// ---------------------------------------------------------------------------------------------
// the program

/**
 * Builds the command tree (exported for tests of the parsing).
 * @param signal stops `listen`
 * @param exit receives the exit status of a command that ran
 */
export function buildPaycollectProgram(io: CliIo, signal: AbortSignal, exit: (code: number) => void): Command {
  const program = new Command('paycollect')
    .description("PayCollect for merchants' developers: receive sandbox webhooks locally and trigger sandbox events")
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .exitOverride()
    .allowExcessArguments(false);

  apiOptions(
    program
      .command('listen')
      .description(
        'Stream your sandbox events and forward each to a local URL, signed with a secret made for this session',
      )
      .addOption(
        new Option('--forward-to <url>', 'where to POST each event, e.g. http://127.0.0.1:4000/hooks')
          .makeOptionMandatory()
          .argParser(httpUrl),
      ),
  ).action(async (options: Omit<ListenOptions, 'apiKey'> & ParsedApiOptions) =>
    exit(await listen(withKey(options), io, signal)),
  );

  apiOptions(
    program
      .command('trigger')
      .description('Create the sandbox objects whose life emits <event>')
      .argument('<event>', `one of: ${Object.keys(TRIGGERS).join(', ')}`)
      .addHelpText(
        'after',
        `\nEvents:\n${Object.entries(TRIGGERS)
          .map(([name, what]) => `  ${name.padEnd(22)} ${what}`)
          .join('\n')}\n`,
      ),
  ).action(async (name: string, options: ParsedApiOptions) => {
    await trigger(name, options, io);
    exit(0);
  });

  return program;
}

/**
 * Runs the command with `argv` (the arguments after `paycollect`).
 * @param signal stops `listen` (the process entry point wires Ctrl-C and SIGTERM to it)
 * @returns the exit status: 0 done, 1 refused by the API or the network, 2 usage error (each error one line on
 *   `io.err`)
 */
export async function runPaycollect(
  argv: string[],
  io: CliIo = processIo,
  signal: AbortSignal = new AbortController().signal,
): Promise<number> {
  let code = 0;
  try {
    await buildPaycollectProgram(io, signal, (status) => (code = status)).parseAsync(argv, { from: 'user' });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    if (error instanceof UsageError) {
      io.err(`error: ${error.message}\n`);
      return 2;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.err(`error: ${printable(message.split('\n')[0] ?? message)}\n`);
    return 1;
  }
}

/**
 * The process entry point (bin/paycollect.js, `npm run paycollect`): runs `process.argv`, stops
 * `listen` on Ctrl-C or SIGTERM, and exits with the command's status.
 */
export function main(): void {
  const stopping = new AbortController();
  process.once('SIGINT', () => stopping.abort());
  process.once('SIGTERM', () => stopping.abort());
  void runPaycollect(process.argv.slice(2), processIo, stopping.signal).then((code) => process.exit(code));
}

if (require.main === module) main();
