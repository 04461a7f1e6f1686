/**
 * The API form of a payment link (docs/payment-links.md#api). Amounts in minor units, times ISO 8601 UTC.
 */
import { z } from '../lib/zod';
import type { PaymentLink } from '../domain/payment-link';
import { timestamp } from './timestamp';
import { objectName } from './fields';

/** A customer-chosen amount's bounds in an answer (both inclusive, minor units); null for a fixed amount. */
export const amountRangeView = z
  .object({
    min: z.number().int().openapi({ description: 'Smallest amount, minor units' }),
    max: z.number().int().openapi({ description: 'Largest amount, minor units' }),
  })
  .nullable();

/** The fields a payer gives before paying (docs/payment-links.md#collect). */
export const collectView = z.array(z.enum(['name', 'email']));

/** A payment link as the merchant reads it. */
export const paymentLink = z
  .object({
    id: z.string().openapi({ description: 'Link id, `plink_` and 24 random base62 characters' }),
    object: objectName('payment_link'),
    url: z.string().openapi({ description: 'The address to share, `{PUBLIC_BASE_URL}/l/{id}`' }),
    active: z.boolean().openapi({ description: 'Whether the link opens sessions; false shows a closed page' }),
    amount: z.number().int().nullable().openapi({ description: 'The fixed amount in minor units; null: a range' }),
    amount_range: amountRangeView.openapi({
      description: 'The range the customer chooses in (both inclusive); null: a fixed amount',
    }),
    currency: z.string().openapi({ description: 'ISO 4217 currency code' }),
    description: z.string().openapi({ description: 'What the customer pays for' }),
    payment_methods: z.array(z.literal('mobile_money')).openapi({ description: 'The methods the page offers' }),
    completed_limit: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'At most this many payments complete through the link; null: no limit' }),
    completed_count: z.number().int().openapi({ description: 'How many sessions of the link completed' }),
    after_completion: z
      .discriminatedUnion('type', [
        z.object({
          type: z.literal('message').openapi({ description: 'Show `message` on the page' }),
          message: z.string().openapi({ description: 'What the page says after a payment' }),
        }),
        z.object({
          type: z.literal('redirect').openapi({ description: 'Send the payer to `url`' }),
          url: z.string().openapi({ description: 'Where the page sends the payer after a payment' }),
        }),
      ])
      .nullable()
      .openapi({ description: "A message or a redirect after a payment; null: the page's own thanks" }),
    collect: collectView.openapi({
      description: 'The fields each payer gives before paying (docs/payment-links.md#collect)',
    }),
    created_at: timestamp.openapi({ description: 'When it was created' }),
    updated_at: timestamp.openapi({ description: 'When it last changed' }),
  })
  .openapi('PaymentLink');

/** A link as answered. */
export type PaymentLinkView = z.output<typeof paymentLink>;

/** The address of link `id` to share; `baseUrl` is PUBLIC_BASE_URL. */
export function paymentLinkUrl(id: string, baseUrl: string): string {
  return `${baseUrl}/l/${id}`;
}

/** The merchant's form of `link`; `baseUrl` is PUBLIC_BASE_URL. */
export function toPaymentLinkView(link: PaymentLink, baseUrl: string): PaymentLinkView {
  return {
    id: link.id,
    object: 'payment_link',
    url: paymentLinkUrl(link.id, baseUrl),
    active: link.active,
    amount: link.amount,
    amount_range: link.amountRange,
    currency: link.currency,
    description: link.description,
    payment_methods: link.paymentMethods,
    completed_limit: link.completedLimit,
    completed_count: link.completedCount,
    after_completion: link.afterCompletion,
    collect: link.collect,
    created_at: link.createdAt,
    updated_at: link.updatedAt,
  };
}
