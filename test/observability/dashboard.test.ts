/**
 * The Grafana dashboard (ops/grafana/paycollect.json, docs/operations.md#metrics) queries only metrics the code
 * exports,
 * and every business metric of the worker has a panel.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { BUSINESS_METRICS } from '../../src/activities/business-metrics';
import { ACTIVITY_GIVE_UPS_METRIC, ACTIVITY_RETRIES_METRIC } from '../../src/activities/retry-metrics';
import { createMetrics } from '../../src/api/metrics';
import type { Db } from '../../src/db/knex';

const ROOT = path.resolve(__dirname, '../..');

interface Panel {
  type: string;
  title: string;
  targets?: { expr: string }[];
}

describe('the Grafana dashboard (docs/operations.md#metrics)', () => {
  const dashboard = JSON.parse(fs.readFileSync(path.join(ROOT, 'ops/grafana/paycollect.json'), 'utf8')) as {
    uid: string;
    panels: Panel[];
  };
  const expressions = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
  const used = new Set(
    expressions.flatMap((expr) =>
      [...expr.matchAll(/\bpaycollect_[a-z_]+/g)].map((match) => match[0].replace(/_(bucket|count|sum)$/, '')),
    ),
  );

  it('queries only metrics the worker and the API export', () => {
    // The API's registry, without a scrape (the database is never asked).
    const api = createMetrics({} as Db)
      .registry.getMetricsAsArray()
      .map((metric) => metric.name);
    // Counted inside the workflows, whose files name them.
    const workflowSources = ['payment-workflow.ts', 'webhook-delivery-workflow.ts']
      .map((file) => fs.readFileSync(path.join(ROOT, 'src/workflows', file), 'utf8'))
      .join('\n');
    const fromWorkflows = [...workflowSources.matchAll(/createCounter\('(paycollect_[a-z_]+)'/g)].map(
      (match) => match[1] as string,
    );
    const exported = new Set([
      ...Object.values(BUSINESS_METRICS),
      ACTIVITY_RETRIES_METRIC,
      ACTIVITY_GIVE_UPS_METRIC,
      ...fromWorkflows,
      ...api,
    ]);
    expect(fromWorkflows).to.include('paycollect_late_provider_answers');
    expect(used.size).to.be.greaterThan(10);
    expect([...used].filter((name) => !exported.has(name))).to.deep.equal([]);
  });

  it('has a panel for every business metric of the worker', () => {
    expect(Object.values(BUSINESS_METRICS).filter((name) => !used.has(name))).to.deep.equal([]);
    expect(dashboard.uid).to.equal('paycollect');
    for (const panel of dashboard.panels.filter((p) => p.type !== 'row'))
      expect(panel.targets?.length, panel.title).to.be.greaterThan(0);
  });
});
