/**
 * `POST /v1/auth/register` and `POST /v1/auth/login` (docs/api.md#sessions, docs/api.md#secret-keys) over real HTTP.
 */
import { expect } from 'chai';
import { decodeJwt } from 'jose';
import { call, registerDeveloper } from '../helpers/http';

describe('auth: register and login (docs/api.md#sessions, docs/api.md#secret-keys)', () => {
  it('registers a developer with a merchant id, a 1 h session token and a sandbox key shown once', async () => {
    const email = `ann-${Date.now()}@example.com`;
    const response = await call('/v1/auth/register', {
      body: { email: email.toUpperCase(), password: 'long enough pw', name: 'Ann', business_name: 'Ann Ltd' },
    });
    expect(response.status).to.equal(201);
    const data = response.body.data;
    expect(data.developer).to.include({ email, name: 'Ann', business_name: 'Ann Ltd', has_live_access: false });
    expect(data.developer.id).to.match(/^dev_/);
    expect(data.developer.merchant_id).to.match(/^mer_/);
    expect(data.developer).not.to.have.property('password_hash');
    expect(data.api_key.secret).to.match(/^sk_sandbox_[0-9A-Za-z]{32}$/);
    expect(data.api_key.last4).to.equal(data.api_key.secret.slice(-4));
    const claims = decodeJwt(data.token);
    expect(claims.sub).to.equal(data.developer.id);
    expect(Number(claims.exp) - Number(claims.iat)).to.equal(3600);
  });

  it('refuses an e-mail already registered with 409 conflict', async () => {
    const developer = await registerDeveloper();
    const again = await call('/v1/auth/register', {
      body: { email: developer.email, password: 'another password', name: 'B' },
    });
    expect(again.status).to.equal(409);
    expect(again.body.error.code).to.equal('conflict');
  });

  it('refuses bad registration bodies with 400 validation_error naming the field', async () => {
    const cases: [object, string][] = [
      [{ password: 'long enough pw', name: 'A' }, 'email is required'],
      [{ email: 'not-an-email', password: 'long enough pw', name: 'A' }, 'email must be a valid email'],
      [{ email: 'a@example.com', password: 'short', name: 'A' }, 'password must be at least 10 characters'],
      [{ email: 'a@example.com', password: 'long enough pw' }, 'name is required'],
    ];
    for (const [body, message] of cases) {
      const response = await call('/v1/auth/register', { body });
      expect(response.status).to.equal(400);
      expect(response.body.error).to.include({ code: 'validation_error', message });
    }
  });

  it('logs in with the right password and answers the same 401 for a wrong password or an unknown e-mail', async () => {
    const developer = await registerDeveloper();
    const ok = await call('/v1/auth/login', { body: { email: developer.email, password: developer.password } });
    expect(ok.status).to.equal(200);
    expect(ok.body.data.token).to.be.a('string');
    expect(Date.parse(ok.body.data.expires_at)).to.be.greaterThan(Date.now());
    const wrong = await call('/v1/auth/login', { body: { email: developer.email, password: 'wrong password!' } });
    const unknown = await call('/v1/auth/login', {
      body: { email: 'nobody@example.com', password: 'wrong password!' },
    });
    expect(wrong.status).to.equal(401);
    expect(unknown.status).to.equal(401);
    expect(wrong.body).to.deep.equal(unknown.body);
    expect(wrong.body.error.code).to.equal('unauthorized');
  });
});
