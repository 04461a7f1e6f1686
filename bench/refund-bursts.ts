/**
 * The refund-burst loop (not in CI, not in `npm run bench`): `BURSTS` (default 1,000) rounds of
 * the refund race test's burst (test/api/refund-race.test.ts: a completed 1,500 RWF sandbox payment, then 20
 * concurrent `POST …/refund {amount: 100}` without an Idempotency-Key), counting every answer of 5xx. A 5xx of a
 * refund without a key cannot be retried safely (docs/payments.md#refunds-happen-once), so the target is none.
 *
 * Run: `npx tsx bench/refund-bursts.ts [bursts]`. Against a stack already started (`npm start`, or the cluster),
 * set `REFUND_BURSTS_API_URL` (and `REFUND_BURSTS_TEMPORAL_ADDRESS` for the histories); otherwise it starts its own
 * as `npm run bench` does (bench/lib/stack.ts: embedded PostgreSQL, Temporal dev server, worker and API as separate
 * processes) and stops it at the end, keeping its logs when a burst answered 5xx.
 *
 * For every burst with a 5xx it records the payment workflow's histories (`temporal workflow show --output json`,
 * every run) under `var/refund-bursts/`, for the cause. Prints a line every 50 bursts and a summary: bursts, refunds,
 * 5xx answers (by code), bursts with a 5xx, bursts after which the payment was not refunded in full (a refund refused
 * while money was left: the books of the race test), and the refund answers' p50/p99/max in milliseconds.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import exitHook from 'async-exit-hook';
import { resolveTemporalCli } from '../scripts/lib/temporal-cli';
import { createPayment, paymentBody, PHONES, registerDeveloper, type Developer } from './lib/api';
import { startStack, type Stack } from './lib/stack';

const root = path.resolve(__dirname, '..');
/** Concurrent refunds per burst, each of {@link REFUND_AMOUNT}: exactly the payment's 1,500 RWF (the race test's). */
const CONCURRENT = 20;
const REFUND_AMOUNT = 100;
/** How long a payment may take to complete, and its refunds to settle, in milliseconds. */
const SETTLE_TIMEOUT_MS = 60_000;

/** The `q` quantile (0–1) of `values`, nearest rank; 0 for none. */
function percentile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;
}

const started = performance.now();
const say = (line: string) =>
  process.stdout.write(`[refund-bursts ${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}\n`);

/** One refund's answer: HTTP status, error code or refund status, and how long it took (ms). */
interface Answer {
  status: number;
  code: string;
  ms: number;
}

/** GETs payment `id`; its status and amount refunded. */
async function readPayment(apiUrl: string, developer: Developer, id: string): Promise<{ status: string }> {
  const response = await fetch(`${apiUrl}/v1/payments/${id}`, {
    headers: { authorization: `Bearer ${developer.key}` },
  });
  return ((await response.json()) as { data: { status: string } }).data;
}

/** Waits until payment `id` has `status`; throws after {@link SETTLE_TIMEOUT_MS}. */
async function waitFor(apiUrl: string, developer: Developer, id: string, status: string): Promise<void> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  for (;;) {
    const payment = await readPayment(apiUrl, developer, id);
    if (payment.status === status) return;
    if (Date.now() > deadline) throw new Error(`payment ${id} is ${payment.status}, not ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Fires {@link CONCURRENT} refunds without keys at payment `id` at once. */
async function burst(apiUrl: string, developer: Developer, id: string): Promise<Answer[]> {
  return Promise.all(
    Array.from({ length: CONCURRENT }, async () => {
      const sent = performance.now();
      const response = await fetch(`${apiUrl}/v1/payments/${id}/refund`, {
        method: 'POST',
        headers: { authorization: `Bearer ${developer.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ amount: REFUND_AMOUNT }),
      });
      const body = (await response.json()) as { data?: { status: string }; error?: { code: string } };
      return {
        status: response.status,
        code: body.error?.code ?? body.data?.status ?? '',
        ms: performance.now() - sent,
      };
    }),
  );
}

/** Writes every run's history of payment `id`'s workflow to `dir` (the Temporal CLI's JSON). */
function recordHistories(cliPath: string, address: string, id: string, dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  const workflowId = `payment:${id}`;
  const list = execFileSync(
    cliPath,
    ['workflow', 'list', '--address', address, '--query', `WorkflowId="${workflowId}"`, '--output', 'json'],
    { encoding: 'utf8' },
  );
  const runs = (JSON.parse(list || '[]') as { execution: { runId: string } }[]).map((r) => r.execution.runId);
  for (const runId of runs) {
    const history = execFileSync(
      cliPath,
      ['workflow', 'show', '--address', address, '--workflow-id', workflowId, '--run-id', runId, '--output', 'json'],
      { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 },
    );
    fs.writeFileSync(path.join(dir, `${runId}.json`), history);
  }
  say(`  histories of ${workflowId} (${runs.length} runs) in ${dir}`);
}

/** The stack this script started, stopped at the end, on Ctrl-C and on an error (its logs kept). */
let stack: Stack | undefined;

async function main(): Promise<void> {
  const bursts = Number(process.argv[2] ?? process.env.REFUND_BURSTS ?? 1000);
  const cliPath = await resolveTemporalCli(say);
  exitHook((done) => void (stack?.stop(true) ?? Promise.resolve()).finally(done));
  let apiUrl = process.env.REFUND_BURSTS_API_URL;
  let temporalAddress = process.env.REFUND_BURSTS_TEMPORAL_ADDRESS ?? '127.0.0.1:7233';
  if (!apiUrl) {
    stack = await startStack({ root, cliPath, maxCachedWorkflows: 1000, say });
    apiUrl = stack.apiUrl;
    temporalAddress = stack.temporalAddress;
    say(`stack started: API ${apiUrl}, Temporal ${temporalAddress}, logs in ${stack.runDir}`);
  }
  const developer = await registerDeveloper(apiUrl, 'refund-bursts');
  const outDir = path.join(root, 'var', 'refund-bursts', new Date().toISOString().replace(/[:.]/g, '-'));
  const times: number[] = [];
  const codes = new Map<string, number>();
  let fiveHundreds = 0;
  let failedBursts = 0;
  /** Bursts after which the payment was not refunded in full (a refund refused while money was left). */
  let unsettledBursts = 0;
  for (let round = 1; round <= bursts; round += 1) {
    const id = await createPayment(apiUrl, developer, paymentBody(PHONES.instantSuccess, `burst-${round}`));
    await waitFor(apiUrl, developer, id, 'completed');
    const answers = await burst(apiUrl, developer, id);
    times.push(...answers.map((a) => a.ms));
    const bad = answers.filter((a) => a.status >= 500);
    if (bad.length > 0) {
      fiveHundreds += bad.length;
      failedBursts += 1;
      for (const answer of bad)
        codes.set(`${answer.status} ${answer.code}`, (codes.get(`${answer.status} ${answer.code}`) ?? 0) + 1);
      say(`burst ${round} (${id}): ${bad.length} × 5xx after ${bad.map((a) => Math.round(a.ms)).join(', ')} ms`);
      try {
        recordHistories(cliPath, temporalAddress, id, path.join(outDir, id));
      } catch (error) {
        say(`  histories not recorded: ${(error as Error).message}`);
      }
    }
    const unexpected = answers.filter(
      (a) => a.status < 500 && a.status !== 201 && a.status !== 409 && a.status !== 400,
    );
    if (unexpected.length > 0) say(`burst ${round} (${id}): unexpected ${unexpected.map((a) => a.status).join(', ')}`);
    try {
      await waitFor(apiUrl, developer, id, 'refunded');
    } catch (error) {
      // The books of the race test (test/api/refund-race.test.ts) do not hold: not all of the payment was refunded.
      unsettledBursts += 1;
      say(`burst ${round} (${id}): ${(error as Error).message}; answers ${answers.map((a) => a.status).join(',')}`);
      try {
        recordHistories(cliPath, temporalAddress, id, path.join(outDir, id));
      } catch (recordError) {
        say(`  histories not recorded: ${(recordError as Error).message}`);
      }
    }
    if (round % 50 === 0)
      say(
        `${round} bursts: ${fiveHundreds} 5xx in ${failedBursts} bursts, ${unsettledBursts} not refunded in full; refund p99 ${percentile(times, 0.99).toFixed(0)} ms`,
      );
  }
  say(
    `done: ${bursts} bursts, ${times.length} refunds, ${fiveHundreds} 5xx answers in ${failedBursts} bursts` +
      ` (${[...codes].map(([code, n]) => `${code}: ${n}`).join(', ') || 'none'}), ${unsettledBursts} bursts not refunded in full;` +
      ` refund answers p50 ${percentile(times, 0.5).toFixed(0)} ms, p99 ${percentile(times, 0.99).toFixed(0)} ms,` +
      ` max ${Math.max(...times).toFixed(0)} ms`,
  );
  const clean = failedBursts === 0 && unsettledBursts === 0;
  await stack?.stop(!clean);
  stack = undefined;
  process.exit(clean ? 0 : 1);
}

main().catch(async (error) => {
  console.error(error);
  await stack?.stop(true);
  process.exit(2);
});
