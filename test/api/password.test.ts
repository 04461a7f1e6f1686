/**
 * Changing a password over real HTTP (docs/security.md#password): the current one must match, the new one follows
 * registration's rule, every other session of the person ends (in every merchant), the change and a refused current
 * password are in the activity log without the password, and with two-factor on a recent code is needed.
 */
import { expect } from 'chai';
import { call, registerDeveloper } from '../helpers/http';
import { nextCode, personIdOf, sessionConfirmedAgo, signIn, turnOnTwoFactor } from '../helpers/security';

const NEW_PASSWORD = 'a brand new passphrase';

describe('password change (docs/security.md#password)', function () {
  this.timeout(120_000);

  it('changes the password, ends every earlier session and answers a working one; the old password no longer signs in', async () => {
    const developer = await registerDeveloper();
    const other = (await signIn(developer.email, developer.password)).body.data.token as string;
    expect((await call('/v1/developer/profile', { key: other })).status).to.equal(200);

    const changed = await call('/v1/developer/password', {
      key: developer.token,
      body: { current_password: developer.password, new_password: NEW_PASSWORD },
    });
    expect(changed.status, JSON.stringify(changed.body)).to.equal(200);
    const fresh = changed.body.data.token as string;
    expect(changed.body.data.expires_at).to.be.a('string');

    // The token that asked and the one of another browser are both refused from now on; the answered one works.
    for (const old of [developer.token, other]) {
      const refused = await call('/v1/developer/profile', { key: old });
      expect(refused.status).to.equal(401);
      expect(refused.body.error.code).to.equal('unauthorized');
    }
    expect((await call('/v1/developer/profile', { key: fresh })).status).to.equal(200);
    // API keys are no sessions: they go on.
    expect((await call('/v1/payments', { key: developer.key })).status).to.equal(200);

    expect((await signIn(developer.email, developer.password)).status).to.equal(401);
    expect((await signIn(developer.email, NEW_PASSWORD)).status).to.equal(200);

    const activity = await call('/v1/developer/activity?action=password.changed', { key: fresh });
    expect(activity.body.data.activity).to.have.length(1);
    expect(activity.body.data.activity[0]).to.deep.include({
      actor: { type: 'developer', id: await personIdOf(developer.email) },
      target: await personIdOf(developer.email),
    });
    expect(JSON.stringify(activity.body)).not.to.include(NEW_PASSWORD);
  });

  it('refuses a wrong current password with 400 naming it, logs the refusal and changes nothing', async () => {
    const developer = await registerDeveloper();
    const wrong = await call('/v1/developer/password', {
      key: developer.token,
      body: { current_password: 'not my password at all', new_password: NEW_PASSWORD },
    });
    expect(wrong.status).to.equal(400);
    expect(wrong.body.error.code).to.equal('validation_error');
    expect(wrong.body.error.details[0].field).to.equal('current_password');
    // The session goes on and the password is the old one.
    expect((await call('/v1/developer/profile', { key: developer.token })).status).to.equal(200);
    expect((await signIn(developer.email, developer.password)).status).to.equal(200);
    expect((await signIn(developer.email, NEW_PASSWORD)).status).to.equal(401);
    const activity = await call('/v1/developer/activity?action=password.change_refused', { key: developer.token });
    expect(activity.body.data.activity).to.have.length(1);
    expect(JSON.stringify(activity.body)).not.to.include('not my password at all');
  });

  it('refuses a new password as registration refuses it: too short, too long, unchanged, missing', async () => {
    const developer = await registerDeveloper();
    const short = 'nine char';
    const registration = await call('/v1/auth/register', {
      body: { email: `short-${Date.now()}@example.com`, password: short, name: 'Short' },
    });
    expect(registration.status).to.equal(400);
    for (const [body, field] of [
      [{ current_password: developer.password, new_password: short }, 'new_password'],
      [{ current_password: developer.password, new_password: 'x'.repeat(201) }, 'new_password'],
      [{ current_password: developer.password, new_password: developer.password }, 'new_password'],
      [{ current_password: developer.password }, 'new_password'],
      [{ new_password: NEW_PASSWORD }, 'current_password'],
    ] as const) {
      const refused = await call('/v1/developer/password', { key: developer.token, body });
      expect(refused.status, JSON.stringify(body)).to.equal(400);
      expect(refused.body.error.code).to.equal('validation_error');
      expect(refused.body.error.details[0].field, JSON.stringify(body)).to.equal(field);
    }
    expect((await call('/v1/developer/profile', { key: developer.token })).status).to.equal(200);
    expect((await signIn(developer.email, developer.password)).status).to.equal(200);
  });

  it('takes no API key', async () => {
    const developer = await registerDeveloper();
    const byKey = await call('/v1/developer/password', {
      key: developer.key,
      body: { current_password: developer.password, new_password: NEW_PASSWORD },
    });
    expect(byKey.status).to.equal(401);
    expect((await signIn(developer.email, developer.password)).status).to.equal(200);
  });

  it('with two-factor on, needs a code from the last 5 minutes (docs/security.md#step-up)', async () => {
    const developer = await turnOnTwoFactor(await registerDeveloper());
    const stale = await sessionConfirmedAgo(await personIdOf(developer.email), developer.merchantId, 301);
    const body = { current_password: developer.password, new_password: NEW_PASSWORD };
    const refused = await call('/v1/developer/password', { key: stale, body });
    expect(refused.status).to.equal(403);
    expect(refused.body.error.message).to.include('/v1/developer/2fa/verify');
    const verified = await call('/v1/developer/2fa/verify', {
      key: stale,
      body: { code: await nextCode(developer.secret) },
    });
    const changed = await call('/v1/developer/password', { key: verified.body.data.token, body });
    expect(changed.status, JSON.stringify(changed.body)).to.equal(200);
    expect((await call('/v1/developer/profile', { key: verified.body.data.token })).status).to.equal(401);
    // The answered session keeps the confirmation the same person just gave.
    const invite = { email: `after-${Date.now()}@example.com`, role: 'viewer' };
    const invited = await call('/v1/developer/team/invitations', { key: changed.body.data.token, body: invite });
    expect(invited.status).to.equal(201);
  });
});
