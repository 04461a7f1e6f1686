/**
 * Request bodies of both payment families (docs/limits.md#amounts, docs/payments.md). Types and formats
 * only; the catalogue checks (currency per method, phone country) are in src/domain/create-payment.ts.
 */
import { z } from '../../lib/zod';
import { CURRENCY_EXPONENTS, MAX_AMOUNT_MINOR, MIN_AMOUNT_MINOR } from '../../domain/money';
import { GENERIC_CATALOGUE, MERCHANT_CATALOGUE, MOBILE_MONEY_OPERATORS } from '../../domain/catalogue';
import { PAYMENT_STATUSES, PENDING_REASONS } from '../../domain/payment';
import { countryCode } from './fields';

type NonEmpty<T> = [T, ...T[]];
const currencies = Object.keys(CURRENCY_EXPONENTS) as NonEmpty<keyof typeof CURRENCY_EXPONENTS>;
const genericMethods = Object.keys(GENERIC_CATALOGUE) as NonEmpty<keyof typeof GENERIC_CATALOGUE>;
const merchantMethods = Object.keys(MERCHANT_CATALOGUE) as NonEmpty<keyof typeof MERCHANT_CATALOGUE>;
const mobileMoneyOperators = [...MOBILE_MONEY_OPERATORS] as NonEmpty<(typeof MOBILE_MONEY_OPERATORS)[number]>;

/** The shortest `expires_in` a create accepts, in seconds (docs/payments.md#sandbox-scenarios). */
export const MIN_EXPIRES_IN_SECONDS = 60;

/** An amount in minor units, 1 … 10^12 (docs/limits.md#amounts). */
const minorAmount = z.number().int().min(MIN_AMOUNT_MINOR).max(MAX_AMOUNT_MINOR);
/** Free key/value pairs of strings, at most 50 keys. */
const metadata = z
  .record(z.string().min(1).max(40), z.string().max(500))
  .refine((value) => Object.keys(value).length <= 50, 'metadata must have at most 50 keys');
const reason = z.string().max(500);

/** The country of a customer's number written nationally, optional; `field` names it in the validation error. */
function nationalNumberCountry(field: string) {
  return countryCode(`${field} must be an ISO 3166-1 alpha-2 code such as KE`)
    .optional()
    .openapi({ description: "ISO 3166-1 alpha-2 country of a number written nationally (default: the currency's)" });
}

/** `POST /v1/payments`: `amount` is an integer of minor units (docs/limits.md#amounts). */
export const genericCreateBody = z.strictObject({
  amount: minorAmount.openapi({
    description: 'The amount in minor units of the currency (1500 RWF is `1500`, 15.00 KES is `1500`)',
  }),
  currency: z.enum(currencies).openapi({ description: 'ISO 4217 code' }),
  payment_method: z.enum(genericMethods).openapi({ description: 'How the customer pays' }),
  phone_number: z.string().min(1).max(32).optional().openapi({
    description:
      "Mobile money: the customer's number as people write it (`0788 000 001`, `+250 788-000-001`); stored in E.164",
  }),
  provider: z
    .enum(mobileMoneyOperators)
    .optional()
    .openapi({ description: 'Mobile money: the operator, when the number does not tell it' }),
  operator: z
    .enum(mobileMoneyOperators)
    .optional()
    .openapi({ description: 'Mobile money: the operator of a ported number, overriding the prefix table' }),
  country: nationalNumberCountry('country'),
  description: z.string().max(1000).optional().openapi({ description: 'Yours, shown on the dashboard and in lists' }),
  customer_email: z.email().max(254).optional().openapi({ description: "The customer's e-mail (card, bank transfer)" }),
  metadata: metadata.optional().openapi({ description: 'Your key-value pairs, at most 50, returned as sent' }),
  /**
   * Seconds until the payment expires (docs/payments.md#sandbox-scenarios): 60 up to the method's default expiry
   * (checked once the method is known).
   */
  expires_in: z
    .number()
    .int()
    .min(MIN_EXPIRES_IN_SECONDS, `expires_in must be at least ${MIN_EXPIRES_IN_SECONDS} seconds`)
    .optional()
    .openapi({ description: "Seconds until the payment expires, 60 up to the method's default" }),
});
/** The parsed generic create body. */
export type GenericCreateBody = z.infer<typeof genericCreateBody>;

/**
 * `POST /v1/api/merchants/{merchant_id}/payments`: `amount` is a decimal string with two decimals
 * (docs/limits.md#amounts).
 */
export const merchantCreateBody = z.strictObject({
  // Checked with the currency by parseDecimalAmount (domain/money.ts); the pattern shows the rule in the document.
  amount: z.string().max(20).openapi({
    pattern: '^(0|[1-9][0-9]{0,14})\\.[0-9]{2}$',
    example: '1500.00',
    description: "The amount as a decimal string with two decimals, in the currency's unit",
  }),
  currency: z.enum(currencies).openapi({ description: 'ISO 4217 code' }),
  payment_method: z.enum(merchantMethods).openapi({ description: 'The provider code the customer pays with' }),
  description: z.string().max(1000).optional().openapi({ description: 'Yours, shown on the dashboard and in lists' }),
  payment_method_data: z
    .strictObject({
      payment_method_types: z
        .array(z.literal('card'))
        .min(1)
        .optional()
        .openapi({ description: 'Card payments: `["card"]`' }),
      phone_number: z
        .string()
        .min(1)
        .max(32)
        .optional()
        .openapi({ description: "Mobile money: the customer's number" }),
      country: nationalNumberCountry('payment_method_data.country'),
      wallet_id: z
        .string()
        .regex(/^[A-Za-z0-9_-]{4,64}$/, 'payment_method_data.wallet_id must be 4–64 letters, digits, - or _')
        .optional()
        .openapi({ description: "Wallet payments: the customer's wallet id" }),
    })
    .optional()
    .openapi({ description: 'What the method needs to reach the customer' }),
});
/** The parsed merchant-scoped create body. */
export type MerchantCreateBody = z.infer<typeof merchantCreateBody>;

/** `POST /v1/payments/{id}/cancel` (docs/payments.md#cancel-and-refund): an optional reason. */
export const cancelBody = z.strictObject({
  reason: reason.optional().openapi({ description: 'Why you cancel; shown as `cancellation_reason`' }),
});

/**
 * `POST /v1/payments/{id}/refund` (docs/payments.md#cancel-and-refund): an optional amount in minor units (default the
 * whole rest) and reason.
 */
export const refundBody = z.strictObject({
  amount: minorAmount
    .optional()
    .openapi({ description: 'The amount to refund in minor units; default the whole refundable rest' }),
  reason: reason.optional().openapi({ description: 'Why you refund; kept on the refund' }),
});

/** The methods a payment can carry: both families' (a payment of either family is listed by `GET /v1/payments`). */
const allMethods = [
  ...genericMethods,
  ...merchantMethods.filter((method) => !(method in GENERIC_CATALOGUE)),
] as NonEmpty<string>;

/**
 * Unix seconds (digits only) or an ISO 8601 date-time with `Z` or an offset, as `created[gte]`/`created[lte]` take
 * them.
 */
const UNIX_SECONDS = /^\d{1,11}$/;

/**
 * `limit` (1–100, default 10) and `starting_after` (an id of the list) of a cursor page (docs/limits.md#lists).
 * @param items what the list holds, for the description of `limit`
 */
export function cursorPageFields(items: string, startingAfter: string, example: string) {
  return {
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(100)
      .default(10)
      .openapi({ description: `How many ${items} to answer, 1 to 100`, example: 10 }),
    starting_after: z.string().min(1).max(64).optional().openapi({ description: startingAfter, example }),
  };
}

/** A `created[…]` bound: Unix seconds or an ISO 8601 date-time. */
export function createdBound(name: string, description: string) {
  return z
    .string()
    .max(40)
    .refine((value) => UNIX_SECONDS.test(value) || z.iso.datetime({ offset: true }).safeParse(value).success, {
      message: `${name} must be Unix seconds (e.g. 1795000000) or an ISO 8601 date-time (e.g. 2026-11-24T10:00:00Z)`,
    })
    .optional()
    .openapi({ description, example: '1795000000' });
}

/**
 * `GET /v1/payments`: a page of at most `limit` payments (1–100, default 10), newest first, after
 * the payment `starting_after` (the last id of the previous page), filtered by `status`,
 * `pending_reason` (docs/payments.md#decision-time), `payment_method` and creation time. Unknown fields are refused
 * (400 naming them).
 */
export const listPaymentsQuery = z.strictObject({
  ...cursorPageFields(
    'payments',
    'A payment id (`pay_…`): answer the payments that come after it in the list, i.e. created before it. Pass `pagination.next_starting_after` of the previous page.',
    'pay_7Hc2WqN5xR8tLm3Kd9PzYb4V',
  ),
  status: z.enum(PAYMENT_STATUSES).optional().openapi({ description: 'Only payments in this status' }),
  pending_reason: z.enum(PENDING_REASONS).optional().openapi({
    description:
      'Only open payments waiting for this reason (`awaiting_customer`, `awaiting_provider`, `provider_unreachable`, `awaiting_callback`, `checking_with_provider`); final payments have none',
  }),
  payment_method: z.enum(allMethods).optional().openapi({ description: 'Only payments of this method' }),
  checkout_session: z.string().min(1).max(64).optional().openapi({
    description: 'Only the attempts of this checkout session (`cs_…`): the payments its page started',
    example: 'cs_4Nn6Pq8Rs0Tu2Vw4Xy6Za8Bc',
  }),
  'created[gte]': createdBound(
    'created[gte]',
    'Only payments created at or after this time: Unix seconds or an ISO 8601 date-time',
  ),
  'created[lte]': createdBound(
    'created[lte]',
    'Only payments created at or before this time: Unix seconds (the whole second counts) or an ISO 8601 date-time',
  ),
});
/** The parsed list query. */
export type ListPaymentsQuery = z.infer<typeof listPaymentsQuery>;

/**
 * The instant a `created[…]` bound names. Unix seconds name a whole second: as a lower bound its
 * start, as an upper bound its last millisecond (timestamps are stored to the millisecond), so
 * `created[lte]=1795000000` includes a payment created at 1795000000.500.
 * @param value a value {@link listPaymentsQuery} accepted
 */
export function createdBoundInstant(value: string, side: 'gte' | 'lte'): Date {
  if (UNIX_SECONDS.test(value)) return new Date(Number(value) * 1000 + (side === 'lte' ? 999 : 0));
  return new Date(value);
}
