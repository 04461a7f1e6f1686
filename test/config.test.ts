import { expect } from 'chai';
import { ConfigError, loadConfig } from '../src/config';

describe('config', () => {
  const valid = { DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db', JWT_SECRET: 'x'.repeat(32), PROVIDER_CALLBACK_SECRET: 'y'.repeat(32) };

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
    expect(problems.join('\n')).to.match(/PORT/).and.match(/JWT_SECRET/).and.match(/DATABASE_URL/);
  });
});

describe('config: webhook private targets (D26)', () => {
  const valid = { DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db', JWT_SECRET: 'x'.repeat(32), PROVIDER_CALLBACK_SECRET: 'y'.repeat(32) };

  it('allows private sandbox targets by default outside production and refuses them in production', () => {
    expect(loadConfig({ ...valid, NODE_ENV: 'development' }).WEBHOOK_ALLOW_PRIVATE_TARGETS).to.equal(true);
    expect(loadConfig({ ...valid, NODE_ENV: 'test' }).WEBHOOK_ALLOW_PRIVATE_TARGETS).to.equal(true);
    expect(loadConfig({ ...valid, NODE_ENV: 'production' }).WEBHOOK_ALLOW_PRIVATE_TARGETS).to.equal(false);
  });

  it('takes an explicit setting either way', () => {
    expect(loadConfig({ ...valid, NODE_ENV: 'production', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }).WEBHOOK_ALLOW_PRIVATE_TARGETS).to.equal(true);
    expect(loadConfig({ ...valid, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' }).WEBHOOK_ALLOW_PRIVATE_TARGETS).to.equal(false);
  });
});
