/**
 * Team members over real HTTP (docs/security.md#team-members, docs/security.md#invitations, docs/security.md#roles):
 * invitations by e-mail accepted by registering or signing in, once and within 72 hours, for the invited e-mail
 * only; roles and the last owner; a person in several merchants; a removed member refused at once; the audit log.
 */
import { expect } from 'chai';
import { call, registerDeveloper } from '../helpers/http';
import { mailsAbout } from '../helpers/live-access-fixtures';
import { addMember, invitationToken } from '../helpers/security';
import { getStack } from '../helpers/stack';

async function invite(token: string, email: string, role: string): Promise<any> {
  return call('/v1/developer/team/invitations', { key: token, body: { email, role } });
}

describe('team members (docs/security.md#team-members)', function () {
  this.timeout(120_000);

  it('invites by e-mail; the link registers a new person once, as a member of the merchant only', async () => {
    const owner = await registerDeveloper();
    const email = `kofi-${Date.now()}@example.com`;
    const invited = await invite(owner.token, email.toUpperCase(), 'developer');
    expect(invited.status, JSON.stringify(invited.body)).to.equal(201);
    expect(invited.body.data).to.include({ email, role: 'developer' });
    expect(Date.parse(invited.body.data.expires_at) - Date.now()).to.be.closeTo(72 * 3600_000, 60_000);
    const { config } = await getStack();
    const [mail] = mailsAbout(config.MAIL_OUTBOX_DIR, invited.body.data.id);
    expect(mail?.to).to.include(email);
    expect(mail?.body).to.include('72 hours');
    const token = await invitationToken(invited.body.data.id);
    expect(JSON.stringify(invited.body)).not.to.include(token);

    const noPassword = await call(`/v1/auth/invitations/${token}/accept`, { body: { name: 'Kofi' } });
    expect(noPassword.status).to.equal(400);
    const accepted = await call(`/v1/auth/invitations/${token}/accept`, {
      body: { name: 'Kofi', password: 'kofi password 1' },
    });
    expect(accepted.status, JSON.stringify(accepted.body)).to.equal(201);
    expect(accepted.body.data.member).to.include({ email, role: 'developer', name: 'Kofi' });
    const session = accepted.body.data.token;
    const profile = await call('/v1/developer/profile', { key: session });
    expect(profile.body.data.merchant_id).to.equal(owner.merchantId);

    const reused = await call(`/v1/auth/invitations/${token}/accept`, {
      body: { name: 'Eve', password: 'eve password 12' },
    });
    expect(reused.status).to.equal(409);
    expect(reused.body.error.message).to.include('already used');
    const unknown = await call(`/v1/auth/invitations/${'x'.repeat(40)}/accept`, {
      body: { name: 'Eve', password: 'eve password 12' },
    });
    expect(unknown.status).to.equal(404);
    // The new person signs in to the merchant they joined.
    const login = await call('/v1/auth/login', { body: { email, password: 'kofi password 1' } });
    expect(login.status).to.equal(200);
    const members = await call('/v1/developer/team/members', { key: login.body.data.token });
    expect(members.body.data.members.map((m: any) => m.role)).to.deep.equal(['owner', 'developer']);
    const open = await call('/v1/developer/team/invitations', { key: owner.token });
    expect(open.body.data.invitations).to.deep.equal([]);
  });

  it('refuses an expired link, and a link used by a signed-in person of another e-mail, changing nothing', async () => {
    const owner = await registerDeveloper();
    const other = await registerDeveloper();
    const email = `late-${Date.now()}@example.com`;
    const invited = await invite(owner.token, email, 'viewer');
    const token = await invitationToken(invited.body.data.id);
    const wrongPerson = await call(`/v1/auth/invitations/${token}/accept`, { key: other.token, body: {} });
    expect(wrongPerson.status).to.equal(403);
    expect(wrongPerson.body.error.code).to.equal('forbidden');

    const { db } = await getStack();
    await db('team_invitations')
      .where({ id: invited.body.data.id })
      .update({ expires_at: new Date(Date.now() - 1000) });
    const expired = await call(`/v1/auth/invitations/${token}/accept`, {
      body: { name: 'Late', password: 'late password 1' },
    });
    expect(expired.status).to.equal(409);
    expect(expired.body.error.message).to.include('expired');
    expect(await db('developers').where({ email }).first()).to.equal(undefined);
    const members = await call('/v1/developer/team/members', { key: owner.token });
    expect(members.body.data.members).to.have.length(1);
  });

  it('lets a person of several merchants accept signed in, pick one at sign-in and switch', async () => {
    const first = await registerDeveloper();
    const second = await registerDeveloper();
    const invited = await invite(second.token, first.email, 'admin');
    const token = await invitationToken(invited.body.data.id);
    const accepted = await call(`/v1/auth/invitations/${token}/accept`, { key: first.token, body: {} });
    expect(accepted.status, JSON.stringify(accepted.body)).to.equal(201);

    const byDefault = await call('/v1/auth/login', { body: { email: first.email, password: first.password } });
    const mine = await call('/v1/developer/profile', { key: byDefault.body.data.token });
    expect(mine.body.data.merchant_id).to.equal(first.merchantId);
    const chosen = await call('/v1/auth/login', {
      body: { email: first.email, password: first.password, merchant_id: second.merchantId },
    });
    const theirs = await call('/v1/developer/profile', { key: chosen.body.data.token });
    expect(theirs.body.data.merchant_id).to.equal(second.merchantId);
    const notMine = await call('/v1/auth/login', {
      body: { email: second.email, password: second.password, merchant_id: first.merchantId },
    });
    expect(notMine.status).to.equal(403);

    const switched = await call('/v1/auth/switch', {
      key: byDefault.body.data.token,
      body: { merchant_id: second.merchantId },
    });
    expect(switched.status).to.equal(200);
    const listed = await call('/v1/developer/team/members', { key: switched.body.data.token });
    expect(listed.body.data.members.map((m: any) => m.role)).to.deep.equal(['owner', 'admin']);
    expect(listed.body.data.merchants.map((m: any) => m.merchant_id)).to.deep.equal([
      first.merchantId,
      second.merchantId,
    ]);
    const refused = await call('/v1/auth/switch', {
      key: second.token,
      body: { merchant_id: first.merchantId },
    });
    expect(refused.status).to.equal(403);
  });

  it('keeps at least one owner: the last owner can be neither demoted nor removed; only owners touch owners', async () => {
    const owner = await registerDeveloper();
    const admin = await addMember(owner, 'admin');
    const members = (await call('/v1/developer/team/members', { key: owner.token })).body.data.members;
    const ownerId = members.find((m: any) => m.role === 'owner').id;

    const demoteLast = await call(`/v1/developer/team/members/${ownerId}`, {
      key: owner.token,
      method: 'PATCH',
      body: { role: 'admin' },
    });
    expect(demoteLast.status).to.equal(409);
    expect(demoteLast.body.error.message).to.include('last owner');
    const leaveLast = await call(`/v1/developer/team/members/${ownerId}`, {
      key: owner.token,
      method: 'DELETE',
      body: {},
    });
    expect(leaveLast.status).to.equal(409);
    const adminTouchesOwner = await call(`/v1/developer/team/members/${ownerId}`, {
      key: admin.token,
      method: 'PATCH',
      body: { role: 'viewer' },
    });
    expect(adminTouchesOwner.status).to.equal(403);
    const adminMakesOwner = await call(`/v1/developer/team/members/${admin.memberId}`, {
      key: admin.token,
      method: 'PATCH',
      body: { role: 'owner' },
    });
    expect(adminMakesOwner.status).to.equal(403);
    expect((await invite(admin.token, `o-${Date.now()}@example.com`, 'owner')).status).to.equal(403);

    const promoted = await call(`/v1/developer/team/members/${admin.memberId}`, {
      key: owner.token,
      method: 'PATCH',
      body: { role: 'owner' },
    });
    expect(promoted.status).to.equal(200);
    // Two owners now: the first may step down.
    const stepDown = await call(`/v1/developer/team/members/${ownerId}`, {
      key: owner.token,
      method: 'PATCH',
      body: { role: 'viewer' },
    });
    expect(stepDown.status).to.equal(200);
    const roles = (await call('/v1/developer/team/members', { key: owner.token })).body.data.members.map(
      (m: any) => m.role,
    );
    expect(roles).to.deep.equal(['viewer', 'owner']);
    const bad = await call(`/v1/developer/team/members/${admin.memberId}`, {
      key: admin.token,
      method: 'PATCH',
      body: { role: 'king' },
    });
    expect(bad.status).to.equal(400);
    const missing = await call('/v1/developer/team/members/mem_unknown', {
      key: admin.token,
      method: 'PATCH',
      body: { role: 'viewer' },
    });
    expect(missing.status).to.equal(404);
  });

  it('refuses a removed member at the next request, and a viewer every write', async () => {
    const owner = await registerDeveloper();
    const viewer = await addMember(owner, 'viewer');
    expect((await call('/v1/developer/transactions', { key: viewer.token })).status).to.equal(200);
    for (const [path, method, body] of [
      ['/v1/developer/profile', 'PUT', { name: 'Taken over' }],
      ['/v1/developer/webhooks', 'POST', { url: 'https://example.com/hook', events: ['payment.completed'] }],
      ['/v1/developer/keys/sandbox/roll', 'POST', {}],
      ['/v1/developer/keys', 'POST', { name: 'x', environment: 'sandbox', scopes: ['payments:read'] }],
      ['/v1/developer/team/invitations', 'POST', { email: 'x@example.com', role: 'viewer' }],
    ] as const) {
      const refused = await call(path, { key: viewer.token, method, body });
      expect(refused.status, path).to.equal(403);
      expect(refused.body.error.code).to.equal('forbidden');
      expect(refused.body.error.message).to.include('viewer');
    }
    const removed = await call(`/v1/developer/team/members/${viewer.memberId}`, {
      key: owner.token,
      method: 'DELETE',
      body: {},
    });
    expect(removed.status).to.equal(200);
    const after = await call('/v1/developer/transactions', { key: viewer.token });
    expect(after.status).to.equal(401);
    const login = await call('/v1/auth/login', { body: { email: viewer.email, password: viewer.password } });
    expect(login.status).to.equal(403);
  });

  it('writes every team change and sign-in to the audit log with actor, IP, request id and user agent', async () => {
    const owner = await registerDeveloper();
    await call('/v1/auth/login', { body: { email: owner.email, password: 'wrong password!' } });
    await call('/v1/auth/login', {
      body: { email: owner.email, password: owner.password },
      headers: { 'user-agent': 'team-test/1.0', 'x-request-id': 'req-team-test-0001' },
    });
    const member = await addMember(owner, 'developer');
    await call(`/v1/developer/team/members/${member.memberId}`, {
      key: owner.token,
      method: 'PATCH',
      body: { role: 'viewer' },
      headers: { 'user-agent': 'team-test/1.0', 'x-request-id': 'req-team-test-0002' },
    });
    const activity = (await call('/v1/developer/activity?limit=100', { key: owner.token })).body.data.activity;
    const actions = activity.map((e: any) => e.action);
    expect(actions).to.include.members([
      'sign_in.failed',
      'sign_in.succeeded',
      'team.member_invited',
      'team.member_joined',
      'team.role_changed',
    ]);
    const change = activity.find((e: any) => e.action === 'team.role_changed');
    expect(change).to.include({
      target: member.memberId,
      request_id: 'req-team-test-0002',
      user_agent: 'team-test/1.0',
    });
    expect(change.actor.type).to.equal('developer');
    expect(change.ip).to.be.a('string');
    const signIn = activity.find((e: any) => e.action === 'sign_in.succeeded');
    expect(signIn).to.include({ request_id: 'req-team-test-0001' });
    expect(JSON.stringify(activity)).not.to.include(owner.password);

    // Filtered by action and by actor: only those entries, counted as such.
    const byAction = (await call('/v1/developer/activity?action=team.role_changed', { key: owner.token })).body.data;
    expect(byAction.activity.map((e: any) => e.action)).to.deep.equal(['team.role_changed']);
    expect(byAction.pagination.total).to.equal(1);
    const byActor = (await call(`/v1/developer/activity?actor=${member.personId}`, { key: owner.token })).body.data;
    expect(byActor.activity.map((e: any) => e.action)).to.deep.equal(['team.member_joined']);
    const bad = await call('/v1/developer/activity?action=DROP%20TABLE', { key: owner.token });
    expect(bad.status).to.equal(400);
  });
});
