/**
 * Prometheus metrics of one API process (docs/api.md#health, docs/operations.md#metrics), with prom-client, kept
 * in-process but for the backlog, so that `/metrics` answers whatever PostgreSQL does:
 * - `paycollect_http_request_duration_seconds{method,route,status}`: every request, by route pattern;
 * - `paycollect_payment_requests_total{operation,family,environment,outcome}`: creates, cancels and
 *   refunds asked of this API, by what became of them;
 * - `paycollect_provider_callbacks_total{provider,outcome}`: provider callbacks received;
 * - `paycollect_event_streams_open`: event streams (`GET /v1/developer/events/stream`) open now;
 * - `paycollect_provider_status{provider,country,operation,environment}`: the status each provider, country and
 *   operation shows (0 operational, 1 degraded, 2 down; docs/availability.md#metric), read from PostgreSQL at each
 *   scrape and absent when it did not answer within 1 s;
 * - `paycollect_read_model_up`: 1 when a `select 1` reached PostgreSQL within 1 s at the last scrape;
 * - the backlog (docs/operations.md#backlog): `paycollect_webhook_deliveries_pending`,
 *   `paycollect_webhook_delivery_oldest_pending_seconds`, `paycollect_refunds_pending`,
 *   `paycollect_refund_oldest_pending_seconds`, `paycollect_payouts_pending`,
 *   `paycollect_payout_oldest_pending_seconds`, by environment, read from partial indexes at most
 *   every 15 s and absent when PostgreSQL did not answer within 1 s; and the open reconciliation exceptions
 *   `paycollect_reconciliation_exceptions{provider,kind}` read the same way;
 * - the process's own (`paycollect_api_process_…`, `paycollect_api_nodejs_…`).
 * What happens to a payment after the API (created, settled, provider calls, refunds, webhooks) is
 * counted by the worker on its own endpoint (src/activities/business-metrics.ts).
 */
import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { PROVIDER_KINDS } from '../domain/catalogue';
import { ENVIRONMENTS } from '../domain/environment';
import { STATUS_LEVEL } from '../domain/provider-health';
import type { Db } from '../db/knex';
import { openEventStreamCount } from '../services/event-stream';
import { databaseAnswers } from '../services/health-service';
import { answerWithin, BacklogReader, type Backlog, type BacklogFigure } from '../services/operations-service';
import { availabilityOf } from '../services/provider-health-service';
import { apiRouter } from './router';

/** The metrics of one API process. */
export interface Metrics {
  registry: Registry;
  /** Times and counts every request; mount first so it sees the final status. */
  middleware: Middleware;
  /** `GET /metrics` in the Prometheus text format. */
  routes: Router;
}

/** How long the scrape's `select 1` may take before the read model counts as down, in milliseconds. */
export const READ_MODEL_PROBE_TIMEOUT_MS = 1_000;

/**
 * What a payment request became: `accepted` (2xx), `replayed` (an idempotent replay, docs/payments.md#idempotency),
 * `refused` (4xx), `unavailable` (503), `error` (other 5xx).
 */
export type PaymentRequestOutcome = 'accepted' | 'replayed' | 'refused' | 'unavailable' | 'error';

/** Which payment operation a POST route is, by its pattern; undefined for the others. */
export function paymentOperationOf(
  method: string,
  route: string,
): { operation: 'create' | 'cancel' | 'refund'; family: 'generic' | 'merchant' | 'developer' } | undefined {
  if (method !== 'POST') return undefined;
  const pattern = route.replace(/\/+$/, '');
  const family = pattern.startsWith('/v1/api/merchants/')
    ? 'merchant'
    : pattern.startsWith('/v1/developer/')
      ? 'developer'
      : pattern.startsWith('/v1/payments')
        ? 'generic'
        : undefined;
  if (!family) return undefined;
  if (/\/payments$/.test(pattern)) return { operation: 'create', family };
  if (/\/payments\/:[a-z_]+\/cancel$/.test(pattern)) return { operation: 'cancel', family };
  if (/\/payments\/:[a-z_]+\/refunds?$/.test(pattern)) return { operation: 'refund', family };
  return undefined;
}

/** The outcome label of a finished request (see {@link PaymentRequestOutcome}). */
function outcomeOf(ctx: Context): PaymentRequestOutcome {
  if (ctx.status < 400) return ctx.response.get('Idempotent-Replayed') === 'true' ? 'replayed' : 'accepted';
  if (ctx.status < 500) return 'refused';
  return ctx.status === 503 ? 'unavailable' : 'error';
}

/**
 * Builds the registry, the middleware and the `/metrics` route.
 * @param db probed with `select 1` at each scrape for `paycollect_read_model_up`
 */
export function createMetrics(db: Db): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'paycollect_api_' });

  new Gauge({
    name: 'paycollect_read_model_up',
    help: '1 when this API reached PostgreSQL (select 1 within 1 s) at the last scrape, 0 when it could not',
    registers: [registry],
    async collect() {
      this.set((await databaseAnswers(db, READ_MODEL_PROBE_TIMEOUT_MS)) ? 1 : 0);
    },
  });

  const duration = new Histogram({
    name: 'paycollect_http_request_duration_seconds',
    help: 'HTTP request duration in seconds, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  const paymentRequests = new Counter({
    name: 'paycollect_payment_requests_total',
    help: 'Payment creates, cancels and refunds asked of this API, by operation, family, environment and outcome (accepted, replayed, refused, unavailable, error)',
    labelNames: ['operation', 'family', 'environment', 'outcome'],
    registers: [registry],
  });

  const providerCallbacks = new Counter({
    name: 'paycollect_provider_callbacks_total',
    help: 'Provider callbacks received, by provider and HTTP status',
    labelNames: ['provider', 'status'],
    registers: [registry],
  });

  const backlog = new BacklogReader(db);
  const backlogGauge = (
    name: string,
    help: string,
    figure: (backlog: Backlog) => BacklogFigure[],
    value: 'count' | 'oldestSeconds',
  ) =>
    new Gauge({
      name,
      help,
      labelNames: ['environment'],
      registers: [registry],
      async collect() {
        const read = await backlog.readWithin(READ_MODEL_PROBE_TIMEOUT_MS);
        this.reset();
        for (const row of read ? figure(read) : []) this.set({ environment: row.environment }, row[value]);
      },
    });
  // Each backlog answers two gauges: how many wait, and how long the oldest has waited.
  const backlogGauges: ReadonlyArray<{
    figure: Exclude<keyof Backlog, 'exceptions'>;
    count: [name: string, help: string];
    oldest: [name: string, help: string];
  }> = [
    {
      figure: 'deliveries',
      count: [
        'paycollect_webhook_deliveries_pending',
        'Webhook deliveries not yet succeeded or given up, by environment',
      ],
      oldest: [
        'paycollect_webhook_delivery_oldest_pending_seconds',
        'Age of the oldest pending webhook delivery, in seconds, by environment',
      ],
    },
    {
      figure: 'refunds',
      count: ['paycollect_refunds_pending', "Refunds waiting for their provider's final answer, by environment"],
      oldest: [
        'paycollect_refund_oldest_pending_seconds',
        'Age of the oldest pending refund, in seconds, by environment',
      ],
    },
    {
      figure: 'payouts',
      count: [
        'paycollect_payouts_pending',
        "Payouts pending or in transit (their rail's final answer not yet in), by environment",
      ],
      oldest: [
        'paycollect_payout_oldest_pending_seconds',
        'Age of the oldest payout pending or in transit, in seconds, by environment',
      ],
    },
  ];
  for (const { figure, count, oldest } of backlogGauges) {
    backlogGauge(...count, (b) => b[figure], 'count');
    backlogGauge(...oldest, (b) => b[figure], 'oldestSeconds');
  }

  new Gauge({
    name: 'paycollect_reconciliation_exceptions',
    help: 'Open reconciliation exceptions, by provider and kind (docs/reconciliation.md#exceptions)',
    labelNames: ['provider', 'kind'],
    registers: [registry],
    async collect() {
      const read = await backlog.readWithin(READ_MODEL_PROBE_TIMEOUT_MS);
      this.reset();
      for (const row of read?.exceptions ?? []) this.set({ provider: row.provider, kind: row.kind }, row.count);
    },
  });

  new Gauge({
    name: 'paycollect_provider_status',
    help: 'The status each provider, country and operation shows, by environment: 0 operational, 1 degraded, 2 down (docs/availability.md#statuses)',
    labelNames: ['provider', 'country', 'operation', 'environment'],
    registers: [registry],
    async collect() {
      // Read at each scrape from the one place every process shares: a worker's last measurement may be another's.
      const read = await answerWithin(
        Promise.all(
          ENVIRONMENTS.map(async (environment) =>
            (await availabilityOf(db, environment)).map((row) => ({ ...row, environment })),
          ),
        ),
        READ_MODEL_PROBE_TIMEOUT_MS,
      );
      this.reset();
      for (const row of read?.flat() ?? [])
        this.set(
          { provider: row.provider, country: row.country, operation: row.operation, environment: row.environment },
          STATUS_LEVEL[row.status],
        );
    },
  });

  new Gauge({
    name: 'paycollect_event_streams_open',
    help: 'Event streams (GET /v1/developer/events/stream) open in this process',
    registers: [registry],
    collect() {
      this.set(openEventStreamCount());
    },
  });

  const middleware: Middleware = async (ctx, next) => {
    const stop = duration.startTimer();
    try {
      await next();
    } finally {
      const route = String((ctx as unknown as { _matchedRoute?: string })._matchedRoute ?? 'unmatched');
      stop({ method: ctx.method, route, status: String(ctx.status) });
      const payment = paymentOperationOf(ctx.method, route);
      if (payment) {
        const environment = (ctx.state.owner as { environment?: string } | undefined)?.environment ?? 'unknown';
        paymentRequests.inc({ ...payment, environment, outcome: outcomeOf(ctx) });
      } else if (ctx.method === 'POST' && route === '/v1/provider-callbacks/:provider') {
        // The path parameter is the caller's: only known provider codes become label values.
        const named = (ctx as unknown as { params?: { provider?: string } }).params?.provider ?? '';
        providerCallbacks.inc({
          provider: Object.hasOwn(PROVIDER_KINDS, named) ? named : 'unknown',
          status: String(ctx.status),
        });
      }
    }
  };

  const routes = apiRouter();
  /** Prometheus text exposition of this process's metrics. */
  routes.get('/metrics', async (ctx) => {
    ctx.type = registry.contentType;
    ctx.body = await registry.metrics();
  });
  return { registry, middleware, routes };
}
