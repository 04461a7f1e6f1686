/**
 * Settlement reports (docs/ledger.md#reports): `GET /v1/payouts/{id}/settlement_report` and
 * `GET /v1/balance/settlement_report?date=`, for a secret key (its environment) or a session token (`?environment=`),
 * answered as the envelope (`?format=json`, the default) or as a CSV file (`?format=csv`).
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Config } from '../../config';
import type { Db } from '../../db/knex';
import type { ReportLine } from '../../domain/settlement-report';
import { getDayReport, getPayoutReport } from '../../services/settlement-report-service';
import { reportCsv, toDayReportView, toPayoutReportView } from '../../views/settlement-report';
import { respond } from '../envelope';
import { principalOf, sessionOrSecretKey } from '../middleware/auth';
import { apiRouter } from '../router';
import { dayReportQuery, payoutReportQuery } from '../schemas/settlement-reports';
import { parseOrThrow } from '../schemas/validate';

/** Answers `lines` as a CSV download named `filename` (docs/ledger.md#csv). */
function sendCsv(ctx: Context, filename: string, lines: readonly ReportLine[]): void {
  ctx.status = 200;
  ctx.type = 'text/csv; charset=utf-8';
  ctx.attachment(filename, { type: 'attachment' });
  ctx.body = reportCsv(lines);
}

/** Settlement report routes under `/v1`. */
export function settlementReportRoutes(deps: { db: Db; config: Pick<Config, 'JWT_SECRET'> }): Router {
  const router = apiRouter('/v1');
  const auth = sessionOrSecretKey(deps.db, deps.config.JWT_SECRET);

  /**
   * A payout's report (docs/ledger.md#payout-report) → 200 envelope with the lines it covers, its fee and the
   * balance carried (nets adding up to its amount), or with `format=csv` the lines as `settlement-report-{po_id}.csv`.
   * Errors: 400 `validation_error` naming an unknown field or a bad `format`; 401; 404 an unknown or foreign payout.
   */
  router.get('/payouts/:id/settlement_report', auth, async (ctx) => {
    const query = parseOrThrow(payoutReportQuery, ctx.query);
    const { payout, ...report } = await getPayoutReport(deps, principalOf(ctx), ctx.params.id as string);
    if (query.format === 'csv') return sendCsv(ctx, `settlement-report-${payout.id}.csv`, report.lines);
    respond(ctx, 200, 'Settlement report retrieved', toPayoutReportView(payout, report));
  });

  /**
   * A UTC day's report (docs/ledger.md#day-report) → 200 envelope with its lines and, per currency, its sums and the
   * balance it opened and closed at, or with `format=csv` the lines as
   * `settlement-report-{environment}-{date}.csv`. Errors: 400 `validation_error` naming `date` (missing, malformed,
   * after today, more than 730 days back), a bad `format` or an unknown field; 401.
   */
  router.get('/balance/settlement_report', auth, async (ctx) => {
    const query = parseOrThrow(dayReportQuery, ctx.query);
    const owner = principalOf(ctx);
    const report = await getDayReport(deps, owner, query.date);
    if (query.format === 'csv')
      return sendCsv(ctx, `settlement-report-${owner.environment}-${report.date}.csv`, report.lines);
    respond(ctx, 200, 'Settlement report retrieved', toDayReportView(report, owner.environment));
  });

  return router;
}
