/**
 * Queries of the settlement reports (docs/ledger.md#reports): the format, and the day of a day report. Unknown fields
 * and bad values are refused (400 naming the parameter).
 */
import { z } from '../../lib/zod';
import { currencyFilter } from './fields';

/** `?environment=` of a session token (docs/api.md#credentials). */
const environment = z
  .enum(['sandbox', 'live'])
  .optional()
  .openapi({ description: "Which environment's money (a session token; an API key is bound to its own)" });

/** `?format=`: the report as the JSON envelope (default) or as a CSV file to download. */
const format = z.enum(['json', 'csv']).default('json').openapi({
  description:
    '`json` (default): the envelope, amounts in minor units. `csv`: a file to download (`text/csv`, UTF-8), amounts as decimals in the currency’s unit',
});

/** `GET /v1/payouts/{id}/settlement_report`. */
export const payoutReportQuery = z.strictObject({ environment, format });

/** `GET /v1/balance/settlement_report`. */
export const dayReportQuery = z.strictObject({
  environment,
  format,
  currency: currencyFilter.openapi({
    description:
      'One currency (ISO 4217, upper case): its section alone. Default: every currency you hold, each in its own section',
  }),
  date: z.string().max(10).openapi({
    description: 'The UTC day, `YYYY-MM-DD`: today at the latest (its report so far), at most 730 days back',
    example: '2026-11-24',
  }),
});
