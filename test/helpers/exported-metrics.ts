/**
 * The names of every metric the code exports (docs/operations.md#metrics): the API's registry (built
 * without a scrape, so the database is never asked), the worker's business and retry metrics, and the
 * counters the workflows create. The Grafana dashboard and the alert rules may query only these.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BUSINESS_METRICS } from '../../src/activities/business-metrics';
import { ACTIVITY_GIVE_UPS_METRIC, ACTIVITY_RETRIES_METRIC } from '../../src/activities/retry-metrics';
import { createMetrics } from '../../src/api/metrics';
import type { Db } from '../../src/db/knex';

const ROOT = path.resolve(__dirname, '../..');

/** The counters the workflows create, by the names their files give. */
export function workflowMetricNames(): string[] {
  const dir = path.join(ROOT, 'src/workflows');
  const sources = fs
    .readdirSync(dir)
    .filter((file) => file.endsWith('.ts'))
    .map((file) => fs.readFileSync(path.join(dir, file), 'utf8'))
    .join('\n');
  return [...sources.matchAll(/createCounter\('(paycollect_[a-z_]+)'/g)].map((match) => match[1] as string);
}

/** Every exported metric name (histograms by their base name, without `_bucket|_count|_sum`). */
export function exportedMetricNames(): Set<string> {
  const api = createMetrics({} as Db)
    .registry.getMetricsAsArray()
    .map((metric) => metric.name);
  return new Set([
    ...Object.values(BUSINESS_METRICS),
    ACTIVITY_RETRIES_METRIC,
    ACTIVITY_GIVE_UPS_METRIC,
    ...workflowMetricNames(),
    ...api,
  ]);
}

/** The `paycollect_…` metric names an expression queries, histogram suffixes dropped. */
export function metricNamesIn(expression: string): string[] {
  return [...expression.matchAll(/\bpaycollect_[a-z_]+/g)].map((match) => match[0].replace(/_(bucket|count|sum)$/, ''));
}
