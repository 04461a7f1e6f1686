/**
 * `GET /v1/availability` over HTTP and its measurement on the real Temporal server (docs/availability.md): every
 * served provider, country and operation for any key, restricted keys included; bad queries refused; and the Schedule
 * that measures every 30 seconds turning an operator whose attempts fail at the provider `down`.
 */
import { expect } from 'chai';
import { recordProviderOutcome } from '../../src/db/provider-health';
import { servedHealthKeys } from '../../src/domain/provider-health';
import { newId } from '../../src/lib/ids';
import { ensureProviderHealthSchedules, providerHealthScheduleId } from '../../src/services/provider-health-service';
import { call, registerDeveloper } from '../helpers/http';
import { getStack } from '../helpers/stack';

describe('availability (docs/availability.md)', function () {
  this.timeout(60_000);

  it('answers every served provider, country and operation to a secret key or any restricted key', async () => {
    const developer = await registerDeveloper();
    const answer = await call('/v1/availability', { key: developer.key });
    expect(answer.status).to.equal(200);
    const rows = answer.body.data.availability as { provider: string; country: string; operation: string }[];
    expect(rows.map((row) => `${row.provider}:${row.country}:${row.operation}`)).to.deep.equal(
      servedHealthKeys('sandbox').map((key) => `${key.provider}:${key.country}:${key.operation}`),
    );
    expect(rows[0]).to.have.keys([
      'provider',
      'country',
      'operation',
      'status',
      'since',
      'success_rate',
      'p50_seconds',
      'p95_seconds',
      'window_attempts',
      'reason',
    ]);

    const restricted = await call('/v1/developer/keys', {
      key: developer.token,
      body: { name: 'Payout reader', environment: 'sandbox', scopes: ['payouts:read'] },
    });
    expect(restricted.status).to.equal(201);
    const byRestricted = await call('/v1/availability', { key: restricted.body.data.key.secret as string });
    expect(byRestricted.status).to.equal(200);
    expect(byRestricted.body.data.availability).to.have.length(rows.length);
  });

  it('refuses an unknown query field and a missing key', async () => {
    const developer = await registerDeveloper();
    const bad = await call('/v1/availability?country=RW', { key: developer.key });
    expect(bad.status).to.equal(400);
    expect(JSON.stringify(bad.body)).to.contain('country');
    expect((await call('/v1/availability')).status).to.equal(401);
  });

  it('is measured by a Schedule every 30 s: an operator failing at the provider goes down, and the API says so', async () => {
    const { client, config, db, baseUrl } = await getStack();
    const developer = await registerDeveloper();
    // Another test's worker process (src/worker.ts) may have left them behind: this test creates its own.
    const removeSchedules = async () => {
      for (const environment of ['sandbox', 'live'] as const)
        await client.schedule
          .getHandle(providerHealthScheduleId(environment))
          .delete()
          .catch(() => undefined);
    };
    await removeSchedules();
    const created = await ensureProviderHealthSchedules(client, config.TEMPORAL_TASK_QUEUE);
    try {
      expect(created).to.deep.equal([providerHealthScheduleId('sandbox'), providerHealthScheduleId('live')]);
      expect(await ensureProviderHealthSchedules(client, config.TEMPORAL_TASK_QUEUE)).to.deep.equal([]);
      const now = Date.now();
      for (let i = 0; i < 25; i += 1)
        await recordProviderOutcome(db, {
          provider: 'mobile_money_b',
          country: 'UG',
          operation: 'payout',
          environment: 'sandbox',
          merchantId: developer.merchantId,
          objectId: newId('po_'),
          attempt: { decidedAt: now - i * 100, seconds: 4, outcome: 'failure', side: 'provider', neverReached: false },
        });
      await client.schedule.getHandle(providerHealthScheduleId('sandbox')).trigger();
      let row: { status: string; window_attempts: number; success_rate: number } | undefined;
      for (let tries = 0; tries < 60 && row?.status !== 'down'; tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        const rows = (await call('/v1/availability', { key: developer.key })).body.data.availability as (typeof row & {
          provider: string;
          country: string;
          operation: string;
        })[];
        row = rows.find((r) => r?.provider === 'mobile_money_b' && r.country === 'UG' && r.operation === 'payout');
      }
      expect(row).to.deep.include({ status: 'down', window_attempts: 25, success_rate: 0 });
      // The gauge the alert rules read says the same (docs/availability.md#metric): 2 for down, 0 for operational.
      const metrics = await (await fetch(`${baseUrl}/metrics`)).text();
      expect(metrics).to.contain(
        'paycollect_provider_status{provider="mobile_money_b",country="UG",operation="payout",environment="sandbox"} 2',
      );
      expect(metrics).to.contain(
        'paycollect_provider_status{provider="mpesa",country="KE",operation="payout",environment="live"} 0',
      );
    } finally {
      await removeSchedules();
      await db('provider_health').where({ provider: 'mobile_money_b', country: 'UG' }).del();
    }
  });
});
