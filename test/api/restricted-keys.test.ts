/**
 * Restricted keys over real HTTP (docs/security.md#restricted-keys): created with scopes, shown once, listed masked,
 * refused with 403 `forbidden` naming the missing scope, rolled and revoked one by one; secret keys keep every scope.
 */
import { expect } from 'chai';
import { call, registerDeveloper, type TestDeveloper } from '../helpers/http';
import { addMember } from '../helpers/security';

const PAYMENT = {
  amount: 1500,
  currency: 'RWF',
  payment_method: 'mobile_money',
  phone_number: '+250788000001',
  description: 'Restricted key order',
};

async function restrictedKey(developer: TestDeveloper, scopes: string[]): Promise<any> {
  const created = await call('/v1/developer/keys', {
    key: developer.token,
    body: { name: 'Checkout server', environment: 'sandbox', scopes },
  });
  expect(created.status, JSON.stringify(created.body)).to.equal(201);
  return created.body.data.key;
}

describe('restricted keys (docs/security.md#restricted-keys)', function () {
  this.timeout(60_000);

  it('creates an rk_sandbox_ key shown once and lists it masked with its name and scopes', async () => {
    const developer = await registerDeveloper();
    const key = await restrictedKey(developer, ['payments:read', 'payments:write']);
    expect(key.secret).to.match(/^rk_sandbox_[0-9A-Za-z]{32}$/);
    expect(key).to.include({ kind: 'restricted', name: 'Checkout server', status: 'active' });
    expect(key.scopes).to.deep.equal(['payments:read', 'payments:write']);
    const listed = await call('/v1/developer/keys', { key: developer.token });
    const entry = listed.body.data.keys.find((k: any) => k.id === key.id);
    expect(entry).to.include({ kind: 'restricted', masked: `rk_sandbox_…${key.secret.slice(-4)}` });
    expect(JSON.stringify(listed.body)).not.to.include(key.secret);
    const secret = listed.body.data.keys.find((k: any) => k.kind === 'secret');
    expect(secret).to.include({ name: null, scopes: null });
  });

  it('answers 403 forbidden naming the missing scope, and serves what its scopes allow', async () => {
    const developer = await registerDeveloper();
    const reader = await restrictedKey(developer, ['payments:read']);
    const writer = await restrictedKey(developer, ['payments:write']);
    const created = await call('/v1/payments', { key: writer.secret, body: PAYMENT });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const id = created.body.data.id;
    expect((await call(`/v1/payments/${id}`, { key: reader.secret })).status).to.equal(200);
    expect((await call('/v1/developer/transactions', { key: reader.secret })).status).to.equal(200);

    const cases: [string, string, object | undefined, string, string][] = [
      ['/v1/payments', 'POST', PAYMENT, reader.secret, 'payments:write'],
      [`/v1/payments/${id}`, 'GET', undefined, writer.secret, 'payments:read'],
      [`/v1/payments/${id}/refund`, 'POST', { amount: 100 }, writer.secret, 'refunds:write'],
      ['/v1/developer/webhooks', 'GET', undefined, reader.secret, 'webhooks:write'],
      [`/v1/api/merchants/${developer.merchantId}/payments/${id}`, 'GET', undefined, writer.secret, 'payments:read'],
    ];
    for (const [path, method, body, key, scope] of cases) {
      const headers: Record<string, string> = path.startsWith('/v1/api/') ? { 'x-api-key': key } : {};
      const refused = await call(path, { method, body, headers, key: path.startsWith('/v1/api/') ? undefined : key });
      expect(refused.status, `${method} ${path}`).to.equal(403);
      // The merchant-scoped family answers `{error: message}` (docs/api.md#errors); the others the envelope.
      const code = typeof refused.body.error === 'string' ? 'forbidden' : refused.body.error.code;
      expect(code, `${method} ${path}`).to.equal('forbidden');
      expect(JSON.stringify(refused.body), `${method} ${path}`).to.include(scope);
    }
    // Endpoints outside every scope need a secret key.
    const profile = await call('/v1/developer/profile', { key: reader.secret });
    expect(profile.status).to.equal(403);
    expect(profile.body.error.message).to.include('secret key');
    // A restricted key is not a session: session-only endpoints stay 401 for it.
    expect((await call('/v1/developer/keys', { key: reader.secret })).status).to.equal(401);
    // The secret key keeps every scope.
    expect((await call(`/v1/payments/${id}`, { key: developer.key })).status).to.equal(200);
    expect((await call('/v1/developer/webhooks', { key: developer.key })).status).to.equal(200);
  });

  it('rolls a restricted key (same scopes; old key ends now with 0) and revokes one, leaving secret keys alone', async () => {
    const developer = await registerDeveloper();
    const key = await restrictedKey(developer, ['payments:read']);
    const rolled = await call(`/v1/developer/keys/restricted/${key.id}/roll`, {
      key: developer.token,
      body: { expires_in_hours: 0 },
    });
    expect(rolled.status, JSON.stringify(rolled.body)).to.equal(201);
    const successor = rolled.body.data.key;
    expect(successor.secret).to.match(/^rk_sandbox_/);
    expect(successor).to.include({ name: 'Checkout server' });
    expect(successor.scopes).to.deep.equal(['payments:read']);
    const old = await call('/v1/payments', { key: key.secret });
    expect(old.status).to.equal(401);
    expect(old.body.error.code).to.equal('invalid_api_key');
    expect((await call('/v1/payments', { key: successor.secret })).status).to.equal(200);
    // Rolling the secret keys does not touch restricted keys.
    await call('/v1/developer/keys/sandbox/roll', { key: developer.token, body: { expires_in_hours: 0 } });
    expect((await call('/v1/payments', { key: successor.secret })).status).to.equal(200);

    const revoked = await call(`/v1/developer/keys/${successor.id}`, { key: developer.token, method: 'DELETE' });
    expect(revoked.status).to.equal(200);
    expect(revoked.body.data.status).to.equal('revoked');
    expect((await call('/v1/payments', { key: successor.secret })).status).to.equal(401);
    const again = await call(`/v1/developer/keys/restricted/${successor.id}/roll`, { key: developer.token, body: {} });
    expect(again.status).to.equal(404);

    const secretId = (await call('/v1/developer/keys', { key: developer.token })).body.data.keys.find(
      (k: any) => k.kind === 'secret',
    ).id;
    const notRevocable = await call(`/v1/developer/keys/${secretId}`, { key: developer.token, method: 'DELETE' });
    expect(notRevocable.status).to.equal(409);
    const activity = (await call('/v1/developer/activity', { key: developer.token })).body.data.activity;
    expect(activity.map((e: any) => e.action)).to.include.members([
      'api_key.restricted_created',
      'api_key.restricted_rolled',
      'api_key.revoked',
    ]);
    expect(JSON.stringify(activity)).not.to.include(key.secret);
  });

  it('refuses bad bodies, live keys before live access, and roles that cannot create keys', async () => {
    const developer = await registerDeveloper();
    for (const body of [
      { name: 'x', environment: 'sandbox', scopes: [] },
      { name: 'x', environment: 'sandbox', scopes: ['payments:delete'] },
      { name: 'x', environment: 'sandbox', scopes: ['payments:read', 'payments:read'] },
      { name: '', environment: 'sandbox', scopes: ['payments:read'] },
      { name: 'x', environment: 'staging', scopes: ['payments:read'] },
      { name: 'x', environment: 'sandbox', scopes: ['payments:read'], extra: 1 },
    ]) {
      const refused = await call('/v1/developer/keys', { key: developer.token, body });
      expect(refused.status, JSON.stringify(body)).to.equal(400);
    }
    const live = await call('/v1/developer/keys', {
      key: developer.token,
      body: { name: 'x', environment: 'live', scopes: ['payments:read'] },
    });
    expect(live.status).to.equal(409);
    const viewer = await addMember(developer, 'viewer');
    const byViewer = await call('/v1/developer/keys', {
      key: viewer.token,
      body: { name: 'x', environment: 'sandbox', scopes: ['payments:read'] },
    });
    expect(byViewer.status).to.equal(403);
    const keys = (await call('/v1/developer/keys', { key: developer.token })).body.data.keys;
    expect(keys.filter((k: any) => k.kind === 'restricted')).to.deep.equal([]);
  });
});
