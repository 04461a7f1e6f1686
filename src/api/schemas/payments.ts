/**
 * The generic create body (interface.md, Payment (generic form); D5, D6, D10). Types and formats
 * only; the catalogue checks (currency per method, phone country) are in src/domain/create-payment.ts.
 */
import { z } from 'zod';
import { CURRENCY_EXPONENTS, MAX_AMOUNT_MINOR, MIN_AMOUNT_MINOR } from '../../domain/money';
import { GENERIC_CATALOGUE } from '../../domain/catalogue';

const currencies = Object.keys(CURRENCY_EXPONENTS) as [keyof typeof CURRENCY_EXPONENTS, ...(keyof typeof CURRENCY_EXPONENTS)[]];
const genericMethods = Object.keys(GENERIC_CATALOGUE) as [keyof typeof GENERIC_CATALOGUE, ...(keyof typeof GENERIC_CATALOGUE)[]];

/** `POST /v1/payments`: `amount` is an integer of minor units, 1 … 10^12 (D5). */
export const genericCreateBody = z.strictObject({
  amount: z.number().int().min(MIN_AMOUNT_MINOR).max(MAX_AMOUNT_MINOR),
  currency: z.enum(currencies),
  payment_method: z.enum(genericMethods),
  phone_number: z.string().min(1).max(32).optional(),
  provider: z.enum(['momo', 'mobile_money_b']).optional(),
  description: z.string().max(1000).optional(),
  customer_email: z.email().max(254).optional(),
  metadata: z.record(z.string().max(40), z.string().max(500)).optional(),
});

/** The parsed generic create body. */
export type GenericCreateBody = z.infer<typeof genericCreateBody>;
