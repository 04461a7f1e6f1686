/**
 * Account security in tests (docs/security.md): codes an authenticator app would show, computed from the secret,
 * never one twice; two-factor turned on over HTTP; sessions with an old confirmation; team members of each role.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Role } from '../../src/domain/access';
import { signSessionToken } from '../../src/lib/session-tokens';
import { TOTP_PERIOD_SECONDS, totpCodeAt } from '../../src/lib/totp';
import { call, registerDeveloper, type TestDeveloper } from './http';
import { mailsAbout } from './live-access-fixtures';
import { getStack } from './stack';

const PERIOD_MS = TOTP_PERIOD_SECONDS * 1000;
const lastStep = new Map<string, number>();

/**
 * A code of `secret` the service has not taken yet: the previous, current or next step (the service accepts one
 * step either side), or the current one after waiting for the next step. Never within a second of a step's end.
 */
export async function nextCode(secret: string): Promise<string> {
  for (;;) {
    if (Date.now() % PERIOD_MS > PERIOD_MS - 1500) await new Promise((r) => setTimeout(r, 1600));
    const current = Math.floor(Date.now() / PERIOD_MS);
    const used = lastStep.get(secret) ?? -Infinity;
    const step = [current - 1, current, current + 1].find((candidate) => candidate > used);
    if (step !== undefined) {
      lastStep.set(secret, step);
      return totpCodeAt(secret, step * PERIOD_MS + 1000);
    }
    await new Promise((r) => setTimeout(r, PERIOD_MS - (Date.now() % PERIOD_MS) + 100));
  }
}

/** A developer with two-factor on: its secret, recovery codes and the session the confirmation answered. */
export interface TwoFactorDeveloper extends TestDeveloper {
  secret: string;
  recoveryCodes: string[];
}

/** Enrols and confirms two-factor for `developer` over HTTP. */
export async function turnOnTwoFactor(developer: TestDeveloper): Promise<TwoFactorDeveloper> {
  const enrolled = await call('/v1/developer/2fa/enroll', { key: developer.token, body: {} });
  expect(enrolled.status, JSON.stringify(enrolled.body)).to.equal(201);
  const secret = enrolled.body.data.secret as string;
  const confirmed = await call('/v1/developer/2fa/confirm', {
    key: developer.token,
    body: { code: await nextCode(secret) },
  });
  expect(confirmed.status, JSON.stringify(confirmed.body)).to.equal(200);
  return { ...developer, token: confirmed.body.data.token, secret, recoveryCodes: confirmed.body.data.recovery_codes };
}

/** A session token of `personId` in `merchantId` (of their current generation), last confirmed `ageSeconds` ago. */
export async function sessionConfirmedAgo(personId: string, merchantId: string, ageSeconds: number): Promise<string> {
  const { config, db } = await getStack();
  const nowSeconds = Math.floor(Date.now() / 1000);
  const { session_generation: generation } = await db('developers').where({ id: personId }).first('session_generation');
  return (
    await signSessionToken(
      { personId, merchantId, twoFactorAt: nowSeconds - ageSeconds, generation },
      config.JWT_SECRET,
      config.SESSION_TTL_SECONDS,
    )
  ).token;
}

/** `POST /v1/auth/login` with an e-mail and a password: a session, a two-factor challenge or the refusal. */
export async function signIn(email: string, password: string): Promise<any> {
  return call('/v1/auth/login', { body: { email, password } });
}

/** The developer id of an e-mail. */
export async function personIdOf(email: string): Promise<string> {
  const { db } = await getStack();
  return (await db('developers').where({ email }).first('id')).id as string;
}

/** The invitation link's token sent to the e-mail of invitation `invitationId`. */
export async function invitationToken(invitationId: string): Promise<string> {
  const { config } = await getStack();
  const [mail] = mailsAbout(config.MAIL_OUTBOX_DIR, invitationId);
  const match = /\/dashboard\/invitations\/([0-9A-Za-z]+)/.exec(mail?.body ?? '');
  if (!match) throw new Error(`no invitation mail for ${invitationId}`);
  return match[1] as string;
}

/** A member of a merchant signed in with their own session there. */
export interface TestMember {
  email: string;
  password: string;
  memberId: string;
  personId: string;
  token: string;
  role: Role;
}

/** Invites a new person with `role` into the merchant of `owner` and accepts by registering. */
export async function addMember(owner: { token: string }, role: Role): Promise<TestMember> {
  const email = `member-${randomBytes(6).toString('hex')}@example.com`;
  const invited = await call('/v1/developer/team/invitations', { key: owner.token, body: { email, role } });
  expect(invited.status, JSON.stringify(invited.body)).to.equal(201);
  const token = await invitationToken(invited.body.data.id);
  const password = 'member password 1';
  const accepted = await call(`/v1/auth/invitations/${token}/accept`, { body: { name: `A ${role}`, password } });
  expect(accepted.status, JSON.stringify(accepted.body)).to.equal(201);
  const member = accepted.body.data.member;
  return { email, password, memberId: member.id, personId: member.developer_id, token: accepted.body.data.token, role };
}

/** A freshly registered owner and one member of every other role, in one merchant. */
export async function teamOfEveryRole(): Promise<{ owner: TestDeveloper; members: Record<Role, { token: string }> }> {
  const owner = await registerDeveloper();
  const admin = await addMember(owner, 'admin');
  const developer = await addMember(owner, 'developer');
  const viewer = await addMember(owner, 'viewer');
  return { owner, members: { owner, admin, developer, viewer } };
}
