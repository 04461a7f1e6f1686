/**
 * The on-call commands (docs/operations.md#runbooks) and the backlog gauges (docs/operations.md#backlog)
 * against the real stack: a receiver that answers 500 keeps a delivery pending, a `0007` refund stays
 * pending while its answer is unknown, payouts wait in transit (`0003`) or for a rail that is down (`0005`), and
 * the commands list them, start a new delivery, ask the provider or the rail again and tell a payment's story from
 * PostgreSQL and Temporal.
 */
import { temporal } from '@temporalio/proto';
import { expect } from 'chai';
import { runAdmin } from '../../src/cli/admin';
import { formatAge, parseDuration } from '../../src/cli/operations-format';
import { BACKLOG_CACHE_MS, BacklogReader } from '../../src/services/operations-service';
import { call, registerDeveloper, waitForPayment, type TestDeveloper } from '../helpers/http';
import { fundedMerchant, wallet } from '../helpers/payouts';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { getStack } from '../helpers/stack';

/** Runs the admin command in-process and captures what it printed. */
async function admin(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runAdmin(args, { out: (text) => void (out += text), err: (text) => void (err += text) });
  return { code, out, err };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `read` every 200 ms until it gives a value, for at most `timeoutMs`. */
async function eventually<T>(read: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; ; await sleep(200)) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
  }
}

describe('on-call commands and backlog gauges (docs/operations.md#runbooks)', function () {
  this.timeout(90_000);
  let developer: TestDeveloper;
  let receiver: Receiver;
  let deliveryId: string;

  before(async () => {
    developer = await registerDeveloper();
    receiver = await startReceiver(() => ({ status: 500, body: 'down for maintenance' }));
    const webhook = await call('/v1/developer/webhooks', {
      key: developer.key,
      body: { url: `${receiver.origin}/hook`, events: ['payment.created'] },
    });
    expect(webhook.status, JSON.stringify(webhook.body)).to.equal(201);
    const payment = await call('/v1/payments', {
      key: developer.key,
      body: { amount: 1500, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000009' },
    });
    expect(payment.status).to.equal(201);
    const { db } = await getStack();
    // The endpoint answered 500 once: the delivery waits for its next attempt.
    deliveryId = await eventually(async () => {
      const row = await db('webhook_deliveries as d')
        .where({ 'd.webhook_id': webhook.body.data.id })
        .whereExists(db('webhook_attempts as a').whereRaw('a.delivery_id = d.id'))
        .first('d.id', 'd.status');
      return row?.status === 'pending' ? (row.id as string) : undefined;
    });
  });

  after(async () => {
    await receiver?.close();
  });

  it('lists the deliveries pending for longer than --older-than, and not the younger ones', async () => {
    const young = await admin('ops', 'deliveries', '--older-than', '1h');
    expect(young.code, young.err).to.equal(0);
    expect(young.out).not.to.include(deliveryId);
    await sleep(1_100);
    const old = await admin('ops', 'deliveries', '--older-than', '1s', '--limit', '1000');
    expect(old.code, old.err).to.equal(0);
    const line = old.out.split('\n').find((l) => l.startsWith(deliveryId));
    expect(line, old.out).to.match(/ pending for \d+s, 1 attempt\(s\), next attempt \d{4}-/);
    expect(line).to.include(`${developer.merchantId}/sandbox`).and.to.include('payment.created');
  });

  it('starts a new delivery of a delivery on the operator word, and refuses an unknown one', async () => {
    const run = await admin('ops', 'retry-delivery', deliveryId);
    expect(run.code, run.err).to.equal(0);
    const [, retried] = /^new delivery (dlv_\w+) of the event of /.exec(run.out) ?? [];
    expect(retried, run.out).to.match(/^dlv_/);
    const { db } = await getStack();
    expect(await db('webhook_deliveries').where({ id: retried }).first('retry_of')).to.deep.equal({
      retry_of: deliveryId,
    });
    const unknown = await admin('ops', 'retry-delivery', `dlv_${'0'.repeat(24)}`);
    expect(unknown.code).to.equal(1);
    expect(unknown.err).to.equal(`error: no delivery with id dlv_${'0'.repeat(24)}\n`);
  });

  it('lists a refund whose answer is unknown as pending, asks its provider again, and tells the story', async () => {
    const created = await call('/v1/payments', {
      key: developer.key,
      body: { amount: 2000, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000007' },
    });
    const payment = await waitForPayment(developer.key, created.body.data.id, (p) => p.status === 'completed');
    expect(payment.status).to.equal('completed');
    const refund = await call(`/v1/payments/${payment.id}/refund`, { key: developer.key, body: { amount: 700 } });
    expect(refund.body.data).to.include({ status: 'pending' });
    await sleep(1_100);
    const listed = await admin('ops', 'refunds', '--older-than', '1s', '--limit', '1000');
    expect(listed.code, listed.err).to.equal(0);
    const line = listed.out.split('\n').find((l) => l.startsWith(refund.body.data.id));
    expect(line, listed.out).to.match(/ pending for \d+s {2}700 RWF \(minor units\) {2}momo ref /);
    expect(line).to.include(`payment ${payment.id}`);
    expect((await admin('ops', 'refunds', '--older-than', '1h')).out).not.to.include(refund.body.data.id);

    const asked = await admin('ops', 'ask-provider', payment.id);
    expect(asked.code, asked.err).to.equal(0);
    expect(asked.out).to.equal(`asked the provider of ${payment.id} again; its workflow acts on the answer\n`);

    const story = await admin('ops', 'story', payment.id);
    expect(story.code, story.err).to.equal(0);
    expect(story.out).to.include(`payment ${payment.id}  completed  2000 RWF (minor units)  momo`);
    // The provider's receipt number (the sandbox's simulated one) is in the story's first line.
    expect(payment.provider_receipt_number).to.match(/^SBX[0-9A-F]{7}$/);
    expect(story.out).to.match(new RegExp(`momo ref \\S+ {2}receipt ${payment.provider_receipt_number}\n`));
    expect(story.out).to.include(`${refund.body.data.id}  pending  700 RWF`);
    expect(story.out).to.match(/ payment\.completed /);
    expect(story.out).to.match(/^workflow \S+ run \S+: RUNNING, \d+ history events, started /m);
    expect(story.out).to.match(/WorkflowExecutionStarted ×1/);
    const json = JSON.parse((await admin('ops', 'story', payment.id, '--json')).out);
    expect(json.payment.id).to.equal(payment.id);
    expect(json.refunds.map((r: { id: string }) => r.id)).to.deep.equal([refund.body.data.id]);
    expect(json.workflow.status).to.equal('RUNNING');
  });

  it('lists payouts waiting for their rail with age, rail and reason, and asks the rail again without sending twice', async () => {
    const merchant = await fundedMerchant(20_000);
    const pay = async (ending: string) => {
      const created = await call('/v1/payouts', {
        key: merchant.key,
        body: { amount: 1_000, currency: 'RWF', destination: await wallet(merchant.key, ending) },
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      return created.body.data as { id: string; status: string };
    };
    const [transit, down, refused] = await Promise.all(['0003', '0005', '0002'].map(pay));
    expect([transit?.status, down?.status, refused?.status]).to.deep.equal(['in_transit', 'pending', 'failed']);
    await sleep(1_100);
    const listed = await admin('ops', 'payouts', '--older-than', '1s', '--limit', '1000');
    expect(listed.code, listed.err).to.equal(0);
    const lineOf = (id: string) => listed.out.split('\n').find((l) => l.startsWith(id));
    expect(lineOf(transit!.id), listed.out).to.match(
      /^po_\w+ {2}in_transit for \d+s {2}1000 RWF \+ fee 10 \(minor units\) {2}rail momo mobile_money …0003 {2}reason: the rail has it; waiting for its final answer {2}ref \S+ {2}/,
    );
    expect(lineOf(down!.id)).to.match(
      / pending for \d+s .* rail momo mobile_money …0005 {2}reason: rail down: .+ ref none /,
    );
    expect(lineOf(transit!.id)).to.include(`${merchant.merchantId}/sandbox`);
    expect(lineOf(refused!.id), 'a failed payout waits for nothing').to.equal(undefined);
    expect((await admin('ops', 'payouts', '--older-than', '1h')).out).not.to.include(transit!.id);

    const { client, db } = await getStack();
    const events = async (id: string) => (await client.workflow.getHandle(`payout:${id}`).fetchHistory()).events ?? [];
    const history = async (id: string) => (await events(id)).map((e) => e.eventType);
    const { EventType } = temporal.api.enums.v1;
    // Ask once the workflow made its first status call and sleeps 4 s before the next: the ask ends that sleep.
    await eventually(async () => {
      const calls = (await events(transit!.id)).filter(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'askPayoutRail',
      );
      return calls.length >= 1 ? true : undefined;
    });
    for (const id of [transit!.id, down!.id]) {
      const asked = await admin('ops', 'ask-rail', id);
      expect(asked.code, asked.err).to.equal(0);
      expect(asked.out).to.equal(`asked the rail of ${id} again; its workflow acts on the answer\n`);
    }
    for (const id of [transit!.id, down!.id]) {
      const woken = await eventually(async () => {
        const events = await history(id);
        const signalled = events.indexOf(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED);
        const cancelled = events.indexOf(EventType.EVENT_TYPE_TIMER_CANCELED, signalled);
        const next = events.indexOf(EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, cancelled);
        return signalled >= 0 && cancelled > signalled && next > cancelled ? true : undefined;
      }, 10_000);
      expect(woken, `the ask ended the wait of ${id}`).to.equal(true);
    }
    // One transfer per payout at the rail, whatever was asked.
    const transfers = await db('sandbox_provider_payouts').whereIn('payout_id', [transit!.id, down!.id]);
    expect(transfers).to.have.length(2);

    const final = await admin('ops', 'ask-rail', refused!.id);
    expect(final.code).to.equal(1);
    expect(final.err).to.equal(
      `error: payout ${refused!.id} is failed and its workflow has finished; nothing is waiting for its rail\n`,
    );
    const unknown = await admin('ops', 'ask-rail', `po_${'0'.repeat(24)}`);
    expect(unknown.err).to.equal(`error: no payout with id po_${'0'.repeat(24)}\n`);
    const backlog = await new BacklogReader(db).read();
    expect(backlog.payouts.find((row) => row.environment === 'sandbox')?.count).to.be.at.least(1);
  });

  it('answers an unknown payment and a bad duration with one line and exit 1', async () => {
    const unknown = `pay_${'0'.repeat(24)}`;
    for (const command of ['story', 'ask-provider']) {
      const run = await admin('ops', command, unknown);
      expect(run.code, command).to.equal(1);
      expect(run.err).to.equal(`error: no payment with id ${unknown}\n`);
    }
    const bad = await admin('ops', 'deliveries', '--older-than', 'soon');
    expect(bad.code).to.equal(1);
    expect(bad.err).to.match(/a duration such as 90s, 15m, 2h or 1d/);
    expect(() => parseDuration('0s')).to.throw();
    expect(parseDuration('15m')).to.equal(900);
    expect(parseDuration('2d')).to.equal(172_800);
    expect(formatAge(3725)).to.equal('1h 2m');
  });

  it('counts the backlog by environment from PostgreSQL, reading it at most once per cache period', async () => {
    const { db, baseUrl } = await getStack();
    let clock = Date.now();
    const reader = new BacklogReader(db, () => clock);
    const first = await reader.read();
    const sandbox = first.deliveries.find((row) => row.environment === 'sandbox');
    expect(sandbox?.count).to.be.at.least(1);
    expect(sandbox?.oldestSeconds).to.be.at.least(1);
    expect(first.refunds.find((row) => row.environment === 'sandbox')?.count).to.be.at.least(1);
    // Within the cache period the same read serves; after it, a fresh one.
    expect(await reader.read()).to.equal(first);
    clock += BACKLOG_CACHE_MS;
    expect(await reader.read()).not.to.equal(first);

    // The API's own reader may serve a read of up to 15 s ago: wait for one that sees this backlog.
    const names = [
      'paycollect_webhook_deliveries_pending',
      'paycollect_webhook_delivery_oldest_pending_seconds',
      'paycollect_refunds_pending',
      'paycollect_refund_oldest_pending_seconds',
    ];
    const scraped = await eventually(async () => {
      const text = await (await fetch(`${baseUrl}/metrics`)).text();
      return names.every((name) => new RegExp(`^${name}\\{environment="sandbox"\\} [1-9]\\d*$`, 'm').test(text))
        ? text
        : undefined;
    }, BACKLOG_CACHE_MS + 5_000);
    // The payouts of the test before may have been paid since (their count is checked there): the gauges exist.
    for (const name of ['paycollect_payouts_pending', 'paycollect_payout_oldest_pending_seconds'])
      expect(scraped).to.match(new RegExp(`^# HELP ${name} `, 'm'));
    expect(scraped).to.match(/^# HELP paycollect_refunds_pending /m);
  });
});
