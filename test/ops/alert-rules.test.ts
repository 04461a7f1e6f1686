/**
 * The alert rules (ops/prometheus/paycollect-rules.yml, docs/operations.md#alerts): promtool finds
 * them valid and their unit tests pass (each alert fires on its situation and not on a healthy
 * series), they query only metrics the code exports, and each names a runbook that exists.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { PROMTOOL_PATH } from '../../scripts/lib/promtool';
import { exportedMetricNames, metricNamesIn } from '../helpers/exported-metrics';

const DIR = path.resolve(__dirname, '../../ops/prometheus');

/** Runs promtool in ops/prometheus and returns its exit status and output. */
function promtool(...args: string[]): { status: number | null; output: string } {
  const run = spawnSync(PROMTOOL_PATH, args, { cwd: DIR, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('alert rules (docs/operations.md#alerts)', function () {
  this.timeout(60_000);
  const rules = fs.readFileSync(path.join(DIR, 'paycollect-rules.yml'), 'utf8');

  it('are valid and pass their unit tests with promtool', () => {
    const checked = promtool('check', 'rules', 'paycollect-rules.yml');
    expect(checked.status, checked.output).to.equal(0);
    expect(checked.output).to.match(/SUCCESS: 13 rules found/);
    const config = promtool('check', 'config', 'prometheus.yml');
    expect(config.status, config.output).to.equal(0);
    const tested = promtool('test', 'rules', 'paycollect-rules.test.yml');
    expect(tested.status, tested.output).to.equal(0);
  });

  it('fail their unit tests when a rule stops firing (the tests can fail)', () => {
    const broken = fs.mkdtempSync(path.join(DIR, '.broken-'));
    try {
      fs.writeFileSync(
        path.join(broken, 'paycollect-rules.yml'),
        rules.replace('max by (environment) (paycollect_refund_oldest_pending_seconds) > 6 * 3600', 'vector(0) > 1'),
      );
      fs.copyFileSync(path.join(DIR, 'paycollect-rules.test.yml'), path.join(broken, 'paycollect-rules.test.yml'));
      const run = spawnSync(PROMTOOL_PATH, ['test', 'rules', 'paycollect-rules.test.yml'], {
        cwd: broken,
        encoding: 'utf8',
      });
      expect(run.status).to.equal(1);
      expect(run.stdout + run.stderr).to.include('PaycollectRefundsStuckPending');
    } finally {
      fs.rmSync(broken, { recursive: true, force: true });
    }
  });

  it('query only exported metrics and name runbooks that exist in docs/operations.md', () => {
    const exported = exportedMetricNames();
    const used = new Set(metricNamesIn(rules));
    expect(used.size).to.be.at.least(8);
    expect([...used].filter((name) => !exported.has(name))).to.deep.equal([]);
    const operations = fs.readFileSync(path.resolve(__dirname, '../../docs/operations.md'), 'utf8');
    const anchors = new Set(
      [...operations.matchAll(/^#+ (.+)$/gm)].map((match) =>
        (match[1] as string)
          .toLowerCase()
          .replace(/[^a-z0-9 -]/g, '')
          .replace(/ /g, '-'),
      ),
    );
    const runbooks = [...rules.matchAll(/runbook: docs\/operations\.md#([a-z0-9-]+)/g)].map((m) => m[1] as string);
    expect(runbooks).to.have.length(13);
    expect(runbooks.filter((anchor) => !anchors.has(anchor))).to.deep.equal([]);
  });
});
