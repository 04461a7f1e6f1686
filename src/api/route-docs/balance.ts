/**
 * The route docs of one feature (src/api/openapi.ts builds the document from every feature's): The balance, its
 * transactions and the settlement reports.
 */
import { z } from '../../lib/zod';
import { balanceQuery, listBalanceTransactionsQuery } from '../schemas/balance';
import { dayReportQuery, payoutReportQuery } from '../schemas/settlement-reports';
import * as out from '../../views';
import * as example from '../schemas/examples';
import { answer, cursorPageAnswer, ok, DASHBOARD_CREDENTIALS, DEVELOPER, type RouteDoc } from './shared';

/** The balance, its transactions and the settlement reports. */
export const balanceRouteDocs: RouteDoc[] = [
  {
    operationId: 'retrieveBalance',
    method: 'get',
    path: '/v1/balance',
    tag: 'Balance',
    summary: 'Retrieve your balance',
    description: `What you are owed per currency, in minor units: \`available\` (its \`available_on\` has passed), \`pending\` (not yet), and \`refund_reserved\`, what refunds still awaiting their provider hold (already taken from the balance). Fees are not returned on refunds, so a balance may be below zero. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: balanceQuery,
    success: answer('The balance', out.balance, 'Balance retrieved', example.balanceExample),
  },
  {
    operationId: 'listBalanceTransactions',
    method: 'get',
    path: '/v1/balance_transactions',
    tag: 'Balance',
    summary: 'List balance transactions',
    description: `Every movement of your balance, newest first: each collected payment (\`amount\`, \`fee\`, \`net\`), each refund when accepted (\`net\` = −amount), a refused refund's release (\`refund_failure\`), payouts and adjustments. Cursor pages as \`GET /v1/payments\`; filter by \`type\`, \`source\`, \`payout\`, \`created[gte|lte]\` and \`available_on[gte|lte]\`. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: listBalanceTransactionsQuery,
    success: cursorPageAnswer(
      'A page of balance transactions, newest first',
      'balance_transactions',
      out.balanceTransaction,
      'Your balance transactions, newest first',
      'Balance transactions retrieved',
      [example.refundBalanceTransaction, example.paymentBalanceTransaction],
      2,
    ),
    codes: [
      {
        code: 'validation_error',
        when: 'An unknown query field, an unknown `type`, a `limit` above 100, a malformed date, or a `starting_after` that is not one of yours. The message names the parameter.',
        message: 'type must be one of payment, refund, refund_failure, payout, payout_failure, adjustment',
        details: [
          {
            field: 'type',
            message: 'type must be one of payment, refund, refund_failure, payout, payout_failure, adjustment',
          },
        ],
      },
    ],
  },
  {
    operationId: 'retrieveBalanceTransaction',
    method: 'get',
    path: '/v1/balance_transactions/{id}',
    tag: 'Balance',
    summary: 'Retrieve a balance transaction',
    description: `One balance transaction; another merchant's id answers 404. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: balanceQuery,
    success: answer(
      'The balance transaction',
      out.balanceTransaction,
      'Balance transaction retrieved',
      example.paymentBalanceTransaction,
    ),
  },

  {
    operationId: 'retrieveDaySettlementReport',
    method: 'get',
    path: '/v1/balance/settlement_report',
    tag: 'Balance',
    summary: 'Retrieve a day’s settlement report',
    description: `Every balance transaction created on one UTC day (\`date\`, \`YYYY-MM-DD\`), oldest first, each with gross, fee and net, its payment, your description of it and its metadata; and per currency the day’s sums with what you were owed when it began and ended (\`opening_balance + net = closing_balance\`). Today gives the report so far (\`complete: false\`); a later day, or one more than 730 days back, is refused. \`format=csv\` answers a file to download (\`text/csv\`, UTF-8 with a byte-order mark, amounts as decimals in the currency’s unit, cells a spreadsheet would run as formulas prefixed with \`'\`), one \`payment_metadata[key]\` column per metadata key, and one section per currency: an \`opening_balance\` row, the currency’s lines, a \`total\` row and a \`closing_balance\` row, never a sum across currencies. \`currency\` narrows the report (JSON and CSV) to one currency. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: dayReportQuery,
    success: {
      status: 200,
      description: 'The day’s report (the envelope; with `format=csv`, the CSV file)',
      schema: out.envelope(out.daySettlementReport),
      example: ok('Settlement report retrieved', example.daySettlementReportExample),
      alternative: {
        contentType: 'text/csv',
        schema: z.string().openapi({
          description:
            'The report as CSV: a header row, then per currency its opening balance, its lines, their total and its closing balance',
        }),
        example: example.daySettlementReportCsvExample,
      },
    },
    codes: [
      {
        code: 'validation_error',
        when: 'A missing or malformed `date`, a day after today (UTC) or more than 730 days back, a `currency` the service does not take, a `format` other than `json` or `csv`, or an unknown query field. The message names the parameter.',
        message: 'date 2026-12-01 is in the future (UTC)',
        details: [{ field: 'date', message: 'date 2026-12-01 is in the future (UTC)' }],
      },
    ],
  },
  {
    operationId: 'retrievePayoutSettlementReport',
    method: 'get',
    path: '/v1/payouts/{id}/settlement_report',
    tag: 'Payouts',
    summary: 'Retrieve a payout’s settlement report',
    description: `What a payout comprised: the balance transactions it covers (payments, refunds, refused refunds, adjustments; an automatic payout covers what became available since the last one, a manual payout the balance transactions it drew on, first in first out), each with gross, fee and net, then its \`payout_fee\` line and, when not 0, a \`balance_carried\` line (balance it paid out that its lines do not itemize, or that stayed in your balance, such as the schedule’s minimum). The lines’ \`net\` adds up to the payout’s amount. \`format=csv\` answers a file to download, as the day report does. Another merchant’s payout answers 404. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: payoutReportQuery,
    success: {
      status: 200,
      description: 'The payout’s report (the envelope; with `format=csv`, the CSV file)',
      schema: out.envelope(out.payoutSettlementReport),
      example: ok('Settlement report retrieved', example.payoutSettlementReportExample),
      alternative: {
        contentType: 'text/csv',
        schema: z.string().openapi({ description: 'The lines as CSV: a header row, then one row per line' }),
        example: example.payoutSettlementReportCsvExample,
      },
    },
  },
];
