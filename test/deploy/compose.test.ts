/**
 * docker-compose.yml, the production topology for people with Docker (docs/operations.md#docker), loaded as
 * `docker compose config` loads it (compose-go, test/deploy/compose-spec.ts): valid, no secret with
 * a default, Temporal's server image with a schema job instead of auto-setup, health checks,
 * conditions on every dependency, restart policies, worker metrics reachable from outside its
 * container. What cannot be tested without a Docker engine: docs/operations.md#docker.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { PROVIDER_VARIABLES } from '../../src/providers/settings';
import type { ProviderVariables } from '../../src/providers/provider-variables';
import { CUSTOM_SEARCH_ATTRIBUTES } from '../../src/workflows/messages';
import { loadCompose, type ComposeModel, type ComposeService } from './compose-spec';

const ROOT = path.resolve(__dirname, '../..');
const COMPOSE_FILE = path.join(ROOT, 'docker-compose.yml');
const SECRETS = {
  POSTGRES_PASSWORD: 'pg-Password-1',
  JWT_SECRET: 'j'.repeat(40),
  PROVIDER_CALLBACK_SECRET: 'c'.repeat(40),
};

/** Long-running services (restarted when they stop) and one-shot jobs (never restarted). */
const SERVERS = ['postgres', 'temporal', 'temporal-ui', 'worker', 'webhook-worker', 'api'];
const JOBS = ['temporal-schema', 'temporal-namespace', 'migrate'];

/** The shell script a job runs (`entrypoint: sh -ec`, `command: [script]`). */
function scriptOf(service: ComposeService): string {
  return (service.command ?? []).join('\n');
}

describe('docker-compose.yml (docs/operations.md#docker)', function () {
  this.timeout(300_000);
  let model: ComposeModel;

  before(() => {
    const loaded = loadCompose(COMPOSE_FILE, SECRETS);
    if (!loaded.ok) throw new Error(`docker-compose.yml does not load:\n${loaded.error}`);
    model = loaded.model;
  });

  it('refuses to load without each secret: none has a default', () => {
    for (const missing of Object.keys(SECRETS)) {
      const env = { ...SECRETS } as Record<string, string>;
      delete env[missing];
      const loaded = loadCompose(COMPOSE_FILE, env);
      expect(loaded.ok, `loads without ${missing}`).to.equal(false);
      if (!loaded.ok) expect(loaded.error).to.include(`required variable ${missing} is missing a value`);
    }
  });

  it('takes the secrets from the environment and hands them to the API and the worker', () => {
    for (const name of ['api', 'worker', 'webhook-worker', 'migrate']) {
      const environment = model.services[name]?.environment ?? {};
      expect(environment.JWT_SECRET, name).to.equal(SECRETS.JWT_SECRET);
      expect(environment.PROVIDER_CALLBACK_SECRET, name).to.equal(SECRETS.PROVIDER_CALLBACK_SECRET);
      expect(environment.DATABASE_URL, name).to.equal(
        `postgres://paycollect:${SECRETS.POSTGRES_PASSWORD}@postgres:5432/paycollect`,
      );
      expect(environment.NODE_ENV, name).to.equal('production');
      // Optional credentials pass through from the environment and are absent when unset.
      expect(environment, name).to.have.property('STRIPE_SECRET_KEY', null);
    }
    expect(model.services.postgres?.environment?.POSTGRES_PASSWORD).to.equal(SECRETS.POSTGRES_PASSWORD);
    expect(model.services.temporal?.environment?.POSTGRES_PWD).to.equal(SECRETS.POSTGRES_PASSWORD);
    const raw = fs.readFileSync(COMPOSE_FILE, 'utf8');
    expect(raw).not.to.match(/\$\{(POSTGRES_PASSWORD|JWT_SECRET|PROVIDER_CALLBACK_SECRET):?-/);
  });

  it("passes every live provider's settings variable through to the API and the workers, M-Pesa's, Orange's, Vodacom's and Wave's included (docs/providers.md#configuration)", () => {
    const variables = (PROVIDER_VARIABLES as readonly ProviderVariables[]).flatMap((group) =>
      Object.values(group.fields).map((field) => `${group.prefix}_${field.variable}`),
    );
    expect(variables).to.include.members([
      'MPESA_CONSUMER_KEY',
      'ORANGE_MERCHANT_KEY',
      'VODACOM_API_KEY',
      'WAVE_API_KEY',
    ]);
    for (const name of ['api', 'worker', 'webhook-worker']) {
      const environment = model.services[name]?.environment ?? {};
      for (const variable of variables) expect(environment, `${name} ${variable}`).to.have.property(variable, null);
    }
  });

  it("runs Temporal's server image on PostgreSQL after a schema job, never auto-setup", () => {
    for (const [name, service] of Object.entries(model.services))
      expect(service.image ?? '', name).not.to.include('auto-setup');
    const temporal = model.services.temporal as ComposeService;
    expect(temporal.image).to.equal('temporalio/server:1.29.1');
    expect(temporal.environment).to.include({ DB: 'postgres12', POSTGRES_SEEDS: 'postgres' });
    expect(Number(temporal.environment?.NUM_HISTORY_SHARDS)).to.be.at.least(4);
    // The production topology's dynamic config (docs/capacity.md#eager-activities), the file the cluster command uses.
    expect(temporal.environment?.DYNAMIC_CONFIG_FILE_PATH).to.equal(
      '/etc/temporal/config/dynamicconfig/paycollect.yaml',
    );
    expect(JSON.stringify(temporal.volumes)).to.include('ops/temporal/dynamicconfig.yaml');
    expect(temporal.depends_on?.['temporal-schema']?.condition).to.equal('service_completed_successfully');

    const schema = model.services['temporal-schema'] as ComposeService;
    expect(schema.image).to.equal('temporalio/admin-tools:1.29.1');
    const script = scriptOf(schema);
    expect(script).to.include('temporal-sql-tool --plugin postgres12');
    expect(script).to.include('setup-schema -v 0.0');
    expect(script).to.include('update-schema -d "/etc/temporal/schema/postgresql/v12/$schema/versioned"');
    expect(script).to.match(/temporal:temporal temporal_visibility:visibility/);

    const namespace = scriptOf(model.services['temporal-namespace'] as ComposeService);
    for (const attribute of CUSTOM_SEARCH_ATTRIBUTES) expect(namespace, attribute.name).to.include(attribute.name);
    expect(namespace).to.include('--type Keyword');
  });

  it('has health checks, a condition on every dependency and a restart policy on every service', () => {
    const health = (name: string) => (model.services[name]?.healthcheck?.test ?? []).join(' ');
    expect(health('postgres')).to.include('pg_isready');
    expect(health('temporal')).to.include('operator cluster health');
    expect(health('api')).to.include('http://127.0.0.1:3000/readyz');
    expect(health('worker')).to.include('http://127.0.0.1:9464/metrics');

    for (const [name, service] of Object.entries(model.services)) {
      for (const [dependency, { condition }] of Object.entries(service.depends_on ?? {})) {
        expect(model.services, `${name} depends on ${dependency}`).to.have.property(dependency);
        // A job must have finished well, a service must be healthy.
        const expected = JOBS.includes(dependency) ? 'service_completed_successfully' : 'service_healthy';
        expect(condition, `${name} → ${dependency}`).to.equal(expected);
      }
    }
    for (const name of ['api', 'worker']) {
      expect(model.services[name]?.depends_on, name).to.include.keys('migrate', 'temporal-namespace');
    }
    for (const name of SERVERS) expect(model.services[name]?.restart, name).to.be.oneOf(['unless-stopped', 'always']);
    for (const name of JOBS) expect(model.services[name]?.restart, name).to.equal('no');
    expect(Object.keys(model.services).sort()).to.deep.equal([...SERVERS, ...JOBS].sort());
  });

  it("builds the API, the worker and the migration job from this repository's one image", () => {
    for (const name of ['api', 'worker', 'webhook-worker', 'migrate']) {
      const service = model.services[name] as ComposeService;
      expect(service.build?.context, name).to.equal(ROOT);
      expect(service.image, name).to.equal('paycollect:local');
    }
    expect(model.services.worker?.command).to.deep.equal(['node', 'dist/src/worker.js']);
    // Payment work and webhook deliveries in separate processes (docs/webhooks.md#isolation).
    expect(model.services['webhook-worker']?.command).to.deep.equal(['node', 'dist/src/worker.js']);
    expect(model.services.worker?.environment).to.include({ WORKER_ROLE: 'payments' });
    expect(model.services['webhook-worker']?.environment).to.include({
      WORKER_ROLE: 'webhooks',
      HOST: '0.0.0.0',
      WORKER_METRICS_PORT: '9464',
    });
    expect(model.services.api?.command).to.deep.equal(['node', 'dist/src/server.js']);
    expect(model.services.migrate?.command).to.deep.equal(['node', 'dist/scripts/migrate.js']);
    // The worker's Prometheus endpoint listens on every interface of its container.
    expect(model.services.worker?.environment).to.include({ HOST: '0.0.0.0', WORKER_METRICS_PORT: '9464' });
    expect(model.services.api?.environment).to.include({ HOST: '0.0.0.0', PORT: '3000' });
    // Temporal and its UI are published on loopback only.
    for (const name of ['temporal', 'temporal-ui']) {
      for (const port of model.services[name]?.ports ?? []) expect(port.host_ip, name).to.equal('127.0.0.1');
    }
  });
});
