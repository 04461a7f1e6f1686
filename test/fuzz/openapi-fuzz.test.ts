/**
 * OpenAPI-driven fuzz of every operation (docs/api.md#health): Schemathesis
 * (scripts/lib/schemathesis.ts) reads `/v1/openapi.json` from the real app and sends cases
 * generated from it — valid and invalid bodies, queries, path and header values, the boundary
 * values of every schema, unexpected methods, and short stateful sequences — with the credential
 * each operation's `security` names. No answer may be a 5xx, and every answer's status and body
 * must be ones the document lists for the operation. Path parameters and a few body fields are
 * drawn now and then from real objects of the developer (a completed and a pending payment, a
 * webhook to a local receiver, its delivery, an event), so the cases reach past the 404s.
 * The app runs on a task queue of its own with its own in-process worker, so the payments,
 * webhook deliveries and reviews the fuzz starts stop with this file and load no other test's worker.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import { createSandboxLedger } from '../../src/db/sandbox-ledger';
import { createMailer } from '../../src/lib/mailer';
import { providerRegistryFromConfig } from '../../src/providers/registry';
import { resolveSchemathesis } from '../../scripts/lib/schemathesis';
import { registerDeveloper, type TestDeveloper } from '../helpers/http';
import { startApp } from '../helpers/processes';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { getStack, testConfig, workflowBundle } from '../helpers/stack';

/** Generated cases per operation in the fuzzing phase (the coverage phase adds its own, fixed set). */
const MAX_EXAMPLES = Number(process.env.FUZZ_MAX_EXAMPLES ?? 100);
/** How long Schemathesis may run before it is stopped and the test fails, in milliseconds (about 100 s on 2 cores). */
const RUN_BUDGET_MS = 360_000;
/** The checks: no 5xx; only documented statuses; bodies matching the document's schema. */
const CHECKS = ['not_a_server_error', 'status_code_conformance', 'response_schema_conformance'];

/** The parts of the OpenAPI document the configuration is built from. */
interface OpenApiDocument {
  paths: Record<
    string,
    Record<
      string,
      {
        operationId: string;
        security?: Record<string, string[]>[];
        responses: Record<string, { content?: Record<string, unknown> }>;
      }
    >
  >;
}

/**
 * Event streams (text/event-stream) stay open for an hour; Schemathesis reads one until its request
 * time-out or this many events, so their cases get a short time-out and fewer examples.
 */
const STREAM_SETTINGS = ['request-timeout = 1', 'max-stream-events = 5', 'generation = { max-examples = 10 }'];

/** Real objects of the fuzzing developer, offered to Schemathesis as dictionaries. */
interface Fixtures {
  payments: string[];
  webhooks: string[];
  deliveries: string[];
  events: string[];
  merchantId: string;
  receiverUrl: string;
}

/**
 * Header values per credential of the document (docs/api.md#credentials), read from the environment Schemathesis runs
 * in.
 */
const CREDENTIAL_HEADERS: Record<string, string> = {
  secretKey: 'Authorization = "Bearer ${FUZZ_SECRET_KEY}"',
  apiKey: '"X-API-Key" = "${FUZZ_SECRET_KEY}"',
  session: 'Authorization = "Bearer ${FUZZ_SESSION}"',
  // Rolling keys uses a second developer's session: a roll with `expires_in_hours: 0` would
  // otherwise end the secret key every other operation uses.
  otherSession: 'Authorization = "Bearer ${FUZZ_OTHER_SESSION}"',
};

/** Which dictionary feeds which path parameter, by path prefix; the rest are generated only. */
const PATH_DICTIONARIES: [prefix: string, parameter: string, dictionary: keyof Fixtures][] = [
  ['/v1/payments/', 'id', 'payments'],
  ['/v1/sandbox/payments/', 'id', 'payments'],
  ['/v1/developer/transactions/', 'id', 'payments'],
  ['/v1/api/merchants/', 'payment_id', 'payments'],
  ['/v1/developer/events/', 'id', 'events'],
  ['/v1/developer/webhooks/', 'id', 'webhooks'],
  ['/v1/developer/webhooks/', 'delivery_id', 'deliveries'],
];

const toml = (value: string) => JSON.stringify(value);

/**
 * Schemathesis's configuration (TOML): each operation sends the first credential its `security`
 * names, as a merchant would; known ids and the receiver's URL are drawn half of the time.
 */
function schemathesisConfig(document: OpenApiDocument, fixtures: Fixtures): string {
  // Settings an operation may override stay out of the command line, which would win over them.
  const lines = [
    'request-timeout = 20',
    '',
    '[auth]',
    'auto-signup = false',
    '',
    '[generation]',
    `max-examples = ${MAX_EXAMPLES}`,
    'with-security-parameters = false',
    '',
    '[dictionaries]',
    `payments = { values = ${JSON.stringify(fixtures.payments)} }`,
    `webhooks = { values = ${JSON.stringify(fixtures.webhooks)} }`,
    `deliveries = { values = ${JSON.stringify(fixtures.deliveries)} }`,
    `events = { values = ${JSON.stringify(fixtures.events)} }`,
    `merchants = { values = [${toml(fixtures.merchantId)}] }`,
    `urls = { values = [${toml(fixtures.receiverUrl)}] }`,
    `phones = { values = ["+250788000001", "+250788000006", "+250722000002", "+256772000001"] }`,
    '',
  ];
  for (const [route, operations] of Object.entries(document.paths)) {
    for (const operation of Object.values(operations)) {
      const parameters = [
        ...PATH_DICTIONARIES.filter(([prefix, name]) => route.startsWith(prefix) && route.includes(`{${name}}`)).map(
          ([, name, dictionary]) => `"path.${name}" = { dictionary = "${dictionary}", probability = 0.5 }`,
        ),
        ...(route.includes('{merchant_id}')
          ? ['"path.merchant_id" = { dictionary = "merchants", probability = 0.9 }']
          : []),
        ...(route.startsWith('/v1/developer/webhooks')
          ? ['"body.url" = { dictionary = "urls", probability = 0.5 }']
          : []),
        ...(route === '/v1/payments' ? ['"body.phone_number" = { dictionary = "phones", probability = 0.5 }'] : []),
        ...(route.includes('{merchant_id}')
          ? ['"body.payment_method_data.phone_number" = { dictionary = "phones", probability = 0.5 }']
          : []),
      ];
      const first = Object.keys(operation.security?.[0] ?? {})[0];
      const credential = route.startsWith('/v1/developer/keys/') ? 'otherSession' : first;
      const streams = Object.values(operation.responses).some(
        (response) => response.content?.['text/event-stream'] !== undefined,
      );
      if (!credential && parameters.length === 0 && !streams) continue;
      lines.push('[[operations]]', `include-operation-id = ${toml(operation.operationId)}`);
      if (credential) {
        const header = CREDENTIAL_HEADERS[credential];
        if (!header) throw new Error(`no header for the credential ${credential}`);
        lines.push(`headers = { ${header} }`);
      }
      if (parameters.length > 0) lines.push(`parameters = { ${parameters.join(', ')} }`);
      if (streams) lines.push(...STREAM_SETTINGS);
      lines.push('');
    }
  }
  return lines.join('\n');
}

describe('OpenAPI-driven fuzz of every operation (Schemathesis, docs/api.md#health)', function () {
  this.timeout(900_000);
  const taskQueue = `fuzz-${randomBytes(4).toString('hex')}`;
  const config = testConfig({
    TEMPORAL_TASK_QUEUE: taskQueue,
    RATE_LIMIT_MULTIPLIER: '1000',
    CREATE_WAIT_MS: '3000',
    SANDBOX_BANK_TRANSFER_DELAY_MS: '600000',
  });
  let app: Awaited<ReturnType<typeof startApp>>;
  let worker: { worker: Worker; running: Promise<void>; connection: NativeConnection } | undefined;
  let receiver: Receiver;
  let st: string;
  let developer: TestDeveloper;
  let other: TestDeveloper;
  let fixtures: Fixtures;

  /** A JSON request to the fuzzed app with the developer's secret key. */
  async function api(method: string, route: string, body?: unknown): Promise<{ status: number; data: any }> {
    const response = await fetch(`${app.baseUrl}${route}`, {
      method,
      headers: {
        authorization: `Bearer ${developer.key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, data: ((await response.json()) as { data: any }).data };
  }

  /** Polls `read` every 200 ms until it returns a value, for at most 20 s. */
  async function eventually<T>(what: string, read: () => Promise<T | undefined>): Promise<T> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const value = await read();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`${what} did not appear within 20 s`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  before(async () => {
    st = await resolveSchemathesis((line) => console.log(`      ${line}`));
    const { db, client } = await getStack();
    app = await startApp(config);
    const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
    const created = await Worker.create({
      connection,
      taskQueue,
      workflowBundle: await workflowBundle(),
      activities: createActivities({
        db,
        providers: providerRegistryFromConfig(createSandboxLedger(db), config),
        temporal: client,
        mailer: createMailer(config),
        config,
      }),
      shutdownGraceTime: '1 second',
      shutdownForceTime: '3 seconds',
    });
    worker = { worker: created, running: created.run().catch(() => undefined), connection };
    receiver = await startReceiver();
    developer = await registerDeveloper();
    other = await registerDeveloper();

    const webhook = await api('POST', '/v1/developer/webhooks', {
      url: `${receiver.origin}/hooks`,
      events: ['payment.created', 'payment.completed', 'refund.completed'],
    });
    expect(webhook.status).to.equal(201);
    // Completed payments to refund and pending bank transfers to cancel or simulate: the fuzz uses up a few.
    const payments = await Promise.all(
      [1, 2, 3, 4].flatMap((i) => [
        api('POST', '/v1/payments', {
          amount: 1500 * i,
          currency: 'RWF',
          payment_method: 'mobile_money',
          phone_number: '+250788000001',
        }),
        api('POST', '/v1/payments', { amount: 2500 * i, currency: 'RWF', payment_method: 'bank_transfer' }),
      ]),
    );
    expect(payments.map((p) => p.status)).to.deep.equal(Array(payments.length).fill(201));
    const delivery = await eventually(
      'a delivery',
      async () =>
        (await api('GET', `/v1/developer/webhooks/${webhook.data.id}/deliveries`)).data.deliveries[0]?.id as
          string | undefined,
    );
    const event = await eventually(
      'an event',
      async () => (await api('GET', '/v1/developer/events')).data.events[0]?.id as string | undefined,
    );
    fixtures = {
      payments: payments.map((p) => p.data.id as string),
      webhooks: [webhook.data.id],
      deliveries: [delivery],
      events: [event],
      merchantId: developer.merchantId,
      receiverUrl: `${receiver.origin}/hooks`,
    };
  });

  after(async () => {
    if (worker) {
      if (worker.worker.getState() === 'RUNNING') worker.worker.shutdown();
      await worker.running;
      await worker.connection.close();
    }
    await app?.close();
    await receiver?.close();
  });

  it('answers no 5xx, and only statuses and bodies the document lists', async () => {
    const document = (await (await fetch(`${app.baseUrl}/v1/openapi.json`)).json()) as OpenApiDocument;
    const runDir = fs.mkdtempSync(path.join(process.env.TEST_RUN_DIR ?? '/tmp', 'fuzz-'));
    const reportDir = process.env.FUZZ_REPORT_DIR ?? runDir;
    const configFile = path.join(runDir, 'schemathesis.toml');
    fs.writeFileSync(configFile, schemathesisConfig(document, fixtures));
    const args = [
      '--config-file',
      configFile,
      'run',
      `${app.baseUrl}/v1/openapi.json`,
      '--checks',
      CHECKS.join(','),
      '--workers',
      '2',
      '--seed',
      process.env.FUZZ_SEED ?? '15',
      '--no-color',
      '--report',
      'har',
      '--report-dir',
      reportDir,
    ];
    const started = Date.now();
    const runOnce = () =>
      new Promise<{ code: number | null; output: string }>((resolve) => {
        const child = spawn(st, args, {
          cwd: runDir,
          env: {
            ...process.env,
            FUZZ_SECRET_KEY: developer.key,
            FUZZ_SESSION: developer.token,
            FUZZ_OTHER_SESSION: other.token,
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let output = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
        // A run that outlives its budget is stopped, and what it printed so far is the report.
        const overdue = setTimeout(() => {
          output += `\n[fuzz] stopped after ${RUN_BUDGET_MS / 1000} s\n`;
          child.kill('SIGTERM');
        }, RUN_BUDGET_MS);
        child.on('exit', (code) => {
          clearTimeout(overdue);
          resolve({ code, output });
        });
      });
    let run = await runOnce();
    // CPython 3.11's AST constructor can raise a spurious SystemError ("AST constructor recursion depth mismatch",
    // python/cpython#106905) when Schemathesis's threads parse sources at once: a fault of the tool, not an answer of
    // the API. A run whose only errors are that one is run once more; any other failure fails at once.
    const errors = /Errors:\n((?:\s+.*\n)+?)Warnings:/.exec(run.output)?.[1] ?? '';
    if (
      run.code !== 0 &&
      /recursion depth mismatch/.test(run.output) &&
      !/Failures:/.test(run.output) &&
      /^\s*🚫 Runtime Error: \d+\s*$/.test(errors)
    ) {
      console.log("      fuzz: Schemathesis hit CPython's AST recursion-depth fault; running it once more");
      run = await runOnce();
    }
    const cases = /(\d+) generated, (.*)/.exec(run.output);
    const operations = /Tested: (\d+)/.exec(run.output)?.[1];
    console.log(
      `      fuzz: ${operations ?? '?'} operations, ${cases ? `${cases[1]} cases (${cases[2].trim()})` : 'no case count'} in ${Math.round((Date.now() - started) / 1000)} s, seed ${process.env.FUZZ_SEED ?? '15'}`,
    );
    // The whole report on failure: each failure with its curl reproduction.
    if (run.code !== 0) console.log(run.output);
    expect(run.code, 'Schemathesis reported failures (see its report above)').to.equal(0);
    expect(Number(cases?.[1] ?? 0)).to.be.greaterThan(1000);
  });
});
