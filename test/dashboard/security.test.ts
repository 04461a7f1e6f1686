/**
 * Account security in the dashboard, in a real browser against the real stack (docs/security.md): two-factor
 * enrolment with the QR code and a code the test computes from the secret, the code step at sign-in, an invitation
 * accepted by a new person, a viewer's screens without write buttons, a restricted key shown once, and the password
 * change that ends every other session.
 */
import { expect } from 'chai';
import { call, registerDeveloper } from '../helpers/http';
import { invitationToken, nextCode, signIn as signInByApi, turnOnTwoFactor } from '../helpers/security';
import { closeBrowser, newPage, screenshot, signIn } from './browser';

describe('account security in the dashboard (docs/security.md)', function () {
  this.timeout(180_000);

  after(closeBrowser);

  it('turns two-factor on with the QR code and a first code, shows ten recovery codes, then asks for a code at sign-in', async () => {
    const developer = await registerDeveloper();
    const { page, context, pageErrors } = await newPage();
    await signIn(page, developer);
    await page.getByRole('link', { name: 'Security' }).click();
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    await page.getByAltText('QR code to scan with your authenticator app').waitFor();
    const secret = ((await page.getByTestId('totp-secret').textContent()) ?? '').trim();
    expect(secret).to.match(/^[A-Z2-7]{32}$/);
    await screenshot(page, 'security-enrol');
    await page.getByLabel('Code from your authenticator app').fill('000000');
    await page.getByRole('button', { name: 'Turn on' }).click();
    expect(await page.getByTestId('api-error').first().textContent()).to.include('code');
    await page.getByLabel('Code from your authenticator app').fill(await nextCode(secret));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByTestId('recovery-codes').waitFor();
    expect(await page.getByTestId('recovery-codes').locator('li').count()).to.equal(10);
    await screenshot(page, 'security-recovery-codes');
    // The session the confirmation answered goes on working.
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await page.getByTestId('two-factor-on').waitFor();
    await context.close();

    const second = await newPage();
    await second.page.goto('/dashboard/sign-in');
    await second.page.getByLabel('E-mail').fill(developer.email);
    await second.page.getByLabel('Password').fill(developer.password);
    await second.page.getByRole('button', { name: 'Sign in' }).click();
    await second.page.getByTestId('two-factor-step').waitFor();
    await screenshot(second.page, 'sign-in-code');
    expect(await second.page.getByLabel('Password').isVisible()).to.equal(false);
    await second.page.getByLabel('Code from your authenticator app').fill(await nextCode(secret));
    await second.page.getByRole('button', { name: 'Verify code' }).click();
    await second.page.getByRole('heading', { level: 1, name: 'Payments' }).waitFor();
    expect([...pageErrors, ...second.pageErrors]).to.deep.equal([]);
    await second.context.close();
  });

  it('invites a viewer who accepts by creating an account and sees the team and keys without write buttons', async () => {
    const owner = await registerDeveloper();
    const { page, context, pageErrors } = await newPage();
    await signIn(page, owner);
    await page.getByRole('link', { name: 'Team' }).click();
    const email = `viewer-${Date.now()}@example.com`;
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Role', { exact: true }).selectOption('viewer');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByTestId('invitations').getByText(email).waitFor();
    await screenshot(page, 'team-invited');
    const invitations = await call('/v1/developer/team/invitations', { key: owner.token });
    const token = await invitationToken(invitations.body.data.invitations[0].id);
    await context.close();

    const guest = await newPage();
    await guest.page.goto(`/dashboard/invitations/${token}`);
    await guest.page.getByLabel('Your name').fill('Vera Viewer');
    await guest.page.getByLabel('Password (at least 10 characters)').fill('viewer password 1');
    await guest.page.getByRole('button', { name: 'Accept the invitation' }).click();
    await guest.page.getByTestId('my-role').getByText('viewer').waitFor();
    expect(await guest.page.getByTestId('member-row').count()).to.equal(2);
    expect(await guest.page.getByRole('button', { name: 'Remove' }).count()).to.equal(0);
    expect(await guest.page.getByTestId('invite-form').count()).to.equal(0);
    await screenshot(guest.page, 'team-viewer');
    await guest.page.getByRole('link', { name: 'Restricted keys' }).click();
    await guest.page.getByTestId('restricted-keys-table').waitFor();
    expect(await guest.page.getByTestId('restricted-key-form').count()).to.equal(0);
    await guest.page.getByRole('link', { name: 'API keys' }).click();
    await guest.page.getByTestId('keys-table').waitFor();
    await guest.page.waitForLoadState('networkidle');
    expect(await guest.page.getByRole('button', { name: 'Roll keys…' }).isVisible()).to.equal(false);
    await guest.page.getByRole('link', { name: 'Webhooks' }).click();
    await guest.page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await guest.page.waitForLoadState('networkidle');
    expect(await guest.page.getByRole('button', { name: 'Add endpoint' }).isVisible()).to.equal(false);
    // The link worked once: a second visit is refused with the API's message.
    await guest.page.goto(`/dashboard/invitations/${token}`);
    await guest.page.getByRole('button', { name: 'Accept the invitation' }).click();
    expect(await guest.page.getByTestId('api-error').first().textContent()).to.include('already used');
    expect([...pageErrors, ...guest.pageErrors]).to.deep.equal([]);
    await guest.context.close();
  });

  it('creates a restricted key with chosen scopes and shows its secret once', async () => {
    const developer = await registerDeveloper();
    const { page, context, pageErrors } = await newPage();
    await signIn(page, developer);
    await page.getByRole('link', { name: 'Restricted keys' }).click();
    await page.getByLabel('Name').fill('Checkout server');
    await page.getByLabel('payments:read').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = await page.getByTestId('secret-once').locator('input').inputValue();
    expect(secret).to.match(/^rk_sandbox_[0-9A-Za-z]{32}$/);
    await page.getByTestId('restricted-keys-table').getByText('Checkout server').waitFor();
    await screenshot(page, 'restricted-keys');
    const refused = await call('/v1/payments', { key: secret, body: {} });
    expect(refused.status).to.equal(403);
    expect(refused.body.error.message).to.include('payments:write');
    expect(pageErrors).to.deep.equal([]);
    await context.close();
  });

  it('changes the password on the security screen: a wrong current one is refused, then every other session ends', async () => {
    const developer = await turnOnTwoFactor(await registerDeveloper());
    const elsewhere = await call('/v1/auth/login/2fa', {
      body: {
        challenge: (await signInByApi(developer.email, developer.password)).body.data.challenge,
        code: await nextCode(developer.secret),
      },
    });
    expect(elsewhere.status, JSON.stringify(elsewhere.body)).to.equal(200);
    const { page, context, pageErrors } = await newPage();
    await page.goto('/dashboard/sign-in');
    await page.getByLabel('E-mail').fill(developer.email);
    await page.getByLabel('Password').fill(developer.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Code from your authenticator app').fill(await nextCode(developer.secret));
    await page.getByRole('button', { name: 'Verify code' }).click();
    await page.getByRole('heading', { level: 1, name: 'Payments' }).waitFor();
    await page.getByRole('link', { name: 'Security' }).click();
    const form = page.getByTestId('password-form');
    await page.getByTestId('two-factor-on').waitFor();

    await form.getByLabel('Current password').fill('not the password at all');
    await form.getByLabel('New password (at least 10 characters)').fill('a new password for the shop');
    await form
      .getByLabel('Code from your authenticator app, to confirm the change')
      .fill(await nextCode(developer.secret));
    await form.getByRole('button', { name: 'Change password' }).click();
    expect(await form.getByTestId('api-error').first().textContent()).to.include('current_password');

    await form.getByLabel('Current password').fill(developer.password);
    await form
      .getByLabel('Code from your authenticator app, to confirm the change')
      .fill(await nextCode(developer.secret));
    await form.getByRole('button', { name: 'Change password' }).click();
    await form.getByText('Password changed.').waitFor();
    await screenshot(page, 'security-password-changed');
    // The other session ended; this one goes on with the answered token, and the new password signs in.
    expect((await call('/v1/developer/profile', { key: elsewhere.body.data.token })).status).to.equal(401);
    await page.getByRole('link', { name: 'Activity' }).click();
    await page.getByTestId('activity-table').getByText('password.changed').waitFor();
    expect((await signInByApi(developer.email, developer.password)).status).to.equal(401);
    expect((await signInByApi(developer.email, 'a new password for the shop')).status).to.equal(200);
    expect(pageErrors).to.deep.equal([]);
    await context.close();
  });
});
