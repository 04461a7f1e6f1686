/**
 * Request schemas of payouts and payout destinations (docs/payouts.md). Unknown fields and bad values are refused
 * (400 naming the field); amounts are whole minor units.
 */
import { z } from '../../lib/zod';
import { trimmedText } from './fields';
import { CURRENCY_EXPONENTS, MAX_AMOUNT_MINOR } from '../../domain/money';
import { PAYOUT_SCHEDULES, PAYOUT_STATUSES } from '../../domain/payout';
import { PROVIDER_DESCRIPTORS } from '../../providers/descriptors';
import { createdBound, cursorPageFields } from './payments';

type NonEmpty<T> = [T, ...T[]];
/** The providers whose payout rails pay mobile-money wallets (docs/payouts.md#rails), from the descriptors. */
const walletRails = PROVIDER_DESCRIPTORS.filter((d) => d.payouts?.destination === 'mobile_money').map(
  (d) => d.code,
) as NonEmpty<(typeof PROVIDER_DESCRIPTORS)[number]['code']>;
const currencies = Object.keys(CURRENCY_EXPONENTS) as NonEmpty<keyof typeof CURRENCY_EXPONENTS>;
const environment = z
  .enum(['sandbox', 'live'])
  .optional()
  .openapi({ description: 'Which environment (a session token; an API key is bound to its own)' });

/** `POST /v1/payout_destinations`: a wallet by its E.164 number, or a bank account. */
export const createDestinationBody = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('mobile_money').openapi({ description: 'A mobile money wallet' }),
    phone_number: z.string().max(20).openapi({ example: '+250788000001', description: 'E.164' }),
    operator: z.enum(walletRails).optional().openapi({
      description:
        "The operator whose rail pays the wallet, overriding the prefix table: a ported number, or a wallet that claims no prefixes (Wave's)",
    }),
  }),
  z.strictObject({
    type: z.literal('bank_account').openapi({ description: 'A bank account' }),
    bank_code: z
      .string()
      .regex(/^[A-Z0-9]{2,11}$/, 'bank_code must be 2 to 11 capital letters or digits')
      .openapi({ example: 'BKIGRWRW', description: "The bank's code (SWIFT/BIC or its national code)" }),
    account_number: z
      .string()
      .regex(/^[0-9]{6,34}$/, 'account_number must be 6 to 34 digits')
      .openapi({ example: '00040000120001', description: 'The account number, digits only' }),
    account_holder_name: trimmedText(100).openapi({
      example: 'Kigali Crafts Ltd',
      description: "The account holder's name, as the bank has it",
    }),
  }),
]);

/** Query of the destination routes: only the session's `environment`. */
export const destinationQuery = z.strictObject({ environment });

/** `POST /v1/payouts`. */
export const createPayoutBody = z.strictObject({
  amount: z
    .number()
    .int()
    .min(1)
    .max(MAX_AMOUNT_MINOR)
    .openapi({ description: 'Minor units, more than 0; the balance must cover it plus the fee', example: 50_000 }),
  currency: z.enum(currencies).openapi({ description: "ISO 4217 code; the destination's rail must pay it" }),
  destination: z.string().min(1).max(64).openapi({ description: 'A destination id (`dst_…`)' }),
  description: z.string().max(500).optional().openapi({ description: 'Yours, returned as sent' }),
});

/** `GET /v1/payouts`: cursor pages like `/v1/payments`, filters by status, destination and creation time. */
export const listPayoutsQuery = z.strictObject({
  environment,
  ...cursorPageFields(
    'payouts',
    'A payout id (`po_…`): answer those created before it. Pass `pagination.next_starting_after`.',
    'po_3Lm5Np7Qr9St1Uv3Wx5Yz7Ab',
  ),
  status: z.enum(PAYOUT_STATUSES).optional().openapi({ description: 'Only payouts in this status' }),
  destination: z.string().min(1).max(64).optional().openapi({ description: 'Only payouts to this destination' }),
  'created[gte]': createdBound('created[gte]', 'Created at or after: Unix seconds or an ISO 8601 date-time'),
  'created[lte]': createdBound('created[lte]', 'Created at or before: Unix seconds or an ISO 8601 date-time'),
});

/** `PUT /v1/payout_schedule`: `daily` and `weekly` need a destination and a currency. */
export const payoutScheduleBody = z.strictObject({
  schedule: z.enum(PAYOUT_SCHEDULES).openapi({ description: '`manual`, `daily` or `weekly`' }),
  destination: z.string().min(1).max(64).optional().openapi({ description: 'The destination automatic payouts go to' }),
  currency: z.enum(currencies).optional().openapi({ description: 'The currency automatic payouts pay out' }),
  minimum: z
    .number()
    .int()
    .min(0)
    .max(MAX_AMOUNT_MINOR)
    .optional()
    .openapi({ description: 'Minor units kept in the balance (default 0)', example: 10_000 }),
});
