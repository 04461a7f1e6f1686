/**
 * Durability: the worker process killed with SIGKILL while payments are waiting on their provider,
 * then started again. Every payment still reaches its final state, and nothing is written twice:
 * one provider transaction, one `payment.created` and one `payment.completed` per payment (D22).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { createApp } from '../../src/api/app';
import { createLogger } from '../../src/logger';
import { providerRegistryFromConfig } from '../../src/providers/registry';
import { registerDeveloper } from '../helpers/http';
import { getStack, testConfig } from '../helpers/stack';

const ROOT = path.resolve(__dirname, '../..');

describe('worker killed with SIGKILL while payments are pending (D20, D22)', function () {
  this.timeout(180_000);
  const taskQueue = `payments-crash-${randomBytes(4).toString('hex')}`;
  const config = testConfig({ TEMPORAL_TASK_QUEUE: taskQueue, SANDBOX_APPROVAL_DELAY_MS: '6000' });
  let server: http.Server;
  let baseUrl: string;
  let worker: ChildProcess | undefined;

  function startWorker(): ChildProcess {
    const child = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), ['src/worker.ts'], {
      cwd: ROOT,
      env: { ...process.env, TEMPORAL_TASK_QUEUE: taskQueue, SANDBOX_APPROVAL_DELAY_MS: '6000', LOG_LEVEL: 'silent' },
      stdio: 'ignore',
      detached: true, // its own process group, so the kill reaches tsx's node child too
    });
    return child;
  }

  function killWorker(signal: NodeJS.Signals): Promise<void> {
    const child = worker;
    worker = undefined;
    if (!child || child.exitCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      child.once('exit', () => resolve());
      process.kill(-(child.pid as number), signal);
    });
  }

  before(async () => {
    const stack = await getStack();
    const app = createApp({ config, db: stack.db, temporal: stack.client, providers: providerRegistryFromConfig(stack.db, config), logger: createLogger('crash-test', 'silent') });
    server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    await killWorker('SIGKILL');
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  async function status(key: string, id: string): Promise<string> {
    const response = await fetch(`${baseUrl}/v1/payments/${id}`, { headers: { authorization: `Bearer ${key}` } });
    return ((await response.json()) as { data: { status: string } }).data.status;
  }

  async function waitAll(key: string, ids: string[], wanted: string, timeoutMs: number): Promise<string[]> {
    const deadline = Date.now() + timeoutMs;
    let statuses: string[];
    do {
      statuses = await Promise.all(ids.map((id) => status(key, id)));
      if (statuses.every((s) => s === wanted)) break;
      await new Promise((r) => setTimeout(r, 250));
    } while (Date.now() < deadline);
    return statuses;
  }

  it('finishes every payment after a restart, writing nothing twice', async () => {
    const developer = await registerDeveloper();
    worker = startWorker();
    const ids: string[] = [];
    for (let i = 0; i < 8; i += 1) {
      const response = await fetch(`${baseUrl}/v1/payments`, {
        method: 'POST',
        headers: { authorization: `Bearer ${developer.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ amount: 1000 + i, currency: 'RWF', payment_method: 'mobile_money', phone_number: `+25078812${String(3400 + i)}` }),
      });
      expect(response.status).to.equal(201);
      ids.push(((await response.json()) as { data: { id: string } }).data.id);
    }
    expect(await waitAll(developer.key, ids, 'processing', 60_000)).to.deep.equal(Array(ids.length).fill('processing'));

    await killWorker('SIGKILL');
    await new Promise((r) => setTimeout(r, 1000));
    expect(await waitAll(developer.key, ids, 'processing', 0)).to.deep.equal(Array(ids.length).fill('processing'));

    worker = startWorker();
    expect(await waitAll(developer.key, ids, 'completed', 90_000)).to.deep.equal(Array(ids.length).fill('completed'));

    const { db } = await getStack();
    const events = await db('events').whereIn('object_id', ids).select('object_id', 'type');
    for (const id of ids) {
      expect(events.filter((e: { object_id: string }) => e.object_id === id).map((e: { type: string }) => e.type).sort()).to.deep.equal(['payment.completed', 'payment.created']);
    }
    const transactions = await db('sandbox_provider_transactions').whereIn('payment_id', ids).count('payment_id as n').first();
    expect(transactions).to.deep.equal({ n: ids.length });
  });
});
