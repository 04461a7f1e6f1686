import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ConfigError, loadAdminConfig, loadConfig } from '../src/config';

describe('config', () => {
  const valid = {
    DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db',
    JWT_SECRET: 'x'.repeat(32),
    PROVIDER_CALLBACK_SECRET: 'y'.repeat(32),
  };

  it('fills defaults: port 3000, task queue payments, 10-minute mobile money expiry', () => {
    const config = loadConfig(valid);
    expect(config).to.include({ PORT: 3000, TEMPORAL_TASK_QUEUE: 'payments', EXPIRY_MOBILE_MONEY_SECONDS: 600 });
  });

  it('names every bad setting', () => {
    let problems: string[] = [];
    try {
      loadConfig({ ...valid, PORT: 'eighty', JWT_SECRET: 'short', DATABASE_URL: undefined });
    } catch (error) {
      expect(error).to.be.instanceOf(ConfigError);
      problems = (error as ConfigError).problems;
    }
    expect(problems.join('\n'))
      .to.match(/PORT/)
      .and.match(/JWT_SECRET/)
      .and.match(/DATABASE_URL/);
  });

  it("derives the deliveries' task queue from the payments' and refuses the two being one (docs/webhooks.md#isolation)", () => {
    expect(loadConfig({ ...valid, TEMPORAL_TASK_QUEUE: 'pay' }).TEMPORAL_WEBHOOK_TASK_QUEUE).to.equal('pay-webhooks');
    expect(() => loadConfig({ ...valid, TEMPORAL_WEBHOOK_TASK_QUEUE: 'payments' })).to.throw(
      ConfigError,
      /TEMPORAL_WEBHOOK_TASK_QUEUE/,
    );
    expect(() => loadConfig({ ...valid, WORKER_ROLE: 'everything' })).to.throw(ConfigError, /WORKER_ROLE/);
    expect(() => loadConfig({ ...valid, WEBHOOK_ENDPOINT_CONCURRENCY: '0' })).to.throw(
      ConfigError,
      /WEBHOOK_ENDPOINT_CONCURRENCY/,
    );
  });

  it("bounds a merchant's deliveries to a fifth of the webhooks worker's slots unless told, and never to all of them (docs/webhooks.md#isolation)", () => {
    expect(loadConfig(valid).WEBHOOK_MERCHANT_CONCURRENCY).to.equal(20);
    expect(loadConfig({ ...valid, WORKER_WEBHOOK_ACTIVITY_SLOTS: '40' }).WEBHOOK_MERCHANT_CONCURRENCY).to.equal(8);
    expect(loadConfig({ ...valid, WORKER_WEBHOOK_ACTIVITY_SLOTS: '3' }).WEBHOOK_MERCHANT_CONCURRENCY).to.equal(1);
    expect(loadConfig({ ...valid, WEBHOOK_MERCHANT_CONCURRENCY: '30' }).WEBHOOK_MERCHANT_CONCURRENCY).to.equal(30);
    expect(() => loadConfig({ ...valid, WEBHOOK_MERCHANT_CONCURRENCY: '100' })).to.throw(
      ConfigError,
      /WEBHOOK_MERCHANT_CONCURRENCY.*must be below WORKER_WEBHOOK_ACTIVITY_SLOTS/,
    );
    expect(() => loadConfig({ ...valid, WEBHOOK_MERCHANT_CONCURRENCY: '0' })).to.throw(
      ConfigError,
      /WEBHOOK_MERCHANT_CONCURRENCY/,
    );
  });

  it('refuses a query time-out that does not outlast the statement time-out (docs/operations.md#deadlines)', () => {
    expect(() =>
      loadConfig({ ...valid, DATABASE_STATEMENT_TIMEOUT_MS: '4000', DATABASE_QUERY_TIMEOUT_MS: '4000' }),
    ).to.throw(ConfigError, /DATABASE_QUERY_TIMEOUT_MS/);
    expect(
      loadConfig({ ...valid, DATABASE_STATEMENT_TIMEOUT_MS: '4000', DATABASE_QUERY_TIMEOUT_MS: '5000' })
        .DATABASE_QUERY_TIMEOUT_MS,
    ).to.equal(5000);
  });
});

describe('config of live access and mail (docs/live-access.md)', () => {
  const valid = {
    DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db',
    JWT_SECRET: 'x'.repeat(32),
    PROVIDER_CALLBACK_SECRET: 'y'.repeat(32),
  };

  it('defaults to local folders under var/, no SMTP and one reviewer address', () => {
    const config = loadConfig(valid);
    expect(config.DOCUMENT_STORE_DIR).to.equal(path.resolve('var/documents'));
    expect(config.MAIL_OUTBOX_DIR).to.equal(path.resolve('var/mail'));
    expect(config.SMTP_URL).to.equal(undefined);
    expect(config.LIVE_ACCESS_REVIEWER_EMAILS).to.deep.equal(['reviewers@paycollect.local']);
  });

  it('reads a comma-separated reviewer list and names a bad address or SMTP URL', () => {
    expect(
      loadConfig({ ...valid, LIVE_ACCESS_REVIEWER_EMAILS: 'a@example.com, b@example.com' }).LIVE_ACCESS_REVIEWER_EMAILS,
    ).to.deep.equal(['a@example.com', 'b@example.com']);
    expect(() => loadConfig({ ...valid, LIVE_ACCESS_REVIEWER_EMAILS: 'a@example.com,nope' })).to.throw(
      ConfigError,
      /LIVE_ACCESS_REVIEWER_EMAILS/,
    );
    expect(() => loadConfig({ ...valid, SMTP_URL: 'http://mail.example.com' })).to.throw(ConfigError, /SMTP_URL/);
    expect(loadConfig({ ...valid, SMTP_URL: 'smtps://u:p@mail.example.com:465' }).SMTP_URL).to.equal(
      'smtps://u:p@mail.example.com:465',
    );
  });

  it('lets the admin command run without the API secrets (docs/live-access.md#admin-command)', () => {
    const none = path.join(os.tmpdir(), 'no-such-runtime.json');
    const config = loadAdminConfig({ DATABASE_URL: valid.DATABASE_URL }, none);
    expect(config).to.include({ TEMPORAL_ADDRESS: '127.0.0.1:7233', TEMPORAL_NAMESPACE: 'default' });
    expect(() => loadAdminConfig({}, none)).to.throw(ConfigError, /DATABASE_URL/);
  });

  it('lets the admin command run with no settings where npm start runs: it reads var/runtime.json; the environment wins', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runtime-'));
    const file = path.join(dir, 'runtime.json');
    fs.writeFileSync(
      file,
      JSON.stringify({ DATABASE_URL: 'postgres://u:p@127.0.0.1:54329/postgres', TEMPORAL_ADDRESS: '127.0.0.1:41234' }),
    );
    try {
      expect(loadAdminConfig({}, file)).to.include({
        DATABASE_URL: 'postgres://u:p@127.0.0.1:54329/postgres',
        TEMPORAL_ADDRESS: '127.0.0.1:41234',
      });
      expect(loadAdminConfig({ TEMPORAL_ADDRESS: '127.0.0.1:7233' }, file).TEMPORAL_ADDRESS).to.equal('127.0.0.1:7233');
      fs.writeFileSync(file, 'not json');
      expect(() => loadAdminConfig({}, file)).to.throw(ConfigError, /DATABASE_URL/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('config: webhook private targets (docs/webhooks.md#targets)', () => {
  const valid = {
    DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db',
    JWT_SECRET: 'x'.repeat(32),
    PROVIDER_CALLBACK_SECRET: 'y'.repeat(32),
  };

  it('allows private sandbox targets by default outside production and refuses them in production', () => {
    expect(loadConfig({ ...valid, NODE_ENV: 'development' }).WEBHOOK_ALLOW_PRIVATE_TARGETS).to.equal(true);
    expect(loadConfig({ ...valid, NODE_ENV: 'test' }).WEBHOOK_ALLOW_PRIVATE_TARGETS).to.equal(true);
    expect(loadConfig({ ...valid, NODE_ENV: 'production' }).WEBHOOK_ALLOW_PRIVATE_TARGETS).to.equal(false);
  });

  it('takes an explicit setting either way', () => {
    expect(
      loadConfig({ ...valid, NODE_ENV: 'production', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })
        .WEBHOOK_ALLOW_PRIVATE_TARGETS,
    ).to.equal(true);
    expect(loadConfig({ ...valid, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' }).WEBHOOK_ALLOW_PRIVATE_TARGETS).to.equal(
      false,
    );
  });
});

describe('config of live provider adapters (docs/providers.md#configuration)', () => {
  const valid = {
    DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db',
    JWT_SECRET: 'x'.repeat(32),
    PROVIDER_CALLBACK_SECRET: 'y'.repeat(32),
  };
  const airtel = {
    AIRTEL_BASE_URL: 'https://openapi.airtel.africa',
    AIRTEL_CLIENT_ID: 'id',
    AIRTEL_CLIENT_SECRET: 'secret',
  };

  /** The problems `loadConfig(env)` names, or none. */
  function problemsOf(env: Record<string, string | undefined>): string[] {
    try {
      loadConfig(env);
      return [];
    } catch (error) {
      expect(error).to.be.instanceOf(ConfigError);
      return (error as ConfigError).problems;
    }
  }

  it('configures no live adapter when no provider settings are given', () => {
    expect(loadConfig(valid).PROVIDERS).to.deep.equal({ live: {}, sandbox: {} });
  });

  it('configures a provider for live, or for sandbox with its _SANDBOX_ settings', () => {
    const config = loadConfig({
      ...valid,
      ...airtel,
      AIRTEL_TIMEOUT_MS: '3000',
      AIRTEL_SANDBOX_BASE_URL: 'https://openapiuat.airtel.africa',
      AIRTEL_SANDBOX_CLIENT_ID: 'uat',
      AIRTEL_SANDBOX_CLIENT_SECRET: 'uat-secret',
    });
    expect(config.PROVIDERS.live.mobile_money_b).to.include({
      baseUrl: 'https://openapi.airtel.africa',
      clientId: 'id',
      timeoutMs: 3000,
    });
    expect(config.PROVIDERS.sandbox.mobile_money_b).to.include({
      baseUrl: 'https://openapiuat.airtel.africa',
      clientId: 'uat',
    });
  });

  it('names each missing variable of a partly configured provider, and a bad value, without printing secrets', () => {
    const problems = problemsOf({
      ...valid,
      AIRTEL_CLIENT_SECRET: 'very-secret-value',
      AIRTEL_SANDBOX_BASE_URL: 'not a url',
      AIRTEL_SANDBOX_CLIENT_ID: 'a',
      AIRTEL_SANDBOX_CLIENT_SECRET: 'b',
    });
    expect(problems.join('\n'))
      .to.match(/AIRTEL_BASE_URL, AIRTEL_CLIENT_ID: required/)
      .and.match(/AIRTEL_SANDBOX_BASE_URL/);
    expect(problems.join('\n')).not.to.include('very-secret-value');
  });

  it('reports provider problems together with the other bad settings', () => {
    const problems = problemsOf({ ...valid, PORT: 'eighty', AIRTEL_CLIENT_ID: 'id' });
    expect(problems.join('\n'))
      .to.match(/PORT/)
      .and.match(/AIRTEL_BASE_URL/);
  });
});
