/**
 * Settlement reports (docs/ledger.md#reports): `GET /v1/payouts/{id}/settlement_report` and
 * `GET /v1/balance/settlement_report?date=`, for a secret key (its environment) or a session token (`?environment=`),
 * answered as the envelope (`?format=json`, the default) or as a CSV file (`?format=csv`).
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Config } from '../../config';
import type { Db } from '../../db/knex';
import { getDayReport, getPayoutReport } from '../../services/settlement-report-service';
import { dayReportCsv, reportCsv, toDayReportView, toPayoutReportView } from '../../views/settlement-report';
import { respond } from '../envelope';
import { principalOf, sessionOrSecretKey } from '../middleware/auth';
import { apiRouter } from '../router';
import { dayReportQuery, payoutReportQuery } from '../schemas/settlement-reports';
import { parseOrThrow } from '../schemas/validate';

/** Answers `csv` (a whole CSV file) as a download named `filename` (docs/ledger.md#csv). */
function sendCsv(ctx: Context, filename: string, csv: string): void {
  ctx.status = 200;
  ctx.type = 'text/csv; charset=utf-8';
  ctx.attachment(filename, { type: 'attachment' });
  ctx.body = csv;
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
    if (query.format === 'csv') return sendCsv(ctx, `settlement-report-${payout.id}.csv`, reportCsv(report.lines));
    respond(ctx, 200, 'Settlement report retrieved', toPayoutReportView(payout, report));
  });

  /**
   * A UTC day's report (docs/ledger.md#day-report) → 200 envelope with its lines and, per currency, its sums and the
   * balance it opened and closed at (with `currency`, that currency's alone), or with `format=csv` one section per
   * currency (opening balance, lines, total, closing balance; docs/ledger.md#csv) as
   * `settlement-report-{environment}-{date}[-{currency}].csv`. Errors: 400 `validation_error` naming `date` (missing,
   * malformed, after today, more than 730 days back), `currency` (not a currency the service takes), a bad `format`
   * or an unknown field; 401.
   */
  router.get('/balance/settlement_report', auth, async (ctx) => {
    const query = parseOrThrow(dayReportQuery, ctx.query);
    const owner = principalOf(ctx);
    const report = await getDayReport(deps, owner, query.date, new Date(), query.currency);
    const suffix = query.currency ? `-${query.currency}` : '';
    if (query.format === 'csv')
      return sendCsv(ctx, `settlement-report-${owner.environment}-${report.date}${suffix}.csv`, dayReportCsv(report));
    respond(ctx, 200, 'Settlement report retrieved', toDayReportView(report, owner.environment));
  });

  return router;
}
