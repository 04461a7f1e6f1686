/**
 * Settlement reports of the caller's merchant and environment (docs/ledger.md#reports): per payout, the balance
 * transactions it covers; per UTC day, what moved the balance and what it opened and closed at.
 */
import type { Db } from '../db/knex';
import { findPayout } from '../db/payouts';
import { listPayoutReportLines, readDayReport } from '../db/settlement-reports';
import { orNotFound, validationError } from '../domain/errors';
import type { PayoutSnapshot } from '../domain/payout';
import type { Principal } from '../domain/principal';
import {
  dayReportInterval,
  dayTotals,
  payoutReport,
  type DayReport,
  type PayoutReport,
} from '../domain/settlement-report';
import { payoutBalanceTransaction } from '../views/payout';

/**
 * The report of the caller's payout `id` (docs/ledger.md#payout-report): its covered lines, the payout fee and the
 * balance carried, whose nets add up to the payout's amount.
 * @throws DomainError `not_found` (404) for an unknown id or another merchant's or environment's payout
 */
export async function getPayoutReport(
  deps: { db: Db },
  owner: Principal,
  id: string,
): Promise<{ payout: PayoutSnapshot } & PayoutReport> {
  const payout = orNotFound(await findPayout(deps.db, owner, id), 'payout', id);
  const covered = await listPayoutReportLines(deps.db, owner, payout.id);
  const report = payoutReport({ ...payout, balanceTransaction: payoutBalanceTransaction(payout.id) }, covered);
  return { payout, ...report };
}

/**
 * The report of UTC day `date` (`YYYY-MM-DD`) for the caller at `now` (docs/ledger.md#day-report): every balance
 * transaction created that day, oldest first, and per currency the day's sums with the balance owed at its start and
 * end (for today: now); with `currency` (an ISO 4217 code the API supports, checked by the route), that currency's
 * alone.
 * @throws DomainError `validation_error` (400) naming `date` for a malformed date, a day after today or one more than
 *   two years back
 */
export async function getDayReport(
  deps: { db: Db },
  owner: Principal,
  date: string,
  now = new Date(),
  currency?: string,
): Promise<DayReport> {
  const interval = dayReportInterval(date, now);
  if (!interval.ok) throw validationError([{ field: 'date', message: interval.message }]);
  const read = await readDayReport(deps.db, owner, interval.start, interval.end);
  const lines = currency === undefined ? read.lines : read.lines.filter((line) => line.currency === currency);
  const closing = currency === undefined ? read.closing : read.closing.filter((c) => c.currency === currency);
  return { date, currency, ...interval, currencies: dayTotals(lines, closing, currency), lines };
}
