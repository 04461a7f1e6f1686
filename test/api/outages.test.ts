/**
 * PostgreSQL or Temporal out of reach (docs/limits.md#outages): requests answer 503 `service_unavailable` with
 * `Retry-After`, never 500, and `/metrics` keeps answering. Each side is an app whose connection
 * points at a port nothing listens on.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { Client, Connection } from '@temporalio/client';
import { createApp } from '../../src/api/app';
import { createDb, type Db } from '../../src/db/knex';
import { createSandboxLedger } from '../../src/db/sandbox-ledger';
import { createLogger } from '../../src/logger';
import { providerRegistryFromConfig } from '../../src/providers/registry';
import { freePort } from '../../scripts/lib/ports';
import { registerDeveloper } from '../helpers/http';
import { getStack, testConfig } from '../helpers/stack';

const ORDER = { amount: 1500, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000001' };

/** An app on `db` and `temporal`, listening on a free port. */
async function appWith(db: Db, temporal: Client): Promise<{ url: string; close(): Promise<void> }> {
  const config = testConfig({ RATE_LIMIT_MULTIPLIER: '1000' });
  const app = createApp({
    config,
    db,
    temporal,
    providers: providerRegistryFromConfig(createSandboxLedger(db), config),
    logger: createLogger('outage-test', 'silent'),
  });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function post(url: string, key: string): Promise<{ status: number; retryAfter: string | null; body: any }> {
  const response = await fetch(`${url}/v1/payments`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(ORDER),
  });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json() };
}

describe('outages answer 503, never 500 (docs/limits.md#outages)', function () {
  this.timeout(60_000);

  it('PostgreSQL down: POST /v1/payments is 503 service_unavailable with Retry-After; /metrics and /healthz answer', async () => {
    const { client } = await getStack();
    const db = createDb(`postgres://nobody:nothing@127.0.0.1:${await freePort()}/none`, 2);
    const app = await appWith(db, client);
    try {
      const answer = await post(app.url, `sk_sandbox_${'A'.repeat(32)}`);
      expect(answer.status, JSON.stringify(answer.body)).to.equal(503);
      expect(answer.body.error.code).to.equal('service_unavailable');
      expect(answer.retryAfter).to.match(/^\d+$/);
      expect(JSON.stringify(answer.body)).not.to.match(/ECONNREFUSED|knex|at .*\.ts/);
      const metrics = await fetch(`${app.url}/metrics`);
      expect(metrics.status).to.equal(200);
      expect(await metrics.text()).to.match(/paycollect_read_model_up 0/);
      expect((await fetch(`${app.url}/healthz`)).status).to.equal(200);
    } finally {
      await app.close();
      await db.destroy();
    }
  });

  it('Temporal down: POST /v1/payments is 503 service_unavailable and stores nothing', async () => {
    const { db } = await getStack();
    const developer = await registerDeveloper();
    const temporal = new Client({
      connection: Connection.lazy({ address: `127.0.0.1:${await freePort()}`, connectTimeout: '1 second' }),
    });
    const app = await appWith(db, temporal);
    try {
      const answer = await post(app.url, developer.key);
      expect(answer.status, JSON.stringify(answer.body)).to.equal(503);
      expect(answer.body.error.code).to.equal('service_unavailable');
      expect(answer.retryAfter).to.match(/^\d+$/);
      expect(
        await db('payments').where({ merchant_id: developer.merchantId }).count<{ n: number }[]>('id as n'),
      ).to.deep.equal([{ n: 0 }]);
    } finally {
      await app.close();
    }
  });
});
