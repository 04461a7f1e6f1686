/**
 * Request schemas of checkout sessions (docs/checkout.md). Unknown fields and bad values are refused (400 naming
 * the field); amounts are whole minor units, `expires_in` seconds.
 */
import { environmentOnlyQuery } from './developer';
import { z } from '../../lib/zod';
import { trimmedText } from './fields';
import { MOBILE_MONEY_OPERATORS } from '../../domain/catalogue';
import { CHECKOUT_STATUSES } from '../../domain/checkout-table';
import { CURRENCY_EXPONENTS, MAX_AMOUNT_MINOR, MIN_AMOUNT_MINOR } from '../../domain/money';
import { cursorPageFields } from './payments';

type NonEmpty<T> = [T, ...T[]];
const currencies = Object.keys(CURRENCY_EXPONENTS) as NonEmpty<keyof typeof CURRENCY_EXPONENTS>;
const operators = [...MOBILE_MONEY_OPERATORS] as NonEmpty<(typeof MOBILE_MONEY_OPERATORS)[number]>;

/** The shortest and longest `expires_in` of a session, in seconds, and the default. */
export const CHECKOUT_EXPIRES_IN = { min: 1_800, max: 86_400 } as const;

const httpUrl = z
  .url({ protocol: /^https?$/ })
  .max(2048)
  .openapi({ example: 'https://shop.example/thanks' });

/** `POST /v1/checkout/sessions`. */
export const createCheckoutSessionBody = z.strictObject({
  amount: z
    .number()
    .int()
    .min(MIN_AMOUNT_MINOR)
    .max(MAX_AMOUNT_MINOR)
    .openapi({ description: 'Minor units of the currency', example: 5_000 }),
  currency: z.enum(currencies).openapi({ description: 'ISO 4217 code' }),
  description: trimmedText(500).openapi({ description: 'What the customer pays for, on the page' }),
  payment_methods: z
    .array(z.literal('mobile_money'))
    .min(1)
    .optional()
    .openapi({ description: 'The methods the page offers (default: every method the currency allows; mobile money)' }),
  customer_phone: z.string().min(1).max(32).optional().openapi({ description: 'A number the page suggests' }),
  success_url: httpUrl.openapi({ description: 'Where the page sends the customer after a success' }),
  cancel_url: httpUrl.optional().openapi({ description: 'Where the page sends a customer who gives up' }),
  expires_in: z
    .number()
    .int()
    .min(CHECKOUT_EXPIRES_IN.min, `expires_in must be at least ${CHECKOUT_EXPIRES_IN.min} seconds`)
    .max(CHECKOUT_EXPIRES_IN.max, `expires_in must be at most ${CHECKOUT_EXPIRES_IN.max} seconds`)
    .optional()
    .openapi({ description: 'Seconds until the session expires, 1,800 to 86,400 (default 86,400)' }),
  locale: z.enum(['en', 'fr', 'sw', 'rw']).optional().openapi({ description: "The page's language" }),
  metadata: z
    .record(z.string().min(1).max(40), z.string().max(500))
    .refine((value) => Object.keys(value).length <= 50, 'metadata must have at most 50 keys')
    .optional()
    .openapi({ description: 'Your key-value pairs, at most 50, returned as sent' }),
});

/** `GET /v1/checkout/sessions`: cursor pages, newest first, optionally of one status. */
export const listCheckoutSessionsQuery = z.strictObject({
  ...cursorPageFields(
    'sessions',
    'A session id (`cs_…`): answer those created before it. Pass `pagination.next_starting_after`.',
    'cs_3Lm5Np7Qr9St1Uv3Wx5Yz7Ab',
  ),
  status: z.enum(CHECKOUT_STATUSES).optional().openapi({ description: 'Only sessions in this status' }),
  ...environmentOnlyQuery.shape,
});

/** What any attempt may carry: a chosen amount and the fields a payment link collects (docs/payment-links.md). */
const attemptTerms = {
  amount: z.number().int().min(MIN_AMOUNT_MINOR).max(MAX_AMOUNT_MINOR).optional().openapi({
    description:
      "The amount the payer chose, in minor units: required, within `amount_range`, on a payment link's session with a customer-chosen amount; refused elsewhere",
    example: 2_000,
  }),
  name: trimmedText(200)
    .optional()
    .openapi({ description: "The payer's name, where the session's `collect` asks for it", example: 'Aline Uwase' }),
  email: z.email().max(254).optional().openapi({
    description: "The payer's email, where the session's `collect` asks for it",
    example: 'aline@example.rw',
  }),
};

/** A mobile-money attempt: the payer's number as written, and the operator of a ported number. */
const mobileMoneyAttemptBody = z.strictObject({
  payment_method: z.literal('mobile_money').openapi({ description: 'How the payer pays' }),
  phone_number: z
    .string()
    .min(1)
    .max(32)
    .openapi({ description: "The payer's number as people write it (`0788 000 001`)", example: '0788000001' }),
  operator: z.enum(operators).optional().openapi({ description: 'The operator of a ported number' }),
  ...attemptTerms,
});

/** A card attempt: the card is entered at the gateway, on the payment's `next_action.client_secret`. */
const cardAttemptBody = z.strictObject({
  payment_method: z.literal('card').openapi({ description: 'How the payer pays' }),
  ...attemptTerms,
});

/**
 * `POST /v1/checkout/sessions/{id}/attempts` (the page's, no key): a mobile-money attempt, or a card attempt where the
 * session's currency is one cards take (docs/hosted-page.md#card).
 */
export const checkoutAttemptBody = z.discriminatedUnion('payment_method', [mobileMoneyAttemptBody, cardAttemptBody]);
