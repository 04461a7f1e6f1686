/**
 * Query of `GET /v1/balance_transactions` (docs/ledger.md#balance-transactions): cursor pages like `/v1/payments`,
 * filters by type, source, payout, creation and availability time. Unknown fields and bad values are refused (400
 * naming the parameter).
 */
import { z } from '../../lib/zod';
import { BALANCE_TRANSACTION_TYPES } from '../../domain/ledger';
import { createdBound, cursorPageFields } from './payments';

/** `?environment=` of a session token (docs/api.md#credentials). */
const environment = z.enum(['sandbox', 'live']).optional();

/** `GET /v1/balance`: only the session's `environment`. */
export const balanceQuery = z.strictObject({ environment });

/** `GET /v1/balance_transactions`. */
export const listBalanceTransactionsQuery = z.strictObject({
  environment,
  ...cursorPageFields(
    'balance transactions',
    'A balance transaction id (`txn_…`): answer those created before it. Pass `pagination.next_starting_after`.',
    'txn_2Kp4Rt6Vx8Zb0Dc2Fe4Hg6Jk',
  ),
  type: z.enum(BALANCE_TRANSACTION_TYPES).optional().openapi({ description: 'Only balance transactions of this type' }),
  source: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .openapi({ description: 'Only those of this payment, refund or payout id' }),
  payout: z.string().min(1).max(64).optional().openapi({ description: 'Only those a payout (`po_…`) covers' }),
  'created[gte]': createdBound('created[gte]', 'Created at or after: Unix seconds or an ISO 8601 date-time'),
  'created[lte]': createdBound('created[lte]', 'Created at or before: Unix seconds or an ISO 8601 date-time'),
  'available_on[gte]': createdBound('available_on[gte]', 'Available at or after: Unix seconds or ISO 8601'),
  'available_on[lte]': createdBound('available_on[lte]', 'Available at or before: Unix seconds or ISO 8601'),
});
