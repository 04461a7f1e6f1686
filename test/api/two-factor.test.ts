/**
 * Two-factor sign-in over real HTTP (docs/security.md#two-factor, docs/security.md#step-up): enrolment with a code
 * computed from the secret as an app would, sign-in with a challenge, codes good once, recovery codes, wrong codes
 * limited per person and per address and logged, and sensitive changes needing a code from the last 5 minutes.
 */
import { expect } from 'chai';
import { decodeJwt, SignJWT } from 'jose';
import { checkSecondFactor, WRONG_CODES_PER_IP } from '../../src/services/two-factor-service';
import { totpCodeAt } from '../../src/lib/totp';
import { call, registerDeveloper } from '../helpers/http';
import { nextCode, personIdOf, sessionConfirmedAgo, signIn, turnOnTwoFactor } from '../helpers/security';
import { getStack } from '../helpers/stack';

/** A 6-digit code that is none of the secret's codes within a step of now. */
function wrongCode(secret: string): string {
  const near = new Set([-30_000, 0, 30_000].map((offset) => totpCodeAt(secret, Date.now() + offset)));
  for (let n = 0; ; n++) {
    const candidate = String(n).padStart(6, '0');
    if (!near.has(candidate)) return candidate;
  }
}

describe('two-factor sign-in (docs/security.md#two-factor)', function () {
  this.timeout(120_000);

  it('enrols with a secret and an otpauth URI (SHA-1, 6 digits, 30 s), refuses a wrong first code and confirms the right one', async () => {
    const developer = await registerDeveloper();
    const enrolled = await call('/v1/developer/2fa/enroll', { key: developer.token, body: {} });
    expect(enrolled.status).to.equal(201);
    const { secret, otpauth_uri: uri } = enrolled.body.data;
    expect(secret).to.match(/^[A-Z2-7]{32}$/);
    const parsed = new URL(uri);
    expect(parsed.protocol).to.equal('otpauth:');
    expect(decodeURIComponent(parsed.pathname)).to.include(developer.email);
    expect(Object.fromEntries(parsed.searchParams)).to.include({
      secret,
      algorithm: 'SHA1',
      digits: '6',
      period: '30',
      issuer: 'PayCollect',
    });

    // A wrong code within a session is bad input (400), not a bad credential: the session goes on.
    const wrong = await call('/v1/developer/2fa/confirm', { key: developer.token, body: { code: wrongCode(secret) } });
    expect(wrong.status).to.equal(400);
    expect(wrong.body.error).to.include({ code: 'validation_error' });
    expect(wrong.body.error.details[0].field).to.equal('code');
    const malformed = await call('/v1/developer/2fa/confirm', { key: developer.token, body: { code: '12a456' } });
    expect(malformed.status).to.equal(400);
    const status = await call('/v1/developer/2fa', { key: developer.token });
    expect(status.body.data).to.deep.equal({ enabled: false, recovery_codes_left: 0 });

    const confirmed = await call('/v1/developer/2fa/confirm', {
      key: developer.token,
      body: { code: await nextCode(secret) },
    });
    expect(confirmed.status).to.equal(200);
    const codes: string[] = confirmed.body.data.recovery_codes;
    expect(codes).to.have.length(10);
    expect(new Set(codes).size).to.equal(10);
    codes.forEach((code) => expect(code).to.match(/^[a-z2-9]{5}-[a-z2-9]{5}$/));
    // The session that enrolled ended with the change; the answered one works and counts as confirmed now.
    expect((await call('/v1/developer/profile', { key: developer.token })).status).to.equal(401);
    const fresh = confirmed.body.data.token;
    expect(Number(decodeJwt(fresh).tfa)).to.be.closeTo(Date.now() / 1000, 5);
    expect((await call('/v1/developer/2fa', { key: fresh })).body.data).to.deep.equal({
      enabled: true,
      recovery_codes_left: 10,
    });
    const again = await call('/v1/developer/2fa/enroll', { key: fresh, body: {} });
    expect(again.status).to.equal(409);
    // The audit log has the change, with no secret or code in it.
    const activity = await call('/v1/developer/activity', { key: fresh });
    const entry = activity.body.data.activity.find((e: any) => e.action === 'two_factor.enabled');
    expect(entry).to.include({ target: await personIdOf(developer.email) });
    expect(JSON.stringify(activity.body)).not.to.include(secret);
  });

  it('asks for a code at sign-in; a code and a recovery code each work once; a challenge is no session', async () => {
    const developer = await turnOnTwoFactor(await registerDeveloper());
    const first = await signIn(developer.email, developer.password);
    expect(first.status).to.equal(200);
    expect(first.body.data.two_factor_required).to.equal(true);
    expect(first.body.data).not.to.have.property('token');
    const { challenge } = first.body.data;
    expect((await call('/v1/developer/profile', { key: challenge })).status).to.equal(401);

    const code = await nextCode(developer.secret);
    const ok = await call('/v1/auth/login/2fa', { body: { challenge, code } });
    expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
    expect((await call('/v1/developer/profile', { key: ok.body.data.token })).status).to.equal(200);
    // The same code again, even with a new challenge, within its window: refused.
    const second = (await signIn(developer.email, developer.password)).body.data.challenge;
    const replayed = await call('/v1/auth/login/2fa', { body: { challenge: second, code } });
    expect(replayed.status).to.equal(401);
    expect(replayed.body.error.message).to.include('already used');

    const recovery = developer.recoveryCodes[0] as string;
    const byRecovery = await call('/v1/auth/login/2fa', {
      body: { challenge: second, recovery_code: recovery.toUpperCase() },
    });
    expect(byRecovery.status).to.equal(200);
    const reused = await call('/v1/auth/login/2fa', { body: { challenge: second, recovery_code: recovery } });
    expect(reused.status).to.equal(401);
    expect(
      (await call('/v1/developer/2fa', { key: byRecovery.body.data.token })).body.data.recovery_codes_left,
    ).to.equal(9);

    for (const body of [
      { challenge: second },
      { challenge: second, code: '123456', recovery_code: 'abcde-fghij' },
      { challenge: second, code: '1234567' },
      { code: '123456' },
    ]) {
      const bad = await call('/v1/auth/login/2fa', { body });
      expect(bad.status, JSON.stringify(body)).to.equal(400);
    }
  });

  it('refuses an expired or forged challenge and a session token given as a challenge', async () => {
    const developer = await turnOnTwoFactor(await registerDeveloper());
    const { config } = await getStack();
    const personId = await personIdOf(developer.email);
    const expired = await new SignJWT({ use: 'login_challenge', mer: developer.merchantId })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(personId)
      .setIssuer('paycollect')
      .setIssuedAt(Math.floor(Date.now() / 1000) - 600)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 300)
      .sign(new TextEncoder().encode(config.JWT_SECRET));
    for (const challenge of [expired, developer.token, `${expired}x`]) {
      const answer = await call('/v1/auth/login/2fa', { body: { challenge, code: await nextCode(developer.secret) } });
      expect(answer.status).to.equal(401);
      expect(answer.body.error.message).to.include('challenge');
    }
  });

  it('locks a person out after 5 wrong codes (even the right one then), and logs each refusal', async () => {
    const developer = await turnOnTwoFactor(await registerDeveloper());
    const { challenge } = (await signIn(developer.email, developer.password)).body.data;
    for (let i = 0; i < 5; i++) {
      const wrong = await call('/v1/auth/login/2fa', { body: { challenge, code: wrongCode(developer.secret) } });
      expect(wrong.status).to.equal(401);
    }
    const locked = await call('/v1/auth/login/2fa', { body: { challenge, code: await nextCode(developer.secret) } });
    expect(locked.status).to.equal(429);
    expect(locked.body.error.code).to.equal('rate_limited');
    const { db } = await getStack();
    const refusals = await db('activity_log')
      .where({ merchant_id: developer.merchantId, environment: 'sandbox', action: 'two_factor.code_refused' })
      .select('ip', 'request_id', 'user_agent');
    expect(refusals).to.have.length(5);
    refusals.forEach((row) => expect(row.ip).to.be.a('string') && expect(row.request_id).to.be.a('string'));
  });

  it('locks an address out after 20 wrong codes over several people', async () => {
    const { db, config } = await getStack();
    const deps = { db, config };
    const ip = `198.51.100.${Math.floor(Math.random() * 250) + 1}-${Date.now()}`;
    const people = [];
    for (let i = 0; i < 5; i++) people.push(await turnOnTwoFactor(await registerDeveloper()));
    let refused = 0;
    for (const person of people.slice(0, 4)) {
      const who = { personId: await personIdOf(person.email), merchantId: person.merchantId };
      for (let i = 0; i < WRONG_CODES_PER_IP / 4; i++) {
        try {
          await checkSecondFactor(deps, who, { code: wrongCode(person.secret) }, { ip });
        } catch (error: any) {
          expect(error.code).to.equal('unauthorized');
          refused++;
        }
      }
    }
    expect(refused).to.equal(WRONG_CODES_PER_IP);
    const last = people[4] as (typeof people)[number];
    const who = { personId: await personIdOf(last.email), merchantId: last.merchantId };
    const attempt = checkSecondFactor(deps, who, { code: await nextCode(last.secret) }, { ip });
    await attempt.then(
      () => expect.fail('a locked address was let through'),
      (error) => expect(error.code).to.equal('rate_limited'),
    );
    // Another address is not locked.
    await checkSecondFactor(deps, who, { code: await nextCode(last.secret) }, { ip: `${ip}-other` });
  });
});

describe('step-up: sensitive changes need a code from the last 5 minutes (docs/security.md#step-up)', function () {
  this.timeout(120_000);

  it('refuses turning two-factor off and inviting with an older confirmation, and allows both after /2fa/verify', async () => {
    const developer = await turnOnTwoFactor(await registerDeveloper());
    const personId = await personIdOf(developer.email);
    const stale = await sessionConfirmedAgo(personId, developer.merchantId, 301);
    const invite = { email: `late-${Date.now()}@example.com`, role: 'viewer' };
    for (const [path, method, body] of [
      ['/v1/developer/2fa', 'DELETE', {}],
      ['/v1/developer/team/invitations', 'POST', invite],
    ] as const) {
      const refused = await call(path, { key: stale, method, body });
      expect(refused.status, path).to.equal(403);
      expect(refused.body.error.code).to.equal('forbidden');
      expect(refused.body.error.message).to.include('/v1/developer/2fa/verify');
    }
    const wrong = await call('/v1/developer/2fa/verify', { key: stale, body: { code: wrongCode(developer.secret) } });
    expect(wrong.status).to.equal(400);
    expect((await call('/v1/developer/2fa', { key: stale })).status).to.equal(200);
    const verified = await call('/v1/developer/2fa/verify', {
      key: stale,
      body: { code: await nextCode(developer.secret) },
    });
    expect(verified.status).to.equal(200);
    const fresh = verified.body.data.token;
    expect((await call('/v1/developer/team/invitations', { key: fresh, body: invite })).status).to.equal(201);
    const off = await call('/v1/developer/2fa', { key: fresh, method: 'DELETE', body: {} });
    expect(off.status).to.equal(200);
    // Off: the old sessions ended, sign-in answers a session at once, and there is nothing to verify.
    expect((await call('/v1/developer/profile', { key: fresh })).status).to.equal(401);
    const plain = await signIn(developer.email, developer.password);
    expect(plain.body.data.token).to.be.a('string');
    const nothing = await call('/v1/developer/2fa/verify', { key: plain.body.data.token, body: { code: '123456' } });
    expect(nothing.status).to.equal(409);
  });

  it('refuses a live key roll with an older confirmation (the check every live change shares)', async () => {
    const developer = await turnOnTwoFactor(await registerDeveloper());
    const stale = await sessionConfirmedAgo(await personIdOf(developer.email), developer.merchantId, 600);
    const live = await call('/v1/developer/keys/live/roll', { key: stale, body: { expires_in_hours: 0 } });
    expect(live.status).to.equal(403);
    expect(live.body.error.code).to.equal('forbidden');
    // A sandbox roll is not sensitive.
    const sandbox = await call('/v1/developer/keys/sandbox/roll', { key: stale, body: { expires_in_hours: 24 } });
    expect(sandbox.status).to.equal(201);
  });
});
