/**
 * Request schemas of payment links (docs/payment-links.md). Unknown fields and bad values are refused (400 naming the
 * field, nothing stored); amounts are whole minor units. What depends on the caller's environment (a redirect's
 * scheme) and on the currency (mobile money must hold it) is checked by the service.
 */
import { z } from '../../lib/zod';
import { trimmedText } from './fields';
import { COLLECT_FIELDS } from '../../domain/payment-link';
import { CURRENCY_EXPONENTS, MAX_AMOUNT_MINOR, MIN_AMOUNT_MINOR } from '../../domain/money';
import { cursorPageFields } from './payments';

type NonEmpty<T> = [T, ...T[]];
const currencies = Object.keys(CURRENCY_EXPONENTS) as NonEmpty<keyof typeof CURRENCY_EXPONENTS>;
const collectFields = [...COLLECT_FIELDS] as NonEmpty<(typeof COLLECT_FIELDS)[number]>;

/** The most sessions a link's `completed_limit` may allow. */
export const MAX_COMPLETED_LIMIT = 1_000_000;

/** The smallest, largest and default side of a link's QR code PNG, in pixels (docs/payment-links.md#qr). */
export const QR_PNG_SIZE = { min: 128, max: 1_024, default: 512 } as const;

const minor = (what: string) =>
  z
    .number()
    .int(`${what} must be a whole number of minor units`)
    .min(MIN_AMOUNT_MINOR, `${what} must be at least ${MIN_AMOUNT_MINOR}`)
    .max(MAX_AMOUNT_MINOR, `${what} must be at most ${MAX_AMOUNT_MINOR}`);

const completedLimit = z
  .number()
  .int()
  .min(1)
  .max(MAX_COMPLETED_LIMIT)
  .openapi({ description: 'At most this many payments complete through the link; then it shows a closed page' });

const afterCompletion = z
  .discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('message').openapi({ description: 'Show `message` on the page' }),
      message: trimmedText(500).openapi({ description: 'What the page says after a payment' }),
    }),
    z.strictObject({
      type: z.literal('redirect').openapi({ description: 'Send the payer to `url`' }),
      url: z
        .url({ protocol: /^https?$/ })
        .max(2048)
        .openapi({
          description: 'Where the page sends the payer after a payment: https (sandbox also http://localhost)',
          example: 'https://shop.example/thanks',
        }),
    }),
  ])
  .openapi({ description: 'A message on the page, or a redirect, after a payment (default: the page’s own thanks)' });

const description = trimmedText(500).openapi({
  description: 'What the customer pays for, on the page',
  example: 'Kitenge dress, size M',
});

/** `POST /v1/payment_links`: a fixed `amount` or an `amount_range`, exactly one. */
export const createPaymentLinkBody = z
  .strictObject({
    amount: minor('amount').optional().openapi({ description: 'A fixed amount in minor units', example: 15_000 }),
    amount_range: z
      .strictObject({
        min: minor('amount_range.min').openapi({ description: 'Smallest amount the customer may pay, minor units' }),
        max: minor('amount_range.max').openapi({ description: 'Largest amount the customer may pay, minor units' }),
      })
      .refine((range) => range.max >= range.min, { message: 'max must be at least min', path: ['max'] })
      .optional()
      .openapi({ description: 'The customer chooses the amount on the page, within these bounds (inclusive)' }),
    currency: z.enum(currencies).openapi({ description: 'ISO 4217 code; one mobile money holds' }),
    description,
    payment_methods: z
      .array(z.literal('mobile_money'))
      .min(1)
      .optional()
      .openapi({ description: 'The methods the page offers (default: mobile money)' }),
    completed_limit: completedLimit.optional(),
    after_completion: afterCompletion.optional(),
    collect: z
      .array(z.enum(collectFields))
      .max(COLLECT_FIELDS.length)
      .refine((fields) => new Set(fields).size === fields.length, 'collect must name each field once')
      .optional()
      .openapi({ description: 'Fields each payer must give before paying: `name`, `email`' }),
    active: z.boolean().optional().openapi({ description: 'Whether the link opens sessions (default true)' }),
  })
  .superRefine((body, ctx) => {
    if ((body.amount === undefined) === (body.amount_range === undefined))
      ctx.addIssue({
        code: 'custom',
        path: [body.amount === undefined ? 'amount' : 'amount_range'],
        message: 'send either amount (a fixed amount) or amount_range (the customer chooses), not both or neither',
      });
  });

/** `PATCH /v1/payment_links/{id}`: any of these; `null` removes a limit or an after-completion. */
export const updatePaymentLinkBody = z
  .strictObject({
    active: z.boolean().optional().openapi({ description: 'false closes the link: it shows a closed page' }),
    completed_limit: completedLimit.nullable().optional(),
    after_completion: afterCompletion.nullable().optional(),
    description: description.optional(),
  })
  .refine(
    (body) => Object.keys(body).length > 0,
    'send at least one of active, completed_limit, after_completion, description',
  );

const environment = z
  .enum(['sandbox', 'live'])
  .optional()
  .openapi({ description: "With a session token: the environment (default sandbox); a key's own otherwise" });

/** `GET /v1/payment_links`: cursor pages, newest first, optionally only active or inactive links. */
export const listPaymentLinksQuery = z.strictObject({
  ...cursorPageFields(
    'links',
    'A link id (`plink_…`): answer those created before it. Pass `pagination.next_starting_after`.',
    'plink_3Lm5Np7Qr9St1Uv3Wx5Yz7Ab',
  ),
  active: z
    .enum(['true', 'false'])
    .optional()
    .openapi({ description: 'Only active (`true`) or inactive (`false`) links' }),
  environment,
});

/** `GET /v1/payment_links/{id}` and `/qr.svg`. */
export const paymentLinkQuery = z.strictObject({ environment });

/** `GET /v1/payment_links/{id}/qr.png`. */
export const paymentLinkPngQuery = z.strictObject({
  size: z.coerce
    .number()
    .int(`size must be a whole number of pixels`)
    .min(QR_PNG_SIZE.min, `size must be at least ${QR_PNG_SIZE.min} pixels`)
    .max(QR_PNG_SIZE.max, `size must be at most ${QR_PNG_SIZE.max} pixels`)
    .default(QR_PNG_SIZE.default)
    .openapi({ description: 'The side of the square PNG in pixels, 128 to 1,024 (default 512)', example: 512 }),
  environment,
});
