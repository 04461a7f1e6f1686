/**
 * The API forms of settlement reports (docs/ledger.md#reports): JSON in minor units, and CSV with amounts as decimals
 * in the currency's own exponent (docs/ledger.md#csv).
 */
import { z } from '../lib/zod';
import { csvFile } from '../lib/csv';
import { BALANCE_TRANSACTION_TYPES } from '../domain/ledger';
import { formatMinorUnits } from '../domain/money';
import type { PayoutSnapshot } from '../domain/payout';
import {
  daySections,
  type DayReport,
  type DaySectionRow,
  type LineTotals,
  type PayoutReport,
  type ReportLine,
} from '../domain/settlement-report';
import { PAYOUT_STATUSES } from '../domain/payout';
import { timestamp } from './timestamp';
import { createdAt, currencyCode, nullableText, objectName } from './fields';

/** One line of a report. */
export const reportLine = z
  .object({
    balance_transaction: nullableText('The balance transaction (`txn_…`); null for a `balance_carried` line'),
    category: z.enum([...BALANCE_TRANSACTION_TYPES, 'payout_fee', 'balance_carried']).openapi({
      description:
        "The balance transaction's type; in a payout report also `payout_fee` (the payout's fee) and `balance_carried` (balance the payout paid out or left that its lines do not itemize)",
    }),
    source: z.string().openapi({ description: 'The payment, refund, payout or adjustment id' }),
    payment: nullableText('The payment a payment or refund line belongs to (`pay_…`); null otherwise'),
    created_at: timestamp.openapi({ description: 'When it was recorded (ISO 8601, UTC)' }),
    available_on: timestamp
      .nullable()
      .openapi({ description: "When its funds are available; null for a payout report's own lines" }),
    currency: currencyCode,
    gross: z.number().int().openapi({ description: 'Gross, minor units: negative for refunds and payouts' }),
    fee: z.number().int().openapi({ description: 'What we kept, minor units' }),
    net: z.number().int().openapi({ description: 'What your balance moved by, `gross − fee`, minor units' }),
    description: z.string().openapi({ description: 'What it is, in words' }),
    merchant_description: nullableText('Your own description of the payment (or payout), as sent; null when none'),
    payment_metadata: z
      .record(z.string(), z.string())
      .nullable()
      .openapi({ description: "The payment's metadata, as sent; null for lines without a payment" }),
  })
  .openapi('SettlementReportLine');

const totals = {
  count: z.number().int().openapi({ description: 'How many lines' }),
  gross: z.number().int().openapi({ description: 'Sum of the lines’ gross, minor units' }),
  fee: z.number().int().openapi({ description: 'Sum of the lines’ fees, minor units' }),
  net: z.number().int().openapi({ description: 'Sum of the lines’ net, minor units' }),
};

/** `GET /v1/payouts/{id}/settlement_report` (docs/ledger.md#payout-report). */
export const payoutSettlementReport = z
  .object({
    object: objectName('payout_settlement_report'),
    payout: z
      .object({
        id: z.string().openapi({ description: 'Payout id, `po_…`' }),
        amount: z.number().int().openapi({ description: 'Minor units sent to the destination' }),
        fee: z.number().int().openapi({ description: 'Payout fee, minor units' }),
        currency: currencyCode,
        status: z.enum(PAYOUT_STATUSES).openapi({ description: 'Its status now' }),
        automatic: z.boolean().openapi({
          description: 'Created by the payout schedule; false: created by a request (both itemize what they drew on)',
        }),
        arrival_date: timestamp.nullable().openapi({ description: 'When the provider paid it; null until then' }),
        created_at: createdAt,
      })
      .openapi({ description: 'The payout reported' }),
    activity: z
      .object(totals)
      .openapi({ description: 'The balance transactions it covers (payments, refunds, adjustments), summed' }),
    payout_fee: z.number().int().openapi({ description: 'The payout fee, minor units' }),
    balance_carried: z.number().int().openapi({
      description:
        'Minor units: above 0 when the payout paid out balance its lines do not itemize, below 0 when part of their net stayed in your balance. `activity.net − payout_fee + balance_carried = payout.amount`',
    }),
    lines: z.array(reportLine).openapi({
      description:
        'The covered balance transactions oldest first, then `payout_fee` and `balance_carried`: their `net` adds up to `payout.amount`',
    }),
  })
  .openapi('PayoutSettlementReport');

/** `GET /v1/balance/settlement_report` (docs/ledger.md#day-report). */
export const daySettlementReport = z
  .object({
    object: objectName('day_settlement_report'),
    date: z.string().openapi({ description: 'The UTC day, `YYYY-MM-DD`' }),
    environment: z.enum(['sandbox', 'live']).openapi({ description: 'The environment whose money this is' }),
    interval_start: timestamp.openapi({ description: 'The day’s start, inclusive (00:00 UTC)' }),
    interval_end: timestamp.openapi({ description: 'The day’s end, exclusive (00:00 UTC the next day)' }),
    complete: z
      .boolean()
      .openapi({ description: 'False for today: the day has not ended and its report may still grow' }),
    currencies: z
      .array(
        z.object({
          currency: currencyCode,
          opening_balance: z.number().int().openapi({
            description: 'What you were owed (available and pending) when the day began, minor units',
          }),
          ...totals,
          closing_balance: z.number().int().openapi({
            description: 'What you were owed when the day ended (for today: now), `opening_balance + net`',
          }),
        }),
      )
      .openapi({ description: 'Per currency you hold, sorted by code' }),
    lines: z.array(reportLine).openapi({ description: 'Every balance transaction created that day, oldest first' }),
  })
  .openapi('DaySettlementReport');

function toLineView(line: ReportLine): z.output<typeof reportLine> {
  return {
    balance_transaction: line.balanceTransaction,
    category: line.category,
    source: line.source,
    payment: line.payment,
    created_at: line.createdAt,
    available_on: line.availableOn,
    currency: line.currency,
    gross: line.gross,
    fee: line.fee,
    net: line.net,
    description: line.description,
    merchant_description: line.merchantDescription,
    payment_metadata: line.paymentMetadata,
  };
}

function toTotalsView(sums: LineTotals) {
  return { count: sums.count, gross: sums.gross, fee: sums.fee, net: sums.net };
}

/** The JSON form of a payout's report. */
export function toPayoutReportView(
  payout: PayoutSnapshot,
  report: PayoutReport,
): z.output<typeof payoutSettlementReport> {
  return {
    object: 'payout_settlement_report',
    payout: {
      id: payout.id,
      amount: payout.amount,
      fee: payout.fee,
      currency: payout.currency,
      status: payout.status,
      automatic: payout.automatic,
      arrival_date: payout.paidAt,
      created_at: payout.createdAt,
    },
    activity: toTotalsView(report.activity),
    payout_fee: report.payoutFee,
    balance_carried: report.balanceCarried,
    lines: report.lines.map(toLineView),
  };
}

/** The JSON form of a day's report in `environment`. */
export function toDayReportView(
  report: DayReport,
  environment: 'sandbox' | 'live',
): z.output<typeof daySettlementReport> {
  return {
    object: 'day_settlement_report',
    date: report.date,
    environment,
    interval_start: report.start.toISOString(),
    interval_end: report.end.toISOString(),
    complete: report.complete,
    currencies: report.currencies.map((c) => ({
      currency: c.currency,
      opening_balance: c.openingBalance,
      ...toTotalsView(c),
      closing_balance: c.closingBalance,
    })),
    lines: report.lines.map(toLineView),
  };
}

/** The CSV columns every report has, before one `payment_metadata[key]` column per metadata key. */
const CSV_COLUMNS = [
  'balance_transaction',
  'created_at',
  'available_on',
  'category',
  'source',
  'payment',
  'currency',
  'gross',
  'fee',
  'net',
  'description',
  'merchant_description',
] as const;

/** A row of a CSV: a report line, or a day section's own row (no balance transaction; gross and fee may be empty). */
type CsvLine = Omit<ReportLine, 'category' | 'gross' | 'fee'> & {
  category: ReportLine['category'] | Exclude<DaySectionRow['kind'], 'line'>;
  gross: number | null;
  fee: number | null;
};

/** The cells of one CSV row, {@link CSV_COLUMNS} then the metadata columns of `keys`; an empty cell for a null. */
function csvRow(line: CsvLine, keys: readonly string[]): string[] {
  return [
    line.balanceTransaction ?? '',
    line.createdAt,
    line.availableOn ?? '',
    line.category,
    line.source,
    line.payment ?? '',
    line.currency,
    line.gross === null ? '' : formatMinorUnits(line.gross, line.currency),
    line.fee === null ? '' : formatMinorUnits(line.fee, line.currency),
    formatMinorUnits(line.net, line.currency),
    line.description,
    line.merchantDescription ?? '',
    ...keys.map((key) => String(line.paymentMetadata?.[key] ?? '')),
  ];
}

/** The header of a CSV of `lines`: {@link CSV_COLUMNS}, then one `payment_metadata[key]` per key any line has. */
function csvHeader(lines: readonly ReportLine[]): { header: string[]; keys: string[] } {
  const keys = [...new Set(lines.flatMap((line) => Object.keys(line.paymentMetadata ?? {})))].sort();
  return { header: [...CSV_COLUMNS, ...keys.map((key) => `payment_metadata[${key}]`)], keys };
}

/**
 * The CSV file of a report's lines (docs/ledger.md#csv): one row per line in {@link CSV_COLUMNS}, amounts as decimal
 * strings in the currency's exponent (`1500` RWF, `15.00` KES), then, as Stripe's reports do, one
 * `payment_metadata[key]` column per metadata key any line has (sorted), empty where a line has none.
 */
export function reportCsv(lines: readonly ReportLine[]): string {
  const { header, keys } = csvHeader(lines);
  return csvFile(
    header,
    lines.map((line) => csvRow(line, keys)),
  );
}

/** The words of a day section's own rows (docs/ledger.md#csv). */
const SECTION_DESCRIPTIONS = {
  opening_balance: 'Owed to you when the day began (available and pending)',
  total: 'The day in this currency',
  closing_balance: 'Owed to you when the day ended (opening balance + the day’s net)',
} as const;

/**
 * The CSV file of a day's report (docs/ledger.md#csv): the columns of {@link reportCsv}, one section per currency
 * ({@link daySections}): an `opening_balance` row (its balance in `net`, gross and fee empty), the currency's lines, a
 * `total` row (`gross`, `fee`, `net` summed, the count in its description) and a `closing_balance` row (at the day's
 * end, or now for today). Amounts are never added across currencies.
 */
export function dayReportCsv(report: DayReport): string {
  const { header, keys } = csvHeader(report.lines);
  const rows = daySections(report).map((row) => {
    if (row.kind === 'line') return csvRow(row.line, keys);
    const { totals } = row;
    const at = {
      opening_balance: report.start.toISOString(),
      total: '',
      closing_balance: report.complete ? report.end.toISOString() : '',
    }[row.kind];
    const net = {
      opening_balance: totals.openingBalance,
      total: totals.net,
      closing_balance: totals.closingBalance,
    }[row.kind];
    const sums = row.kind === 'total' ? { gross: totals.gross, fee: totals.fee } : { gross: null, fee: null };
    const description =
      row.kind === 'total'
        ? `${SECTION_DESCRIPTIONS.total}: ${totals.count} line${totals.count === 1 ? '' : 's'}`
        : SECTION_DESCRIPTIONS[row.kind];
    return csvRow(
      {
        balanceTransaction: null,
        createdAt: at,
        availableOn: null,
        category: row.kind,
        source: '',
        payment: null,
        currency: totals.currency,
        ...sums,
        net,
        description,
        merchantDescription: null,
        paymentMetadata: null,
      },
      keys,
    );
  });
  return csvFile(header, rows);
}
