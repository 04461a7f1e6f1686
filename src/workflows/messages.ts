/**
 * What the client (API, admin command) and the workflows share: workflow ids, search attributes,
 * signals, queries and inputs (samples' `shared.ts`). Pure: safe inside the workflow sandbox.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { PaymentSnapshot } from '../domain/payment-record';
import type { RefundRecord } from '../domain/refund';
import type { ProviderOutcome } from '../domain/payment';

/** Custom search attributes of payment executions (D20), registered when the dev server starts. */
export const MerchantIdAttribute = defineSearchAttributeKey('MerchantId', SearchAttributeType.KEYWORD);
export const EnvironmentAttribute = defineSearchAttributeKey('Environment', SearchAttributeType.KEYWORD);
export const PaymentStatusAttribute = defineSearchAttributeKey('PaymentStatus', SearchAttributeType.KEYWORD);
export const PaymentMethodAttribute = defineSearchAttributeKey('PaymentMethod', SearchAttributeType.KEYWORD);

/** Every custom search attribute (all Keyword), registered when a Temporal server starts. */
export const CUSTOM_SEARCH_ATTRIBUTES = [MerchantIdAttribute, EnvironmentAttribute, PaymentStatusAttribute, PaymentMethodAttribute];

/** The same as `Name=Keyword` pairs for `temporal server start-dev --search-attribute`. */
export const SEARCH_ATTRIBUTE_FLAGS = CUSTOM_SEARCH_ATTRIBUTES.map((key) => `${key.name}=Keyword`);

/** Workflow id of a payment (D20): the business id is the workflow id. */
export function paymentWorkflowId(paymentId: string): string {
  return `payment:${paymentId}`;
}

/** Input of `paymentWorkflow`: the payment as created, and how long refunds stay possible. */
export interface PaymentWorkflowInput {
  payment: PaymentSnapshot;
  /** How long a completed payment's workflow keeps taking refunds, in seconds. */
  refundWindowSeconds: number;
  /**
   * Set when a long wait continued as new to keep the history short: the payment is already
   * recorded and initiated, and polling resumes at `pollDelayMs`.
   */
  resumed?: { pollDelayMs: number };
}

/** A provider's answer delivered by its callback (D16). */
export interface ProviderCallback {
  providerReference: string;
  outcome: ProviderOutcome;
}

/** A provider callback, forwarded by `POST /v1/provider-callbacks/{provider}` (D16). */
export const providerCallbackSignal = defineSignal<[ProviderCallback]>('providerCallback');

/** The workflow's current view of the payment (the source of truth the read model follows). */
export const getPaymentQuery = defineQuery<PaymentSnapshot>('getPayment');

/** Body of a cancel (D12): an optional reason. */
export interface CancelRequest {
  reason?: string;
}

/** Body of a refund (D12): the refund id chosen by the API, an amount in minor units (default: the whole rest), a reason. */
export interface RefundRequest {
  refundId: string;
  amount?: number;
  reason?: string;
}

/**
 * Cancels an open payment (D11, D12). Rejected by its validator, leaving no trace in the history,
 * with `ApplicationFailure` type `payment_not_cancellable`; a cancel that loses the race with a
 * provider success fails with the same type and the payment ends completed.
 */
export const cancelPaymentUpdate = defineUpdate<PaymentSnapshot, [CancelRequest]>('cancelPayment');

/**
 * Refunds part or all of a completed payment (D11, D12). The validator rejects with type
 * `payment_not_refundable` or `amount_exceeds_refundable`; the answer is the refund record.
 */
export const refundPaymentUpdate = defineUpdate<RefundRecord, [RefundRequest]>('refundPayment');
