/**
 * What the dashboard says of operators' health (docs/availability.md#effects), in Chromium against the real stack at a
 * phone's width: a banner on every screen names an operator the merchant's environment sees `degraded` or `down`, in
 * plain words with the reason, and none while all are operational (the merchant's own sandbox status drives it,
 * docs/availability.md#sandbox-override; another merchant's dashboard shows nothing of it); the profile's toggle turns
 * `refuse_when_provider_down` on and off, saved at once. The screens do not scroll sideways; axe-core finds no fault.
 */
import { expect } from 'chai';
import { call, registerDeveloper, type TestDeveloper } from '../helpers/http';
import { checkScreen, closeBrowser, eventually, newPage, signIn } from './browser';

async function setMomo(dev: TestDeveloper, status: 'degraded' | 'down' | 'operational', reason: string) {
  const answer = await call('/v1/sandbox/providers/momo/status', {
    key: dev.key,
    body: { country: 'RW', operation: 'collection', status, reason },
  });
  expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
}

describe('operators’ health in the dashboard (docs/availability.md#effects)', function () {
  this.timeout(180_000);
  let owner: TestDeveloper;
  let stranger: TestDeveloper;
  before(async () => {
    [owner, stranger] = await Promise.all([registerDeveloper(), registerDeveloper()]);
  });
  after(closeBrowser);

  it('shows a banner naming a down or slow operator in plain words, and none once it is back', async () => {
    await setMomo(owner, 'down', 'drill of the payments team');
    const { page, context, pageErrors } = await newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await signIn(page, owner);
    await page.goto('/dashboard/sandbox/payments');
    const banner = page.getByTestId('operator-banner');
    await banner.waitFor();
    const text = await banner.textContent();
    expect(text).to.include('MTN MoMo in Rwanda (payments) is down');
    expect(text).to.include('Reason: drill of the payments team');
    await checkScreen(page, 'phone-operator-banner');

    await setMomo(owner, 'degraded', 'drill of the payments team');
    await page.reload();
    await banner.getByText('MTN MoMo in Rwanda (payments) is slow').waitFor();

    await setMomo(owner, 'operational', 'drill over');
    await page.reload();
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    // The shared sandbox may show another operator that other tests left degraded: this one is gone from the banner.
    const momoShown = async () =>
      (await banner.count()) === 0 ? 0 : await banner.getByText('MTN MoMo in Rwanda (payments)').count();
    expect(await eventually(momoShown, (count) => count === 0)).to.equal(0);

    // Another merchant's dashboard never shows this merchant's sandbox status.
    await setMomo(owner, 'down', 'drill of the payments team');
    const other = await newPage();
    await signIn(other.page, stranger);
    await other.page.goto('/dashboard/sandbox/payments');
    await other.page.getByRole('heading', { level: 1 }).first().waitFor();
    expect(await other.page.getByText('drill of the payments team').count()).to.equal(0);
    await setMomo(owner, 'operational', 'drill over');
    expect(pageErrors).to.deep.equal([]);
    await Promise.all([context.close(), other.context.close()]);
  });

  it('turns refuse_when_provider_down on and off from the profile', async () => {
    const { page, context, pageErrors } = await newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await signIn(page, owner);
    await page.goto('/dashboard/sandbox/profile');
    const toggle = page.getByLabel('Refuse API payments to an operator that is down', { exact: false });
    await toggle.waitFor();
    expect(await toggle.isChecked()).to.equal(false);
    await toggle.check();
    await page.getByText('Saved.').waitFor();
    const on = await call('/v1/developer/profile', { key: owner.key });
    expect(on.body.data.refuse_when_provider_down).to.equal(true);
    await checkScreen(page, 'phone-profile-outage-setting');
    await toggle.uncheck();
    const off = await eventually(
      () => call('/v1/developer/profile', { key: owner.key }),
      (read) => read.body.data.refuse_when_provider_down === false,
    );
    expect(off.body.data.refuse_when_provider_down).to.equal(false);
    expect(pageErrors).to.deep.equal([]);
    await context.close();
  });
});
