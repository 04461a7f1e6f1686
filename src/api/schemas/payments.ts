/**
 * Request bodies of both payment families (interface.md; D5, D6, D10, D12). Types and formats
 * only; the catalogue checks (currency per method, phone country) are in src/domain/create-payment.ts.
 */
import { z } from '../../lib/zod';
import { CURRENCY_EXPONENTS, MAX_AMOUNT_MINOR, MIN_AMOUNT_MINOR } from '../../domain/money';
import { GENERIC_CATALOGUE, MERCHANT_CATALOGUE } from '../../domain/catalogue';

type NonEmpty<T> = [T, ...T[]];
const currencies = Object.keys(CURRENCY_EXPONENTS) as NonEmpty<keyof typeof CURRENCY_EXPONENTS>;
const genericMethods = Object.keys(GENERIC_CATALOGUE) as NonEmpty<keyof typeof GENERIC_CATALOGUE>;
const merchantMethods = Object.keys(MERCHANT_CATALOGUE) as NonEmpty<keyof typeof MERCHANT_CATALOGUE>;

/** The shortest `expires_in` a create accepts, in seconds (D14). */
export const MIN_EXPIRES_IN_SECONDS = 60;

/** An amount in minor units, 1 … 10^12 (D5). */
const minorAmount = z.number().int().min(MIN_AMOUNT_MINOR).max(MAX_AMOUNT_MINOR);
/** Free key/value pairs of strings, at most 50 keys. */
const metadata = z.record(z.string().min(1).max(40), z.string().max(500)).refine((value) => Object.keys(value).length <= 50, 'metadata must have at most 50 keys');
const reason = z.string().max(500);

/** `POST /v1/payments`: `amount` is an integer of minor units (D5). */
export const genericCreateBody = z.strictObject({
  amount: minorAmount,
  currency: z.enum(currencies),
  payment_method: z.enum(genericMethods),
  phone_number: z.string().min(1).max(32).optional(),
  provider: z.enum(['momo', 'mobile_money_b']).optional(),
  description: z.string().max(1000).optional(),
  customer_email: z.email().max(254).optional(),
  metadata: metadata.optional(),
  /** Seconds until the payment expires (D14): 60 up to the method's default expiry (checked once the method is known). */
  expires_in: z.number().int().min(MIN_EXPIRES_IN_SECONDS, `expires_in must be at least ${MIN_EXPIRES_IN_SECONDS} seconds`).optional(),
});
/** The parsed generic create body. */
export type GenericCreateBody = z.infer<typeof genericCreateBody>;

/** `POST /v1/api/merchants/{merchant_id}/payments`: `amount` is a decimal string with two decimals (D5). */
export const merchantCreateBody = z.strictObject({
  amount: z.string().max(20),
  currency: z.enum(currencies),
  payment_method: z.enum(merchantMethods),
  description: z.string().max(1000).optional(),
  payment_method_data: z
    .strictObject({
      payment_method_types: z.array(z.literal('card')).min(1).optional(),
      phone_number: z.string().min(1).max(32).optional(),
      wallet_id: z.string().regex(/^[A-Za-z0-9_-]{4,64}$/, 'payment_method_data.wallet_id must be 4–64 letters, digits, - or _').optional(),
    })
    .optional(),
});
/** The parsed merchant-scoped create body. */
export type MerchantCreateBody = z.infer<typeof merchantCreateBody>;

/** `POST /v1/payments/{id}/cancel` (D12): an optional reason. */
export const cancelBody = z.strictObject({ reason: reason.optional() });

/** `POST /v1/payments/{id}/refund` (D12): an optional amount in minor units (default the whole rest) and reason. */
export const refundBody = z.strictObject({ amount: minorAmount.optional(), reason: reason.optional() });
