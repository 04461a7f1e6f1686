/**
 * The whole service in live mode pointed at provider fakes: an API process and a worker process
 * (as `npm start` runs them) on a task queue of their own, with the provider settings a test gives,
 * and a live merchant approved through the admin command.
 */
import { randomBytes } from 'node:crypto';
import { call, type CallOptions, type TestDeveloper } from './http';
import { getStack } from './stack';
import { developerWithOpenRequest, runAdminProcess, session } from './live-access-api';
import { ApiProcess, WorkerProcess } from './processes';

/** The live service under test: its base URL and its processes. */
export interface LiveService {
  baseUrl: string;
  api: ApiProcess;
  worker: WorkerProcess;
  stop(): Promise<void>;
}

/**
 * Starts an API and a worker process with `env` (provider settings) on a fresh task queue; the
 * worker sends providers the API's callback URL. Sandbox delays are short.
 */
export async function startLiveService(env: Record<string, string>): Promise<LiveService> {
  const taskQueue = `live-${randomBytes(4).toString('hex')}`;
  const common = { RATE_LIMIT_MULTIPLIER: '1000', ...env };
  const api = await ApiProcess.create(taskQueue, common);
  await api.start();
  const worker = new WorkerProcess(taskQueue, { ...common, PROVIDER_CALLBACK_BASE_URL: api.baseUrl });
  worker.start();
  return {
    baseUrl: api.baseUrl,
    api,
    worker,
    async stop() {
      await worker.kill();
      await api.kill();
    },
  };
}

/**
 * A merchant with live access granted the way a reviewer grants it: documents uploaded, the
 * request filed, `npm run admin -- live-access approve` run, the first live key revealed.
 * @returns its live secret key, its merchant id and the developer (its sandbox key and session)
 */
export async function approvedLiveMerchant(): Promise<{
  liveKey: string;
  merchantId: string;
  developer: TestDeveloper;
}> {
  const { developer, requestId } = await developerWithOpenRequest();
  const run = await runAdminProcess(['live-access', 'approve', requestId, '--reviewer', 'e2e']);
  if (run.code !== 0) throw new Error(`admin approve failed: ${run.stderr}`);
  for (let i = 0; i < 100; i++) {
    const revealed = await call('/v1/developer/live-access/live-key', { method: 'POST', headers: session(developer) });
    if (revealed.status === 200 || revealed.status === 201)
      return { liveKey: revealed.body.data.secret, merchantId: developer.merchantId, developer };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('the live key never appeared after approval');
}

/**
 * A call to `baseUrl + path` with the secret `key` (`call` of ./http.ts on another service); answers status and parsed
 * body.
 */
export async function callService(
  baseUrl: string,
  path: string,
  key: string,
  options: Omit<CallOptions, 'key' | 'baseUrl'> = {},
): Promise<{ status: number; body: any }> {
  return call(path, { ...options, key, baseUrl });
}

/**
 * Polls `GET /v1/payments/{id}` on `baseUrl` until `predicate` holds; throws after `timeoutMs` with the last payment.
 */
export async function waitForLivePayment(
  baseUrl: string,
  key: string,
  id: string,
  predicate: (payment: any) => boolean,
  timeoutMs = 30_000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  let last: any;
  while (Date.now() < deadline) {
    last = (await callService(baseUrl, `/v1/payments/${id}`, key)).body.data;
    if (last && predicate(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`payment ${id} did not reach the expected state; last: ${JSON.stringify(last)}`);
}

/** The provider's reference of payment `id` as the read model holds it (the generic view does not show it). */
export async function providerReferenceOf(id: string): Promise<string | null> {
  const { db } = await getStack();
  const row = await db('payments').where({ id }).first('provider_reference');
  return (row?.provider_reference as string | null | undefined) ?? null;
}

/** The `data` of payment `id`'s event `type` (`payment.completed` …) as written, or undefined when none was. */
export async function paymentEventDataOf(id: string, type: string): Promise<any> {
  const { db } = await getStack();
  const row = await db('events').where({ object_id: id, type }).first('data');
  return row?.data;
}
