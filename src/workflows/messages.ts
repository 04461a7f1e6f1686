/**
 * What the client (API, admin command) and the workflows share: workflow ids, search attributes,
 * signals, queries and inputs (samples' `shared.ts`). Pure: safe inside the workflow sandbox.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { AttemptFacts } from '../domain/provider-health';
import type { AuditEntry } from '../domain/audit-log';
import { ID_PREFIXES } from '../domain/ids';
import type { PaymentSnapshot, ProviderOutcome } from '../domain/payment';
import type { ProviderCapabilities } from '../domain/provider-descriptor';
import type { RefundRecord } from '../domain/refund';

/**
 * Custom search attributes of the service's executions (docs/payments.md#workflow,
 * docs/operations.md#find-in-temporal-ui), registered by every Temporal server the service starts (`npm start`,
 * `npm test`, `npm run start:cluster`, Compose).
 */
export const MerchantIdAttribute = defineSearchAttributeKey('MerchantId', SearchAttributeType.KEYWORD);
export const EnvironmentAttribute = defineSearchAttributeKey('Environment', SearchAttributeType.KEYWORD);
export const PaymentStatusAttribute = defineSearchAttributeKey('PaymentStatus', SearchAttributeType.KEYWORD);
export const PaymentMethodAttribute = defineSearchAttributeKey('PaymentMethod', SearchAttributeType.KEYWORD);
/** `pay_…`: on the payment's workflow and on the webhook deliveries of its events. */
export const PaymentIdAttribute = defineSearchAttributeKey('PaymentId', SearchAttributeType.KEYWORD);
/** `po_…`: on the payout's workflow and on the webhook deliveries of its events. */
export const PayoutIdAttribute = defineSearchAttributeKey('PayoutId', SearchAttributeType.KEYWORD);
/** `dlv_…`: on a webhook delivery's workflow. */
export const DeliveryIdAttribute = defineSearchAttributeKey('DeliveryId', SearchAttributeType.KEYWORD);
/** `evt_…`: on the workflow of every delivery of the event (one per subscribed endpoint, and each manual retry). */
export const EventIdAttribute = defineSearchAttributeKey('EventId', SearchAttributeType.KEYWORD);

/**
 * Every custom search attribute (all Keyword), registered when a Temporal server starts. Eight of the ten Keyword
 * attributes a namespace on SQL visibility (SQLite, PostgreSQL) may hold.
 */
export const CUSTOM_SEARCH_ATTRIBUTES = [
  MerchantIdAttribute,
  EnvironmentAttribute,
  PaymentStatusAttribute,
  PaymentMethodAttribute,
  PaymentIdAttribute,
  PayoutIdAttribute,
  DeliveryIdAttribute,
  EventIdAttribute,
];

/** The same as `Name=Keyword` pairs for `temporal server start-dev --search-attribute`. */
export const SEARCH_ATTRIBUTE_FLAGS = CUSTOM_SEARCH_ATTRIBUTES.map((key) => `${key.name}=Keyword`);

/**
 * The search attributes a payment's workflow starts with (docs/payments.md#workflow): on-call finds it by
 * `PaymentId="pay_…"` (docs/operations.md#find-in-temporal-ui).
 */
export function paymentSearchAttributes(payment: PaymentSnapshot) {
  return [
    { key: PaymentIdAttribute, value: payment.id },
    { key: MerchantIdAttribute, value: payment.merchantId },
    { key: EnvironmentAttribute, value: payment.environment },
    { key: PaymentMethodAttribute, value: payment.paymentMethod },
    { key: PaymentStatusAttribute, value: payment.status },
  ];
}

/**
 * The search attributes a payout's workflow starts with, whoever starts it (docs/payouts.md#workflow): on-call finds it
 * by `PayoutId="po_…"` (docs/operations.md#find-in-temporal-ui).
 */
export function payoutSearchAttributes(payout: { id: string; merchantId: string; environment: string }) {
  return [
    { key: PayoutIdAttribute, value: payout.id },
    { key: MerchantIdAttribute, value: payout.merchantId },
    { key: EnvironmentAttribute, value: payout.environment },
  ];
}

/**
 * The search attributes a webhook delivery's workflow starts with: its delivery and event ids, and the
 * payment or payout the event is about (`objectId` `pay_…` or `po_…`), so that `PaymentId="pay_…"` lists the
 * payment's workflow and the deliveries of its events (docs/webhooks.md#delivery-log,
 * docs/operations.md#find-in-temporal-ui).
 */
export function deliverySearchAttributes(delivery: {
  id: string;
  eventId: string;
  merchantId: string;
  environment: string;
  objectId?: string | null;
}) {
  const object = delivery.objectId ?? '';
  return [
    { key: DeliveryIdAttribute, value: delivery.id },
    { key: EventIdAttribute, value: delivery.eventId },
    { key: MerchantIdAttribute, value: delivery.merchantId },
    { key: EnvironmentAttribute, value: delivery.environment },
    ...(object.startsWith(ID_PREFIXES.payment) ? [{ key: PaymentIdAttribute, value: object }] : []),
    ...(object.startsWith(ID_PREFIXES.payout) ? [{ key: PayoutIdAttribute, value: object }] : []),
  ];
}

/** Workflow id of a payment (docs/payments.md#workflow): the business id is the workflow id. */
export function paymentWorkflowId(paymentId: string): string {
  return `payment:${paymentId}`;
}

/**
 * The workflow task time-out every payment workflow starts with (docs/limits.md#update-deadlines), in milliseconds:
 * 4 s, not Temporal's 10 s default. A workflow task the server loses while a worker holds it (the completion answered
 * "Workflow task not found": a speculative task of an Update that an event arriving meanwhile made a regular one) is
 * given out again only once this time-out passes, and the run, with every Update it holds, waits until then. At 4 s a
 * run that loses one task still answers its Updates well within UPDATE_DEADLINE_MS (15 s), with time left for the
 * Updates that meet its closing to re-open it; a longer activation (a local activity) is not cut short: the worker
 * extends its task before the time-out.
 */
export const PAYMENT_WORKFLOW_TASK_TIMEOUT_MS = 4_000;

/**
 * How long a refund, a cancel or a payout's create waits for the provider's answer before it answers with what is
 * known (docs/payments.md#cancel-and-refund, docs/payouts.md#workflow), in milliseconds: 2 s. A refund then answers
 * `pending` (written and reserved; `refund.completed` or `refund.failed` follows once the provider answers), a cancel
 * the payment as it stands (`payment.cancelled` follows), a payout `pending` (its events follow). The provider call
 * itself goes on, and its answer is recorded when it comes.
 */
export const PROVIDER_ANSWER_WAIT_MS = 2_000;

/**
 * Input of `paymentWorkflow`. `create`: a new payment, which the workflow records and initiates
 * (the API's `initiatePaymentUpdate` waits for that, docs/payments.md#workflow). `continued`: the
 * next run of an open payment whose long wait on the provider continued as new to keep the history
 * short; the payment is already recorded and initiated, and polling resumes at `pollDelayMs`
 * (milliseconds). `reopen`: a payment whose workflow closed once final, started again by a
 * cancel, a refund or a provider callback (Update- or Signal-with-Start on the same workflow id,
 * docs/payments.md#workflow); the workflow reads the payment from the read model, which the closed
 * run left current.
 */
export type PaymentWorkflowInput = (
  | {
      mode: 'create';
      payment: PaymentSnapshot;
      /**
       * The activity log's `payment.created` entry of the request that started the run (docs/security.md#activity-log),
       * written with the payment's row, once; absent in runs started before it rode along.
       */
      audit?: AuditEntry;
    }
  | {
      mode: 'continued';
      payment: PaymentSnapshot;
      pollDelayMs: number;
      /** What the earlier runs knew of the provider's attempt (docs/availability.md#classification); absent before. */
      attempt?: AttemptFacts;
    }
  | { mode: 'reopen'; paymentId: string }
) & {
  /**
   * How long after a payment failed by expiry or provider error a late success still completes it
   * (docs/payments.md#states), in seconds.
   */
  reconciliationWindowSeconds: number;
  /**
   * How long after its creation a payment may be refunded (docs/payments.md#states), in seconds; absent in runs
   * started before it was passed: 180 days.
   */
  refundWindowSeconds?: number;
};

/**
 * A provider callback (docs/payments.md#provider-callbacks), authenticated by the API. A hint only: the workflow asks
 * the provider
 * for the status before acting, so a forged or stale claim changes nothing.
 */
export interface ProviderHint {
  providerReference: string;
  /** What the callback claimed (logged and shown; never acted on by itself). */
  claimed: ProviderOutcome['status'];
}

/**
 * A provider callback, forwarded by `POST /v1/provider-callbacks/{provider}` and the sandbox stand-ins
 * (docs/payments.md#provider-callbacks).
 */
export const providerCallbackSignal = defineSignal<[ProviderHint]>('providerCallback');

/** The workflow's current view of the payment (the source of truth the read model follows). */
export const getPaymentQuery = defineQuery<PaymentSnapshot>('getPayment');

/**
 * The create's wait (docs/payments.md#workflow): answers once the payment is recorded and the provider answered its
 * initiation, with the payment then (`pending` with the provider's `next_action`, or `failed` when
 * the provider refused it outright). Sent with the workflow's start (Update-with-Start); its id is
 * {@link INITIATE_UPDATE_ID}, so a retried create reattaches to it.
 */
export const initiatePaymentUpdate = defineUpdate<PaymentSnapshot, []>('initiatePayment');

/** Update id of the create's wait: one per workflow run. */
export const INITIATE_UPDATE_ID = 'initiate';

/**
 * The argument of {@link cancelPaymentUpdate} (docs/payments.md#cancel-and-refund): an optional reason, and the
 * provider's cancel capability as the API's adapter states it (the table refuses a cancel its provider cannot take).
 */
export interface CancelUpdateInput {
  reason?: string;
  capabilities?: Pick<ProviderCapabilities, 'cancel'>;
}

/**
 * The argument of {@link refundPaymentUpdate} (docs/payments.md#cancel-and-refund; not the provider's
 * `RefundRequest` of src/providers/provider.ts): the refund id chosen by the API (derived from the idempotency key when
 * there is one, docs/payments.md#idempotency; also the Update id), an amount in minor units (default: the whole rest),
 * a reason.
 */
export interface RefundUpdateInput {
  refundId: string;
  amount?: number;
  reason?: string;
  /** The provider's refund capabilities as the API's adapter states them; the table refuses what it cannot take. */
  capabilities?: Pick<ProviderCapabilities, 'refund' | 'partialRefund'>;
}

/**
 * Cancels an open payment (docs/payments.md#states, docs/payments.md#cancel-and-refund). Fails with
 * `ApplicationFailure` type
 * `payment_not_cancellable` when the payment is not open, or when a provider success won the race
 * (the payment ends completed).
 */
export const cancelPaymentUpdate = defineUpdate<PaymentSnapshot, [CancelUpdateInput]>('cancelPayment');

/**
 * Refunds part or all of a completed payment (docs/payments.md#states, docs/payments.md#cancel-and-refund). Fails with
 * type `payment_not_refundable`
 * or `amount_exceeds_refundable` before anything is sent to the provider; otherwise answers the
 * refund: `completed`, `failed` (the provider refused) or `pending` (its answer is unknown yet;
 * the amount stays reserved and the workflow decides it).
 */
export const refundPaymentUpdate = defineUpdate<RefundRecord, [RefundUpdateInput]>('refundPayment');
