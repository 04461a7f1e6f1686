/**
 * The Grafana dashboard (ops/grafana/paycollect.json, docs/operations.md#metrics) queries only metrics the code
 * exports,
 * and every business metric of the worker has a panel.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { BUSINESS_METRICS } from '../../src/activities/business-metrics';
import { exportedMetricNames, metricNamesIn, workflowMetricNames } from '../helpers/exported-metrics';

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
  const used = new Set(expressions.flatMap(metricNamesIn));

  it('queries only metrics the worker and the API export', () => {
    const exported = exportedMetricNames();
    expect(workflowMetricNames()).to.include('paycollect_late_provider_answers');
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
