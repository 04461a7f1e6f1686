/**
 * Settlement reports (docs/ledger.md#reports): what a payout comprised, line by line, so that its lines add up to the
 * payout's amount, and what a UTC day moved, per currency, with the balance it opened and closed at. Pure: the lines
 * come from src/db/settlement-reports.ts. Amounts are integer minor units throughout.
 */
import type { BalanceTransactionType } from './ledger';

/**
 * What a report line is: a balance transaction's type, or one of the payout report's two lines that are not a
 * balance transaction of their own (docs/ledger.md#payout-report).
 */
export type ReportCategory = BalanceTransactionType | 'payout_fee' | 'balance_carried';

/** One line of a report: gross, fee and net in minor units (net = gross − fee). */
export interface ReportLine {
  /** The balance transaction (`txn_…`); null for a `balance_carried` line. */
  balanceTransaction: string | null;
  category: ReportCategory;
  /** The payment, refund, payout or adjustment id. */
  source: string;
  /** The payment a payment or refund line belongs to; null otherwise. */
  payment: string | null;
  /** ISO 8601, UTC. */
  createdAt: string;
  /** ISO 8601, UTC; null for the payout report's own lines. */
  availableOn: string | null;
  currency: string;
  gross: number;
  fee: number;
  net: number;
  /** The balance transaction's description, in words. */
  description: string;
  /** The merchant's own description of the payment (or payout); null when none. */
  merchantDescription: string | null;
  /** The payment's metadata, as the merchant sent it; null for lines without a payment. */
  paymentMetadata: Record<string, string> | null;
}

/** Sums of a set of lines, minor units. */
export interface LineTotals {
  count: number;
  gross: number;
  fee: number;
  net: number;
}

/** The sums of `lines` (all of one currency). */
export function lineTotals(lines: readonly Pick<ReportLine, 'gross' | 'fee' | 'net'>[]): LineTotals {
  return lines.reduce<LineTotals>(
    (sum, line) => ({
      count: sum.count + 1,
      gross: sum.gross + line.gross,
      fee: sum.fee + line.fee,
      net: sum.net + line.net,
    }),
    { count: 0, gross: 0, fee: 0, net: 0 },
  );
}

/** What the payout report needs of its payout. */
export interface ReportedPayout {
  id: string;
  amount: number;
  fee: number;
  currency: string;
  createdAt: string;
  description: string | null;
  /** Its reservation's balance transaction, which carries the payout fee. */
  balanceTransaction: string;
}

/** A payout's report: its lines and what they add up to (docs/ledger.md#payout-report). */
export interface PayoutReport {
  /** The covered activity, then the payout fee, then the balance carried when it is not 0. */
  lines: ReportLine[];
  /** The covered balance transactions alone (payments, refunds, refusals, adjustments). */
  activity: LineTotals;
  payoutFee: number;
  /**
   * `amount + fee − activity.net`: above 0 when the payout paid out balance its lines do not itemize (what an
   * earlier payout drew on only in part), below 0 when part of the lines' net stayed in the balance (the schedule's
   * minimum, what the fee's rounding leaves, the part of a manual payout's last line it did not draw on).
   */
  balanceCarried: number;
}

/**
 * The report of `payout` from the balance transactions it covers (docs/ledger.md#payout-report). Its own
 * transactions (reservation, give-back) are not activity: the fee appears as its own line. The lines' nets add up to
 * the payout's amount exactly: activity − payout fee + balance carried = amount.
 * @param covered the balance transactions whose `payout_id` is the payout, oldest first, all in its currency
 */
export function payoutReport(payout: ReportedPayout, covered: readonly ReportLine[]): PayoutReport {
  const activityLines = covered.filter((line) => line.source !== payout.id);
  const activity = lineTotals(activityLines);
  const balanceCarried = payout.amount + payout.fee - activity.net;
  const own = { source: payout.id, payment: null, createdAt: payout.createdAt, availableOn: null };
  const lines: ReportLine[] = [
    ...activityLines,
    {
      ...own,
      balanceTransaction: payout.balanceTransaction,
      category: 'payout_fee',
      currency: payout.currency,
      gross: 0,
      fee: payout.fee,
      net: -payout.fee,
      description: `Payout fee of ${payout.id}`,
      merchantDescription: payout.description,
      paymentMetadata: null,
    },
  ];
  if (balanceCarried !== 0)
    lines.push({
      ...own,
      balanceTransaction: null,
      category: 'balance_carried',
      currency: payout.currency,
      gross: balanceCarried,
      fee: 0,
      net: balanceCarried,
      description:
        balanceCarried > 0
          ? 'Paid out from your balance before these lines (not itemized in this payout)'
          : 'Kept in your balance (the payout schedule minimum, what the fee rounding leaves, or what a manual payout did not draw of its last line)',
      merchantDescription: null,
      paymentMetadata: null,
    });
  return { lines, activity, payoutFee: payout.fee, balanceCarried };
}

/** A day report's figures for one currency, minor units (docs/ledger.md#day-report). */
export interface DayCurrencyTotals extends LineTotals {
  currency: string;
  /** What the merchant was owed (available and pending) when the day began. */
  openingBalance: number;
  /** What the merchant was owed when the day ended (or now, for today): opening + net. */
  closingBalance: number;
}

/**
 * Per currency, the day's sums with the balance it opened and closed at, from the day's lines and the balance owed at
 * the day's end (docs/ledger.md#day-report). Every currency of `closing` or `lines` appears, sorted by code; with
 * `only`, that one currency alone (with zeros when the merchant holds none of it).
 * @param closing what the merchant was owed per currency at the day's end, minor units
 */
export function dayTotals(
  lines: readonly ReportLine[],
  closing: readonly { currency: string; amount: number }[],
  only?: string,
): DayCurrencyTotals[] {
  const held = [...new Set([...closing.map((c) => c.currency), ...lines.map((l) => l.currency)])].sort();
  const currencies = only === undefined ? held : [only];
  return currencies.map((currency) => {
    const totals = lineTotals(lines.filter((line) => line.currency === currency));
    const closingBalance = closing.find((c) => c.currency === currency)?.amount ?? 0;
    return { currency, ...totals, openingBalance: closingBalance - totals.net, closingBalance };
  });
}

/** A day report (docs/ledger.md#day-report). */
export interface DayReport {
  /** `YYYY-MM-DD`, UTC. */
  date: string;
  /** The one currency asked for (`?currency=`); undefined: every currency the merchant holds. */
  currency?: string;
  start: Date;
  end: Date;
  /** False for today: the day has not ended and its report may still grow. */
  complete: boolean;
  currencies: DayCurrencyTotals[];
  lines: ReportLine[];
}

/** What a row of a day report's CSV is: one of its lines, or one of the three rows each currency's section adds. */
export type DaySectionRow =
  | { kind: 'line'; line: ReportLine }
  | { kind: 'opening_balance' | 'total' | 'closing_balance'; totals: DayCurrencyTotals };

/**
 * A day report as sections, one per currency sorted by code (docs/ledger.md#csv): its `opening_balance` row, its
 * lines oldest first, its `total` row (the lines' count and sums) and its `closing_balance` row, so that within a
 * section opening + total net = closing and no figure is added across currencies.
 */
export function daySections(report: Pick<DayReport, 'currencies' | 'lines'>): DaySectionRow[] {
  return report.currencies.flatMap((totals): DaySectionRow[] => [
    { kind: 'opening_balance', totals },
    ...report.lines
      .filter((line) => line.currency === totals.currency)
      .map((line): DaySectionRow => ({ kind: 'line', line })),
    { kind: 'total', totals },
    { kind: 'closing_balance', totals },
  ]);
}

/** The oldest day a day report covers, in days before today (UTC): two years, a full previous fiscal year any time. */
export const DAY_REPORT_MAX_AGE_DAYS = 730;

const DAY_MS = 86_400_000;

/**
 * The UTC interval of `date` (`YYYY-MM-DD`) for a day report at `now`, or the problem with it
 * (docs/ledger.md#day-report): a day after today, or more than {@link DAY_REPORT_MAX_AGE_DAYS} days before it, is
 * refused.
 * @returns `[start, end)`, and whether the day has ended (`complete`)
 */
export function dayReportInterval(
  date: string,
  now: Date,
): { ok: true; start: Date; end: Date; complete: boolean } | { ok: false; message: string } {
  const start = new Date(`${date}T00:00:00.000Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(start.getTime()) || start.toISOString().slice(0, 10) !== date)
    return { ok: false, message: 'date must be a calendar date, YYYY-MM-DD (UTC)' };
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  if (start.getTime() > today) return { ok: false, message: `date ${date} is in the future (UTC)` };
  if (start.getTime() < today - DAY_REPORT_MAX_AGE_DAYS * DAY_MS)
    return { ok: false, message: `date must be within the last ${DAY_REPORT_MAX_AGE_DAYS} days` };
  const end = new Date(start.getTime() + DAY_MS);
  return { ok: true, start, end, complete: end.getTime() <= now.getTime() };
}
