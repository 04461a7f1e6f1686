/**
 * Prometheus metrics (D53) with prom-client: request durations by route and status, and gauges of
 * payments by status and method and webhook deliveries by outcome, read from the
 * read model at scrape time, so every API process reports the same business figures. The worker
 * serves the Temporal SDK's own metrics on its own port (WORKER_METRICS_PORT).
 */
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { countPaymentsByStatusAndMethod, countWebhookDeliveriesByStatus } from '../db/metrics';
import type { Db } from '../db/knex';

/** The metrics of one API process. */
export interface Metrics {
  registry: Registry;
  /** Times every request; mount first so it sees the final status. */
  middleware: Middleware;
  /** `GET /metrics` in the Prometheus text format. */
  routes: Router;
}

/** Builds the registry, the timing middleware and the `/metrics` route. */
export function createMetrics(db: Db): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'paycollect_api_' });

  const readModelUp = new Gauge({
    name: 'paycollect_read_model_up',
    help: '1 when the last scrape could read the read model (PostgreSQL), 0 when it could not',
    registers: [registry],
  });

  /** The read model's figures, or none when PostgreSQL cannot be read: `/metrics` answers either way (D70). */
  async function readModel<T>(read: () => Promise<T[]>): Promise<T[]> {
    try {
      const rows = await read();
      readModelUp.set(1);
      return rows;
    } catch {
      readModelUp.set(0);
      return [];
    }
  }

  const duration = new Histogram({
    name: 'paycollect_http_request_duration_seconds',
    help: 'HTTP request duration in seconds, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  new Gauge({
    name: 'paycollect_payments',
    help: 'Payments in the read model, by environment, status and payment method',
    labelNames: ['environment', 'status', 'method'],
    registers: [registry],
    async collect() {
      this.reset();
      const rows = await readModel(() => countPaymentsByStatusAndMethod(db));
      for (const row of rows) this.set({ environment: row.environment, status: row.status, method: row.method }, row.count);
    },
  });

  new Gauge({
    name: 'paycollect_webhook_deliveries',
    help: 'Webhook deliveries, by environment and outcome (pending, succeeded, failed, cancelled)',
    labelNames: ['environment', 'outcome'],
    registers: [registry],
    async collect() {
      this.reset();
      const rows = await readModel(() => countWebhookDeliveriesByStatus(db));
      for (const row of rows) this.set({ environment: row.environment, outcome: row.status }, row.count);
    },
  });

  const middleware: Middleware = async (ctx, next) => {
    const stop = duration.startTimer();
    try {
      await next();
    } finally {
      const route = (ctx as unknown as { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
      stop({ method: ctx.method, route: String(route), status: String(ctx.status) });
    }
  };

  const routes = new Router();
  /** Prometheus text exposition of this process's metrics. */
  routes.get('/metrics', async (ctx) => {
    ctx.type = registry.contentType;
    ctx.body = await registry.metrics();
  });
  return { registry, middleware, routes };
}
