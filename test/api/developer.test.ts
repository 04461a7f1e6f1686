/** Dashboard endpoints over real HTTP (docs/api.md, docs/limits.md#lists), with their bad inputs. */
import { expect } from 'chai';
import { call, registerDeveloper, waitForPayment, type TestDeveloper } from '../helpers/http';

const INSTANT = {
  amount: 1500,
  currency: 'RWF',
  payment_method: 'mobile_money',
  phone_number: '+250788000001',
  description: 'Order',
};

async function completedPayment(developer: TestDeveloper, body: object = INSTANT) {
  const created = await call('/v1/payments', { key: developer.key, body });
  return waitForPayment(developer.key, created.body.data.id, (p) => p.status === 'completed');
}

describe('dashboard endpoints', function () {
  this.timeout(60_000);

  describe('profile (docs/api.md#profile)', () => {
    it('shows the profile with a session token or a secret key', async () => {
      const developer = await registerDeveloper();
      const bySession = await call('/v1/developer/profile', {
        headers: { authorization: `Bearer ${developer.token}` },
      });
      const byKey = await call('/v1/developer/profile', { key: developer.key });
      expect(bySession.status).to.equal(200);
      expect(bySession.body.data).to.deep.equal(byKey.body.data);
      expect(bySession.body.data).to.include({
        merchant_id: developer.merchantId,
        email: developer.email,
        plan: 'sandbox',
        has_live_access: false,
        country: null,
      });
    });

    it('changes name, business_name, country and phone', async () => {
      const developer = await registerDeveloper();
      const response = await call('/v1/developer/profile', {
        method: 'PUT',
        key: developer.key,
        body: { name: 'Ada', business_name: 'Ada Shop', country: 'RW', phone: '+250788123456' },
      });
      expect(response.status).to.equal(200);
      expect(response.body.data).to.include({
        name: 'Ada',
        business_name: 'Ada Shop',
        country: 'RW',
        phone: '+250788123456',
      });
    });

    it('refuses email, plan, a 10 KB field, a bad country or phone with 400, changing nothing', async () => {
      const developer = await registerDeveloper();
      const cases: [object, RegExp][] = [
        [{ email: 'x@example.com' }, /email cannot be changed/],
        [{ plan: 'growth' }, /plan cannot be changed/],
        [{ name: 'x'.repeat(10 * 1024) }, /name must be at most 200 characters/],
        [{ country: 'Rwanda' }, /country must be an ISO/],
        [{ phone: '0788' }, /phone must be a valid/],
        [{ nickname: 'x' }, /unknown field/],
      ];
      for (const [body, message] of cases) {
        const response = await call('/v1/developer/profile', { method: 'PUT', key: developer.key, body });
        expect(response.status, JSON.stringify(body).slice(0, 40)).to.equal(400);
        expect(response.body.error.message).to.match(message);
      }
      const after = await call('/v1/developer/profile', { key: developer.key });
      expect(after.body.data).to.include({ email: developer.email, plan: 'sandbox', name: 'Test Developer' });
    });

    it('keeps the time zone the dashboard shows times in: an IANA name, null by default and to clear it', async () => {
      const developer = await registerDeveloper();
      const before = await call('/v1/developer/profile', { key: developer.key });
      expect(before.body.data.time_zone).to.equal(null);
      const set = await call('/v1/developer/profile', {
        method: 'PUT',
        key: developer.key,
        body: { time_zone: 'Africa/Kigali' },
      });
      expect(set.status, JSON.stringify(set.body)).to.equal(200);
      expect(set.body.data.time_zone).to.equal('Africa/Kigali');
      const read = await call('/v1/developer/profile', { headers: { authorization: `Bearer ${developer.token}` } });
      expect(read.body.data.time_zone).to.equal('Africa/Kigali');
      const utc = await call('/v1/developer/profile', {
        method: 'PUT',
        key: developer.key,
        body: { time_zone: 'UTC' },
      });
      expect(utc.body.data.time_zone).to.equal('UTC');
      const cleared = await call('/v1/developer/profile', {
        method: 'PUT',
        key: developer.key,
        body: { time_zone: null },
      });
      expect(cleared.body.data.time_zone).to.equal(null);
    });

    it('refuses a time zone that is not an IANA zone with 400 naming time_zone, changing nothing', async () => {
      const developer = await registerDeveloper();
      await call('/v1/developer/profile', { method: 'PUT', key: developer.key, body: { time_zone: 'Africa/Nairobi' } });
      for (const time_zone of [
        'CAT',
        '+02:00',
        'Kigali',
        'africa/kigali',
        'Mars/Olympus_Mons',
        '',
        'x'.repeat(100),
        3,
      ]) {
        const response = await call('/v1/developer/profile', {
          method: 'PUT',
          key: developer.key,
          body: { time_zone },
        });
        expect(response.status, String(time_zone).slice(0, 20)).to.equal(400);
        expect(response.body.error.code).to.equal('validation_error');
        expect(response.body.error.details.map((detail: { field: string }) => detail.field)).to.deep.equal([
          'time_zone',
        ]);
      }
      const after = await call('/v1/developer/profile', { key: developer.key });
      expect(after.body.data.time_zone).to.equal('Africa/Nairobi');
    });
  });

  describe('transactions (docs/limits.md#lists)', () => {
    let developer: TestDeveloper;
    let paymentIds: string[];
    let refundId: string;
    before(async () => {
      developer = await registerDeveloper();
      paymentIds = [];
      for (let i = 0; i < 3; i += 1) paymentIds.push((await completedPayment(developer)).id);
      const refund = await call(`/v1/payments/${paymentIds[0]}/refund`, { key: developer.key, body: { amount: 500 } });
      refundId = refund.body.data.id;
      const failed = await call('/v1/payments', {
        key: developer.key,
        body: { ...INSTANT, phone_number: '+250788000002' },
      });
      await waitForPayment(developer.key, failed.body.data.id, (p) => p.status === 'failed');
    });

    it('lists payments and refunds newest first with fee and net, paginated without overlap', async () => {
      const all = await call('/v1/developer/transactions', { key: developer.key });
      expect(all.status).to.equal(200);
      const { transactions, pagination } = all.body.data;
      expect(pagination).to.deep.include({ page: 1, limit: 10, total: 5, total_pages: 1 });
      expect(transactions[0]).to.include({ type: 'payment', status: 'failed' });
      expect(transactions[1]).to.include({
        id: refundId,
        type: 'refund',
        payment_id: paymentIds[0],
        amount: 500,
        fee: 0,
        net: -500,
        payment_method: 'mobile_money',
        customer: '+250788000001',
      });
      const payment = transactions.find((t: { id: string }) => t.id === paymentIds[1]);
      expect(payment).to.include({
        type: 'payment',
        amount: 1500,
        fee: 23,
        net: 1477,
        status: 'completed',
        currency: 'RWF',
      });
      const keys = transactions.map((t: { created_at: string; id: string }) => `${t.created_at}|${t.id}`);
      expect([...keys].sort().reverse()).to.deep.equal(keys);
      const page1 = await call('/v1/developer/transactions?limit=2&page=1', { key: developer.key });
      const page2 = await call('/v1/developer/transactions?limit=2&page=2', { key: developer.key });
      const ids = [...page1.body.data.transactions, ...page2.body.data.transactions].map((t: { id: string }) => t.id);
      expect(new Set(ids).size).to.equal(4);
      expect(ids).to.deep.equal(keys.slice(0, 4).map((k: string) => k.split('|')[1]));
    });

    it("keeps later pages stable while new transactions arrive, with the first page's as_of", async () => {
      const page1 = await call('/v1/developer/transactions?limit=2', { key: developer.key });
      const asOf = page1.body.data.pagination.as_of;
      expect(Date.parse(asOf)).to.be.closeTo(Date.now(), 10_000);
      await Promise.all(
        [1, 2].map(() =>
          call('/v1/payments', { key: developer.key, body: { ...INSTANT, phone_number: '+250788000003' } }),
        ),
      );
      const page2 = await call(`/v1/developer/transactions?limit=2&page=2&as_of=${encodeURIComponent(asOf)}`, {
        key: developer.key,
      });
      expect(page2.body.data.pagination).to.include({ total: 5, as_of: asOf });
      const ids = [...page1.body.data.transactions, ...page2.body.data.transactions].map((t: { id: string }) => t.id);
      expect(new Set(ids).size).to.equal(4);
      expect((await call('/v1/developer/transactions?as_of=yesterday', { key: developer.key })).status).to.equal(400);
    });

    it('pages with a cursor as GET /v1/payments does: every transaction once, in order, new ones never shifting the pages', async () => {
      // Its own developer, so the other tests' counts stay; payments left pending need no waiting.
      const owner = await registerDeveloper();
      const pending = { ...INSTANT, phone_number: '+250788000003' };
      for (let i = 0; i < 5; i += 1) await call('/v1/payments', { key: owner.key, body: pending });
      const everything = await call('/v1/developer/transactions?limit=100', { key: owner.key });
      const expected = everything.body.data.transactions.map((t: { id: string }) => t.id);
      expect(everything.body.data.pagination).to.include({ has_more: false, next_starting_after: null });
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let round = 0; round < 10; round += 1) {
        const query: string = cursor ? `&starting_after=${cursor}` : '';
        const page = await call(`/v1/developer/transactions?limit=2${query}`, { key: owner.key });
        expect(page.status, JSON.stringify(page.body)).to.equal(200);
        seen.push(...page.body.data.transactions.map((t: { id: string }) => t.id));
        const { has_more: hasMore, next_starting_after: next } = page.body.data.pagination;
        expect(next).to.equal(hasMore ? seen.at(-1) : null);
        cursor = next;
        // A payment made between two pages is newer than every cursor: it shifts nothing.
        if (round === 0) await call('/v1/payments', { key: owner.key, body: pending });
        if (!cursor) break;
      }
      expect(seen).to.deep.equal(expected);
      expect(seen).to.have.length(5);
      const other = await registerDeveloper();
      for (const id of ['pay_nothing', expected[0]]) {
        const refused = await call(`/v1/developer/transactions?starting_after=${id}`, { key: other.key });
        expect(refused.status).to.equal(400);
        expect(refused.body.error.details[0].field).to.equal('starting_after');
      }
    });

    it('filters by status (several), method and date', async () => {
      const failed = await call('/v1/developer/transactions?status=failed', { key: developer.key });
      expect(failed.body.data.transactions.map((t: { status: string }) => t.status)).to.deep.equal(['failed']);
      const several = await call('/v1/developer/transactions?status=completed,failed', { key: developer.key });
      expect(several.body.data.pagination.total).to.equal(5);
      const open = await call('/v1/developer/transactions?status=pending,processing', { key: developer.key });
      expect(open.body.data.pagination.total).to.equal(2); // the two created while paging
      const card = await call('/v1/developer/transactions?method=card', { key: developer.key });
      expect(card.body.data.pagination.total).to.equal(0);
      const today = new Date().toISOString().slice(0, 10);
      const byDay = await call(`/v1/developer/transactions?date=${today}`, { key: developer.key });
      expect(byDay.body.data.pagination.total).to.equal(7);
      const range = await call(`/v1/developer/transactions?date=2020-01-01..2020-01-31`, { key: developer.key });
      expect(range.body.data.pagination.total).to.equal(0);
    });

    it('shows one transaction by payment or refund id, and 404 for another merchant', async () => {
      expect((await call(`/v1/developer/transactions/${refundId}`, { key: developer.key })).body.data).to.include({
        type: 'refund',
        amount: 500,
      });
      expect((await call(`/v1/developer/transactions/${paymentIds[2]}`, { key: developer.key })).body.data).to.include({
        type: 'payment',
      });
      const other = await registerDeveloper();
      expect((await call(`/v1/developer/transactions/${refundId}`, { key: other.key })).status).to.equal(404);
    });

    it('refuses page=0, limit=101, limit=abc, unknown status or method, 2026-13-01 and a reversed range', async () => {
      for (const query of [
        'page=0',
        'limit=101',
        'limit=abc',
        'status=lost',
        'status=completed,lost',
        'method=cash',
        'date=2026-13-01',
        'date=2026-02-30',
        'date=2026-05-02..2026-05-01',
        'date=yesterday',
        'sort=asc',
      ]) {
        const response = await call(`/v1/developer/transactions?${query}`, { key: developer.key });
        expect(response.status, query).to.equal(400);
        expect(response.body.error.code, query).to.equal('validation_error');
      }
    });
  });

  describe('fee and net count only money that moved (docs/limits.md#lists)', () => {
    /** The transaction `id` as the list filtered by `status` shows it, and as the single read shows it. */
    async function transactionRow(developer: TestDeveloper, id: string, status: string) {
      const listed = await call(`/v1/developer/transactions?status=${status}`, { key: developer.key });
      expect(listed.status).to.equal(200);
      const row = listed.body.data.transactions.find((t: { id: string }) => t.id === id);
      expect(row, `${id} in the ${status} list`).to.not.equal(undefined);
      expect((await call(`/v1/developer/transactions/${id}`, { key: developer.key })).body.data).to.deep.equal(row);
      return row;
    }

    it('gives a failed or cancelled payment and a failed or pending refund fee 0 and net 0; a completed payment and refund keep theirs', async () => {
      const developer = await registerDeveloper();
      const failed = await call('/v1/payments', {
        key: developer.key,
        body: { ...INSTANT, amount: 9900, phone_number: '+250788000002' },
      });
      await waitForPayment(developer.key, failed.body.data.id, (p) => p.status === 'failed');
      expect(await transactionRow(developer, failed.body.data.id, 'failed')).to.include({
        amount: 9900,
        fee: 0,
        net: 0,
      });
      const detail = await call(`/v1/developer/payments/${failed.body.data.id}`, {
        headers: { authorization: `Bearer ${developer.token}` },
      });
      expect(detail.body.data).to.include({ fee: 0, net: 0 });

      // A bank transfer: its provider can withdraw the request (a mobile-money prompt cannot, docs/payments.md).
      const waiting = await call('/v1/payments', {
        key: developer.key,
        body: { amount: 1500, currency: 'RWF', payment_method: 'bank_transfer' },
      });
      expect(await transactionRow(developer, waiting.body.data.id, 'pending,processing')).to.include({
        fee: 0,
        net: 0,
      });
      expect(
        (await call(`/v1/payments/${waiting.body.data.id}/cancel`, { key: developer.key, method: 'POST' })).status,
      ).to.equal(200);
      expect(await transactionRow(developer, waiting.body.data.id, 'cancelled')).to.include({ fee: 0, net: 0 });

      const refused = await completedPayment(developer, { ...INSTANT, phone_number: '+250788000006' });
      const failedRefund = await call(`/v1/payments/${refused.id}/refund`, {
        key: developer.key,
        body: { amount: 700 },
      });
      expect(failedRefund.body.data.status).to.equal('failed');
      expect(await transactionRow(developer, failedRefund.body.data.id, 'failed')).to.include({
        type: 'refund',
        amount: 700,
        fee: 0,
        net: 0,
      });

      const slow = await completedPayment(developer, { ...INSTANT, phone_number: '+250788000007' });
      const pendingRefund = await call(`/v1/payments/${slow.id}/refund`, { key: developer.key, body: { amount: 400 } });
      expect(pendingRefund.body.data.status).to.equal('pending');
      expect(await transactionRow(developer, pendingRefund.body.data.id, 'pending')).to.include({
        type: 'refund',
        amount: 400,
        fee: 0,
        net: 0,
      });

      const completed = await completedPayment(developer);
      const refund = await call(`/v1/payments/${completed.id}/refund`, { key: developer.key, body: { amount: 500 } });
      expect(await transactionRow(developer, completed.id, 'completed')).to.include({
        amount: 1500,
        fee: 23,
        net: 1477,
      });
      expect(await transactionRow(developer, refund.body.data.id, 'completed')).to.include({
        type: 'refund',
        amount: 500,
        fee: 0,
        net: -500,
      });
    });
  });

  describe('analytics (docs/limits.md#lists)', () => {
    it('computes volumes, fees, net, counts, success rate and a daily series in SQL', async () => {
      const developer = await registerDeveloper();
      const first = await completedPayment(developer);
      await completedPayment(developer);
      await call(`/v1/payments/${first.id}/refund`, { key: developer.key, body: { amount: 500 } });
      const failed = await call('/v1/payments', {
        key: developer.key,
        body: { ...INSTANT, phone_number: '+250788000002' },
      });
      await waitForPayment(developer.key, failed.body.data.id, (p) => p.status === 'failed');
      const response = await call('/v1/developer/analytics', { key: developer.key });
      expect(response.status).to.equal(200);
      const data = response.body.data;
      expect(data.volume_by_currency).to.deep.equal([
        { currency: 'RWF', completed_volume: 3000, refunded_volume: 500, fees: 46, net: 2454 },
      ]);
      expect(data.count_by_status).to.deep.equal({ completed: 2, failed: 1 });
      expect(data.count_by_method).to.deep.equal({ mobile_money: 3 });
      expect(data.success_rate).to.equal(0.6667);
      expect(data.daily).to.deep.equal([
        {
          date: new Date().toISOString().slice(0, 10),
          currency: 'RWF',
          payments: 3,
          completed: 2,
          completed_volume: 3000,
          fees: 46,
        },
      ]);
    });

    it('narrows every figure to one currency, never adding currencies up', async () => {
      const developer = await registerDeveloper();
      await completedPayment(developer);
      // An M-Pesa payment in KES that fails: it must count in KES alone.
      const kes = await call('/v1/payments', {
        key: developer.key,
        body: { amount: 150_000, currency: 'KES', payment_method: 'mobile_money', phone_number: '+254712000002' },
      });
      await waitForPayment(developer.key, kes.body.data.id, (p) => p.status === 'failed');
      const of = async (query: string) =>
        (await call(`/v1/developer/analytics?${query}`, { key: developer.key })).body.data;
      const rwf = await of('currency=RWF');
      expect(rwf.volume_by_currency.map((v: { currency: string }) => v.currency)).to.deep.equal(['RWF']);
      expect(rwf.count_by_status).to.deep.equal({ completed: 1 });
      expect(rwf.success_rate).to.equal(1);
      expect(rwf.daily.map((d: { currency: string }) => d.currency)).to.deep.equal(['RWF']);
      const shillings = await of('currency=KES');
      expect(shillings.count_by_status).to.deep.equal({ failed: 1 });
      expect(shillings.success_rate).to.equal(0);
      expect(shillings.volume_by_currency).to.deep.equal([
        { currency: 'KES', completed_volume: 0, refunded_volume: 0, fees: 0, net: 0 },
      ]);
      const none = await of('currency=XOF');
      expect(none).to.deep.include({ volume_by_currency: [], count_by_status: {}, success_rate: null, daily: [] });
      // Without it: volumes per currency, counts of all.
      expect((await of('')).count_by_status).to.deep.equal({ completed: 1, failed: 1 });
    });

    it('refuses a bad or reversed from/to and a currency it does not take, naming the field', async () => {
      const developer = await registerDeveloper();
      for (const [query, field] of [
        ['from=2026-13-01', 'from'],
        ['from=2026-05-02&to=2026-05-01', 'from'],
        ['to=soon', 'to'],
        ['currency=EURO', 'currency'],
        ['currency=rwf', 'currency'],
        ['currency=', 'currency'],
      ]) {
        const answer = await call(`/v1/developer/analytics?${query}`, { key: developer.key });
        expect(answer.status, query).to.equal(400);
        expect(answer.body.error.details[0].field, query).to.equal(field);
      }
    });
  });

  describe('keys (docs/api.md#secret-keys)', () => {
    it('lists keys masked, with a session token only', async () => {
      const developer = await registerDeveloper();
      const response = await call('/v1/developer/keys', { headers: { authorization: `Bearer ${developer.token}` } });
      expect(response.status).to.equal(200);
      expect(response.body.data.keys).to.have.length(1);
      expect(response.body.data.keys[0]).to.include({
        environment: 'sandbox',
        status: 'active',
        masked: `sk_sandbox_…${developer.key.slice(-4)}`,
      });
      expect(JSON.stringify(response.body)).not.to.include(developer.key);
      const withKey = await call('/v1/developer/keys', { key: developer.key });
      expect(withKey.status).to.equal(401);
    });

    it('rolls a key: the new one is shown once and works; the old one ends now with expires_in_hours 0', async () => {
      const developer = await registerDeveloper();
      const auth = { authorization: `Bearer ${developer.token}` };
      const rolled = await call('/v1/developer/keys/sandbox/roll', { headers: auth, body: { expires_in_hours: 0 } });
      expect(rolled.status).to.equal(201);
      const secret = rolled.body.data.key.secret;
      expect(secret).to.match(/^sk_sandbox_[0-9A-Za-z]{32}$/);
      expect((await call('/v1/developer/profile', { key: secret })).status).to.equal(200);
      const old = await call('/v1/developer/profile', { key: developer.key });
      expect(old.status).to.equal(401);
      expect(old.body.error.code).to.equal('invalid_api_key');
      const listed = await call('/v1/developer/keys', { headers: auth });
      expect(listed.body.data.keys.map((k: { status: string }) => k.status)).to.deep.equal(['active', 'expired']);
    });

    it('keeps the old key for the grace period, and refuses to roll live before live access (409) or a bad body (400)', async () => {
      const developer = await registerDeveloper();
      const auth = { authorization: `Bearer ${developer.token}` };
      const rolled = await call('/v1/developer/keys/sandbox/roll', { headers: auth, method: 'POST' });
      expect(Date.parse(rolled.body.data.previous_keys_expire_at) - Date.now()).to.be.closeTo(24 * 3600_000, 60_000);
      expect((await call('/v1/developer/profile', { key: developer.key })).status).to.equal(200);
      const live = await call('/v1/developer/keys/live/roll', { headers: auth, method: 'POST' });
      expect(live.status).to.equal(409);
      expect((await call('/v1/developer/keys/staging/roll', { headers: auth, method: 'POST' })).status).to.equal(400);
      expect(
        (await call('/v1/developer/keys/sandbox/roll', { headers: auth, body: { expires_in_hours: -1 } })).status,
      ).to.equal(400);
    });
  });

  describe('activity (docs/live-access.md#audit-log)', () => {
    it('lists every change made through the API with its actor, newest first, paginated', async () => {
      const developer = await registerDeveloper();
      const payment = await completedPayment(developer);
      const refund = await call(`/v1/payments/${payment.id}/refund`, { key: developer.key, body: { amount: 100 } });
      await call('/v1/developer/profile', {
        method: 'PUT',
        headers: { authorization: `Bearer ${developer.token}` },
        body: { name: 'Renamed' },
      });
      const rolled = await call('/v1/developer/keys/sandbox/roll', {
        headers: { authorization: `Bearer ${developer.token}` },
        method: 'POST',
      });
      const response = await call('/v1/developer/activity', {
        headers: { authorization: `Bearer ${developer.token}` },
      });
      expect(response.status).to.equal(200);
      const entries = response.body.data.activity as {
        id: string;
        actor: { type: string; id: string };
        action: string;
        target: string;
        ip: string | null;
      }[];
      expect(entries.map((e) => e.action)).to.deep.equal([
        'api_key.rolled',
        'profile.updated',
        'refund.created',
        'payment.created',
      ]);
      expect(entries[0]).to.deep.include({
        target: rolled.body.data.key.id,
        actor: { type: 'developer', id: entries[1]?.actor.id },
      });
      expect(entries[2]).to.include({ target: refund.body.data.id });
      expect(entries[2]?.actor.type).to.equal('api_key');
      expect(entries[3]).to.include({ target: payment.id });
      expect(entries[3]?.id).to.match(/^act_/);
      expect(entries[3]?.ip).to.be.a('string');
      const page = await call('/v1/developer/activity?limit=1&page=2', { key: developer.key });
      expect(page.body.data.pagination).to.deep.equal({ page: 2, limit: 1, total: 4, total_pages: 4 });
      expect(page.body.data.activity[0].action).to.equal('profile.updated');
      expect((await call('/v1/developer/activity?limit=0', { key: developer.key })).status).to.equal(400);
    });
  });
});
