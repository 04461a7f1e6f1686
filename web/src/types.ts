/**
 * The shapes the dashboard reads from the `/v1` API, taken from the typed client generated from
 * `/v1/openapi.json` (clients/typescript/schema.d.ts), so a field is declared once, by the API;
 * amounts in minor units, times ISO 8601 UTC.
 */
import type { components, operations } from '../../clients/typescript/schema';

export const PAYMENT_STATUSES = ['pending', 'processing', 'completed', 'failed', 'cancelled', 'refunded'] as const;
/**
 * A `payment_method` the transaction list filters by, as the API document declares them (one per generic method and per
 * provider of list B).
 */
type ApiPaymentMethod = NonNullable<NonNullable<operations['listTransactions']['parameters']['query']>['method']>;
/**
 * The payment method filter's choices, in the API's order; the type check below fails when the API gains one not listed
 * here.
 */
export const PAYMENT_METHODS = [
  'mobile_money',
  'bank_transfer',
  'card',
  'card_gateway',
  'momo',
  'mobile_money_b',
  'mpesa',
  'orange',
  'vodacom',
  'wave',
  'mobile_money_c',
  'wallet',
] as const satisfies readonly ApiPaymentMethod[];
/** Compiles only when every method of the API is in {@link PAYMENT_METHODS} (docs/providers.md#new-provider). */
export type EveryPaymentMethodListed = AssertNone<Exclude<ApiPaymentMethod, (typeof PAYMENT_METHODS)[number]>>;
type AssertNone<T extends never> = T;
/** An event name a webhook subscribes to, as the API document declares them (the event list's `type` filter). */
type ApiEventName = NonNullable<NonNullable<operations['listEvents']['parameters']['query']>['type']>;
/**
 * The events a webhook may subscribe to, in the API's order; the type check below fails when the API gains one not
 * listed here.
 */
export const EVENT_NAMES = [
  'payment.created',
  'payment.completed',
  'payment.failed',
  'payment.cancelled',
  'refund.completed',
  'refund.failed',
  'webhook.created',
  'payout.created',
  'payout.paid',
  'payout.failed',
  'payout.returned',
  'checkout.session.completed',
  'checkout.session.expired',
  'provider.status_changed',
] as const satisfies readonly ApiEventName[];
/** Compiles only when every event of the API is in {@link EVENT_NAMES} (docs/webhooks.md). */
export type EveryEventNameListed = AssertNone<Exclude<ApiEventName, (typeof EVENT_NAMES)[number]>>;

/** The `data` of an operation's JSON answer with status `S` (200 unless given), as the API document declares it. */
type DataOf<O extends keyof operations, S extends number = 200> = operations[O]['responses'] extends {
  [K in S]: { content: { 'application/json': { data: infer D } } };
}
  ? D
  : never;

export type Pagination = DataOf<'listTransactions'>['pagination'];
export type Developer = DataOf<'registerDeveloper', 201>['developer'];
export type Profile = DataOf<'retrieveProfile'>;
export type Availability = DataOf<'listAvailability'>['availability'][number];
export type Transaction = DataOf<'listTransactions'>['transactions'][number];
export type PaymentDetail = DataOf<'retrievePaymentTimeline'>;
export type Payment = components['schemas']['Payment'];
export type PaymentLink = components['schemas']['PaymentLink'];
export type Refund = PaymentDetail['refunds'][number];
export type StatusChange = PaymentDetail['status_changes'][number];
export type RefundChange = PaymentDetail['refund_changes'][number];
export type Delivery = PaymentDetail['events'][number]['deliveries'][number];
export type DeliveryAttempt = Delivery['attempts'][number];
export type Webhook = components['schemas']['Webhook'];
export type KeySummary = DataOf<'listApiKeys'>['keys'][number];
export type DocumentView = DataOf<'listDocuments'>['documents'][number];
export type LiveAccessStatus = DataOf<'retrieveLiveAccessStatus'>;
export type Analytics = DataOf<'retrieveAnalytics'>;
export type AuditEntry = DataOf<'listActivity'>['activity'][number];
export type Balance = DataOf<'retrieveBalance'>;
export type BalanceTransaction = components['schemas']['BalanceTransaction'];
export type BalanceTransactionPage = DataOf<'listBalanceTransactions'>;
export type Posting = PaymentDetail['postings'][number];
export const BALANCE_TRANSACTION_TYPES = [
  'payment',
  'refund',
  'refund_failure',
  'payout',
  'payout_failure',
  'adjustment',
] as const satisfies readonly BalanceTransaction['type'][];
export type Payout = components['schemas']['Payout'];
export type PayoutDetail = components['schemas']['PayoutDetail'];
export type PayoutDestination = components['schemas']['PayoutDestination'];
export type PayoutScheduleSetting = components['schemas']['PayoutSchedule'];
export type Branding = components['schemas']['Branding'];
export type CheckoutSession = components['schemas']['CheckoutSession'];
