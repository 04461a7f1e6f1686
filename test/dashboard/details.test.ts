/**
 * What a merchant reads on the dashboard's detail screens (README.md#dashboard), in Chromium against the real
 * stack: a fully refunded payment offers no refund form; refund and cancel are offered only where the payment says the
 * API would take them (an Airtel payment's refund without an amount: whole only), the reason shown otherwise; the
 * activity log links its targets and actors to their
 * screens; a webhook delivery shows the headers and the body it sent; methods and providers go by their
 * operators' names (from the providers' descriptors), never by the API's codes; payments page by cursor.
 */
import { expect } from 'chai';
import { call, registerDeveloper, waitForPayment, type TestDeveloper } from '../helpers/http';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { getStack } from '../helpers/stack';
import { closeBrowser, eventually, newPage, signIn } from './browser';

const PAYMENT = {
  amount: 1500,
  currency: 'RWF',
  payment_method: 'mobile_money',
  phone_number: '+250788000001',
  description: 'Basket order 17',
};

describe('dashboard details (README.md#dashboard)', function () {
  this.timeout(180_000);
  let receiver: Receiver;
  let developer: TestDeveloper;
  let paymentId: string;
  let webhookId: string;

  before(async () => {
    await getStack();
    receiver = await startReceiver();
    developer = await registerDeveloper();
    const webhook = await call('/v1/developer/webhooks', {
      key: developer.key,
      body: { url: `${receiver.origin}/shop`, events: ['payment.completed'] },
    });
    expect(webhook.status, JSON.stringify(webhook.body)).to.equal(201);
    webhookId = webhook.body.data.id;
    const created = await call('/v1/payments', { key: developer.key, body: PAYMENT });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    paymentId = created.body.data.id;
    await waitForPayment(developer.key, paymentId, (p) => p.status === 'completed');
    const refund = await call(`/v1/payments/${paymentId}/refund`, { key: developer.key, body: {} });
    expect(refund.status, JSON.stringify(refund.body)).to.be.oneOf([200, 201, 202]);
    await waitForPayment(developer.key, paymentId, (p) => p.status === 'refunded');
  });
  after(async () => {
    await receiver.close();
    await closeBrowser();
  });

  it('offers no refund form on a fully refunded payment, says so, and names the method and its operator', async () => {
    const { context, page, pageErrors } = await newPage();
    await signIn(page, developer);
    await page.goto(`/dashboard/sandbox/payments/${paymentId}`);
    await page.getByRole('heading', { level: 1, name: `Payment ${paymentId}` }).waitFor();
    await page.getByTestId('nothing-refundable').getByText('Fully refunded: 1,500 RWF').waitFor();
    expect(await page.getByRole('heading', { name: 'Refund' }).count()).to.equal(0);
    expect(await page.getByLabel(/^Amount in RWF/).count()).to.equal(0);
    expect(await page.getByTestId('payment-method').textContent()).to.equal('Mobile money via MTN MoMo');
    expect(await page.getByTestId('pending-reason').textContent()).to.equal('nothing: the payment is final');

    await page.goto('/dashboard/sandbox/payments');
    const row = page.getByTestId('payments-table').locator('tr', { hasText: paymentId });
    await row.waitFor();
    expect(await row.textContent()).to.include('Mobile money');
    const methods = await page.getByLabel('Method').locator('option').allTextContents();
    expect(methods).to.include.members(['MTN MoMo', 'Airtel Money', 'Card (Stripe)', 'Card', 'Mobile money']);
    expect(methods.join(' ')).not.to.match(/momo|mobile_money_b|card_gateway/);
    expect(pageErrors).to.deep.equal([]);
    await context.close();
  });

  it('offers refund and cancel only where the payment says the API would take them, and says why not otherwise', async () => {
    // A merchant of its own: its payments send no webhook to the other tests' endpoint.
    const merchant = await registerDeveloper();
    const create = async (body: object) => {
      const created = await call('/v1/payments', { key: merchant.key, body });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      return created.body.data.id as string;
    };
    // A prompt nobody answers (MTN MoMo: it cannot be withdrawn), a card awaiting its confirmation, and a completed
    // Airtel Money payment (whole refunds only).
    const waiting = await create({ ...PAYMENT, phone_number: '+250788000003' });
    const card = await create({ amount: 2500, currency: 'USD', payment_method: 'card', description: 'Hoodie' });
    const airtel = await create({ ...PAYMENT, phone_number: '+250728000001' });
    // A completed Orange Money payment: Orange's Web Payment API refunds nothing, in sandbox as in live.
    const orange = await create({
      amount: 1500,
      currency: 'XOF',
      payment_method: 'mobile_money',
      phone_number: '+221771000001',
    });
    await waitForPayment(merchant.key, airtel, (p) => p.status === 'completed');
    await waitForPayment(merchant.key, orange, (p) => p.status === 'completed');
    const { context, page, pageErrors } = await newPage();
    await signIn(page, merchant);

    await page.goto(`/dashboard/sandbox/payments/${waiting}`);
    await page.getByRole('heading', { level: 1, name: `Payment ${waiting}` }).waitFor();
    // Why it waits and until when, in plain words (docs/payments.md#decision-time).
    const shown = (await call(`/v1/payments/${waiting}`, { key: merchant.key })).body.data;
    const reason = page.getByTestId('payment-facts').getByTestId('pending-reason');
    expect(await reason.textContent()).to.match(/^Waiting for the customer to approve or pay; decided by .+ UTC$/);
    expect(await reason.locator('time').getAttribute('datetime')).to.equal(shown.decision_expected_by);
    await page.goto('/dashboard/sandbox/payments');
    const listed = page.getByTestId('payments-table').locator('tr', { hasText: waiting });
    expect(await listed.getByTestId('pending-reason').textContent()).to.include('Waiting for the customer');
    await page.goto(`/dashboard/sandbox/payments/${waiting}`);
    await page.getByRole('heading', { level: 1, name: `Payment ${waiting}` }).waitFor();
    expect(await page.getByTestId('cancel-unavailable').textContent()).to.equal(
      'No cancel: momo cannot withdraw a request the customer has not answered: it lapses at expires_at.',
    );
    expect(await page.getByTestId('refund-unavailable').textContent()).to.equal(
      'No refund: a pending payment cannot be refunded; only completed payments can.',
    );
    expect(await page.getByRole('button', { name: 'Cancel payment…' }).count()).to.equal(0);
    expect(await page.getByRole('button', { name: 'Refund…' }).count()).to.equal(0);

    await page.goto(`/dashboard/sandbox/payments/${orange}`);
    await page.getByRole('heading', { level: 1, name: `Payment ${orange}` }).waitFor();
    expect(await page.getByTestId('refund-unavailable').textContent()).to.equal(
      'No refund: orange payments cannot be refunded through the API.',
    );
    expect(await page.getByRole('button', { name: 'Refund…' }).count()).to.equal(0);

    await page.goto(`/dashboard/sandbox/payments/${card}`);
    await page.getByRole('button', { name: 'Cancel payment…' }).waitFor();
    expect(await page.getByTestId('cancel-unavailable').count()).to.equal(0);

    await page.goto(`/dashboard/sandbox/payments/${airtel}`);
    await page.getByRole('heading', { name: 'Refund' }).waitFor();
    expect(await page.getByLabel(/^Amount in RWF/).count(), 'no amount: whole refunds only').to.equal(0);
    expect(await page.getByTestId('refund-whole-only').textContent()).to.equal(
      'Airtel Money refunds whole payments only: the refund is the whole 1,500 RWF.',
    );
    await page.getByRole('button', { name: 'Refund…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Refund this payment?' });
    expect(await dialog.textContent()).to.include('Refund the whole refundable rest (1,500 RWF)');
    await dialog.getByRole('button', { name: 'Refund' }).click();
    await page.getByTestId('nothing-refundable').getByText('Fully refunded: 1,500 RWF').waitFor();
    expect((await call(`/v1/payments/${airtel}`, { key: merchant.key })).body.data.amount_refunded).to.equal(1500);
    expect(pageErrors).to.deep.equal([]);
    await context.close();
    await call(`/v1/payments/${card}/cancel`, { key: merchant.key, method: 'POST' });
  });

  it('links the targets and actors of the activity log to their screens', async () => {
    const { context, page, pageErrors } = await newPage();
    await signIn(page, developer);
    await page.goto('/dashboard/sandbox/activity');
    const table = page.getByTestId('activity-table');
    const target = table.getByRole('link', { name: paymentId }).first();
    await target.waitFor();
    const actor = table.getByRole('link', { name: /^API key key_/ }).first();
    expect(await actor.getAttribute('href')).to.equal('/dashboard/sandbox/keys');
    const webhook = table.getByRole('link', { name: webhookId }).first();
    expect(await webhook.getAttribute('href')).to.equal(`/dashboard/sandbox/webhooks/${webhookId}`);
    await target.click();
    await page.getByRole('heading', { level: 1, name: `Payment ${paymentId}` }).waitFor();
    expect(pageErrors).to.deep.equal([]);
    await context.close();
  });

  it('shows the headers and the body a webhook delivery sent', async () => {
    const { context, page, pageErrors } = await newPage();
    await signIn(page, developer);
    await page.goto(`/dashboard/sandbox/webhooks/${webhookId}`);
    const delivery = page.getByTestId('delivery').filter({ hasText: 'payment.completed' }).first();
    await eventually(
      () => delivery.textContent(),
      (text) => Boolean(text?.includes('succeeded')),
    );
    await delivery.getByText('Payload and headers').click();
    const body = delivery.getByTestId('delivery-body');
    await body.waitFor();
    const sent = JSON.parse((await body.textContent()) ?? '{}');
    const received = receiver.requests.find((request) => JSON.parse(request.body).data?.id === paymentId);
    expect(received, 'the receiver got the delivery').not.to.equal(undefined);
    expect(sent).to.deep.equal(JSON.parse(received!.body));
    const headers = (await delivery.getByTestId('delivery-payload').textContent()) ?? '';
    expect(headers).to.include(`webhook-id${sent.id}`);
    expect(pageErrors).to.deep.equal([]);
    await context.close();
  });

  it('pages payments by cursor: the next page starts after the last row, new payments shift nothing, previous goes back', async () => {
    const owner = await registerDeveloper();
    const pending = { ...PAYMENT, phone_number: '+250788000003' };
    const ids: string[] = [];
    for (let i = 0; i < 22; i += 1)
      ids.push((await call('/v1/payments', { key: owner.key, body: pending })).body.data.id);
    const { context, page, pageErrors } = await newPage();
    await signIn(page, owner);
    const rows = page.getByTestId('payments-table').locator('tbody tr');
    const firstIds = async () => (await rows.locator('a').allTextContents()).map((text) => text.trim());
    await page.getByText('Page 1 · 22 in all').waitFor();
    const first = await firstIds();
    expect(first).to.deep.equal([...ids].reverse().slice(0, 20));
    await call('/v1/payments', { key: owner.key, body: pending });
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText('Page 2 · 23 in all').waitFor();
    expect(new URL(page.url()).searchParams.get('after')).to.equal(first[19]);
    expect(await firstIds()).to.deep.equal([ids[1], ids[0]]);
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).to.equal(true);
    await page.getByRole('button', { name: 'Previous page' }).click();
    await page.getByText(/^Page 1 · /).waitFor();
    expect(new URL(page.url()).searchParams.get('after')).to.equal(null);
    expect(pageErrors).to.deep.equal([]);
    await context.close();
  });
});
