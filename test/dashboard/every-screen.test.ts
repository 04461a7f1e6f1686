/**
 * Every screen of the dashboard (README.md#dashboard) at a phone's width (390 px), a tablet's (820 px) and a
 * desktop's (1280 px), in Chromium against the real stack, with content on each (a completed and a fully
 * refunded payment, a webhook endpoint with deliveries, a payment link, live access): the page never scrolls sideways,
 * the sandbox/live switch stays in view, and axe-core finds no accessibility fault; the phone and the desktop again in
 * the dark colour scheme (docs/dashboard.md#theme). Screenshots go to var/screenshots/ as
 * `{phone|tablet|desktop|phone-dark|desktop-dark}-{screen}.png` (and docs/dashboard/ when asked).
 */
import { expect } from 'chai';
import { call, registerDeveloper, waitForPayment, type TestDeveloper } from '../helpers/http';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { getStack } from '../helpers/stack';
import { checkScreen, closeBrowser, eventually, newPage, signIn } from './browser';

const WIDTHS = { phone: 390, tablet: 820, desktop: 1280 } as const;

/** The page's background in the dark scheme (styles.css), which shows the dark theme is the one in use. */
const DARK_BACKGROUND = 'rgb(17, 20, 24)';

/** Every width in the light scheme, then a phone and a desktop in the dark one (docs/dashboard.md#theme). */
const RUNS: { device: string; width: number; scheme: 'light' | 'dark' }[] = [
  ...Object.entries(WIDTHS).map(([device, width]) => ({ device, width, scheme: 'light' as const })),
  { device: 'phone-dark', width: WIDTHS.phone, scheme: 'dark' },
  { device: 'desktop-dark', width: WIDTHS.desktop, scheme: 'dark' },
];

const PAYMENT = {
  amount: 1500,
  currency: 'RWF',
  payment_method: 'mobile_money',
  phone_number: '+250788000001',
  description: 'Basket order 17 for a customer with a rather long name',
};

/** What the walk needs: a developer with live access, a refunded and a completed payment, a webhook. */
interface Scene {
  developer: TestDeveloper;
  refundedId: string;
  webhookId: string;
}

async function completedPayment(key: string): Promise<string> {
  const created = await call('/v1/payments', { key, body: PAYMENT });
  expect(created.status, JSON.stringify(created.body)).to.equal(201);
  const payment = await waitForPayment(key, created.body.data.id, (p) => p.status === 'completed');
  expect(payment.status).to.equal('completed');
  return payment.id as string;
}

async function setScene(receiver: Receiver): Promise<Scene> {
  const developer = await registerDeveloper();
  const webhook = await call('/v1/developer/webhooks', {
    key: developer.key,
    body: { url: `${receiver.origin}/shop`, events: ['payment.completed', 'refund.completed'] },
  });
  expect(webhook.status, JSON.stringify(webhook.body)).to.equal(201);
  await completedPayment(developer.key);
  const link = await call('/v1/payment_links', {
    key: developer.key,
    body: {
      amount_range: { min: 500, max: 50_000 },
      currency: 'RWF',
      description: PAYMENT.description,
      completed_limit: 20,
    },
  });
  expect(link.status, JSON.stringify(link.body)).to.equal(201);
  const refundedId = await completedPayment(developer.key);
  const refund = await call(`/v1/payments/${refundedId}/refund`, { key: developer.key, body: {} });
  expect(refund.status, JSON.stringify(refund.body)).to.be.oneOf([200, 201, 202]);
  await waitForPayment(developer.key, refundedId, (p) => p.status === 'refunded');
  // Live access as an approval leaves it (docs/live-access.md#approval): the screens show the switch.
  const { db } = await getStack();
  await db('developers').where({ merchant_id: developer.merchantId }).update({ has_live_access: true });
  await eventually(
    () => call('/v1/developer/webhooks', { key: developer.key }),
    (listed) => listed.status === 200,
  );
  return { developer, refundedId, webhookId: webhook.body.data.id as string };
}

/** The screens, by name: their path below /dashboard and the heading that says they are there. */
function screens(scene: Scene): [string, string, RegExp][] {
  return [
    ['payments', '/sandbox/payments', /^Payments$/],
    ['payment-detail', `/sandbox/payments/${scene.refundedId}`, /^Payment /],
    ['webhooks', '/sandbox/webhooks', /^Webhooks$/],
    ['webhook-detail', `/sandbox/webhooks/${scene.webhookId}`, /^Webhook /],
    ['keys', '/sandbox/keys', /^API keys$/],
    ['go-live', '/sandbox/go-live', /^Go live$/],
    ['analytics', '/sandbox/analytics', /^Analytics$/],
    ['activity', '/sandbox/activity', /^Activity$/],
    ['profile', '/sandbox/profile', /^Profile$/],
    ['balance', '/sandbox/balance', /^Balance$/],
    ['payouts', '/sandbox/payouts', /^Payouts$/],
    ['payment-links', '/sandbox/payment-links', /^Payment links$/],
    ['security', '/sandbox/security', /^Security$/],
    ['team', '/sandbox/team', /^Team$/],
    ['restricted-keys', '/sandbox/restricted-keys', /^Restricted keys$/],
    ['checkout-sessions', '/sandbox/checkout-sessions', /^Checkout sessions$/],
    ['branding', '/sandbox/branding', /^Branding$/],
    ['payments-live', '/live/payments', /^Payments$/],
  ];
}

describe('every dashboard screen on a phone, a tablet and a desktop (README.md#dashboard)', function () {
  this.timeout(300_000);
  let receiver: Receiver;
  let scene: Scene;

  before(async () => {
    await getStack();
    receiver = await startReceiver();
    scene = await setScene(receiver);
  });
  after(async () => {
    await receiver.close();
    await closeBrowser();
  });

  for (const { device, width, scheme } of RUNS) {
    it(`fits ${width} px without sideways scrolling, keeps the environment switch in view and is axe-clean (${device})`, async () => {
      const { context, page, pageErrors } = await newPage();
      await page.setViewportSize({ width, height: 844 });
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto('/dashboard/sign-up');
      await page.getByRole('heading', { level: 1, name: 'Create your account' }).waitFor();
      await checkScreen(page, `${device}-sign-up`);
      await page.goto('/dashboard/sign-in');
      await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
      await checkScreen(page, `${device}-sign-in`);
      await signIn(page, scene.developer);
      for (const [name, path, heading] of screens(scene)) {
        await page.goto(`/dashboard${path}`);
        await page.getByRole('heading', { level: 1, name: heading }).waitFor();
        const environment = page.getByTestId('env-switch');
        await environment.waitFor();
        const box = await environment.boundingBox();
        expect(box, `${name}: the environment switch`).not.to.equal(null);
        expect(box!.x + box!.width, `${name}: the environment switch ends inside the window`).to.be.at.most(width);
        if (scheme === 'dark') {
          const background = await page.evaluate(
            () => (globalThis as any).getComputedStyle((globalThis as any).document.documentElement).backgroundColor,
          );
          expect(background, `${name}: the dark theme`).to.equal(DARK_BACKGROUND);
        }
        await checkScreen(page, `${device}-${name}`);
      }
      expect(pageErrors).to.deep.equal([]);
      await context.close();
    });
  }
});
