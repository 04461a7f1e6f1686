/**
 * The route docs of one feature (src/api/openapi.ts builds the document from every feature's): Payments: the generic
 * and merchant-scoped forms, and the providers' callbacks.
 */
import { z } from '../../lib/zod';
import { sandboxCallbackBody as callbackBody } from '../../domain/sandbox';
import { cancelBody, genericCreateBody, listPaymentsQuery, merchantCreateBody, refundBody } from '../schemas/payments';
import * as out from '../../views';
import * as example from '../schemas/examples';
import { answer, UPDATE_UNAVAILABLE, CALLBACK_UNAVAILABLE, callbackReceipt, type RouteDoc } from './shared';

/** What a provider's callback is, the same for both its methods. */
const PROVIDER_CALLBACK_ABOUT =
  "Called by payment providers, not by merchants. Each provider authenticates its own way; a callback is a hint that the payment's status is then confirmed with the provider.";

/** A provider's callback (docs/payments.md#provider-callbacks), by POST or by PUT: all but the method and its names. */
const providerCallbackDoc = {
  path: '/v1/provider-callbacks/{provider}',
  tag: 'Providers',
  body: callbackBody,
  bodyExample: { provider_reference: '1f0c7a52-3b9e-4d8a-9a43-5c2e8b7d6f10', status: 'succeeded' },
  success: answer('Received (also for a payment already closed)', callbackReceipt, 'Callback received', {
    received: true,
    payment_id: example.ids.payment,
    action: 'signalled',
  }),
  errors: [401],
  codes: [
    {
      code: 'unauthorized',
      when: "The callback's signature or token is missing or wrong.",
      message: 'the callback signature is not valid',
    },
    CALLBACK_UNAVAILABLE,
  ],
} satisfies Partial<RouteDoc>;

/**
 * A cancel's request and answer (docs/payments.md#cancel-and-refund), the same from a secret key and from the
 * dashboard.
 */
export const cancelRequestDoc = {
  body: cancelBody,
  bodyExample: { reason: 'customer changed their mind' },
  idempotent: true,
  success: answer('The cancelled payment', out.genericPayment, 'Payment cancelled', example.cancelledPayment),
  codes: ['payment_not_cancellable', UPDATE_UNAVAILABLE],
} satisfies Partial<RouteDoc>;

/**
 * A refund's request and answer (docs/payments.md#cancel-and-refund), the same from a secret key and from the
 * dashboard.
 */
export const refundRequestDoc = {
  body: refundBody,
  bodyExample: { amount: 500, reason: 'one item out of stock' },
  idempotent: true,
  success: answer(
    'The refund: `completed`, `failed` or `pending`',
    out.refund,
    'Refund completed',
    example.completedRefund,
    201,
  ),
  codes: ['payment_not_refundable', 'amount_exceeds_refundable', UPDATE_UNAVAILABLE],
} satisfies Partial<RouteDoc>;

/** Payments: the generic and merchant-scoped forms, and the providers' callbacks. */
export const paymentRouteDocs: RouteDoc[] = [
  {
    method: 'post',
    path: '/v1/payments',
    operationId: 'createPayment',
    tag: 'Payments',
    summary: 'Create a payment',
    description:
      "`amount` is an integer in the currency's minor unit (RWF 1,500 is `1500`; USD 15.00 is `1500`). The answer comes once the provider has the request: `pending` with `next_action`, what the customer or your front end does next, or `failed` when the provider refused it at once. An open payment says why it waits, `pending_reason`, and the latest time it will be final, `decision_expected_by`; both are null once it is final.\n\nSend an `Idempotency-Key`: a retry with the same key and body answers the first payment (header `Idempotent-Replayed: true`) and never creates a second one.\n\nSandbox test numbers (national number ending): `0001` completes at once, `0002` is declined, `0003` never answers and expires, `0010` fails at once with the provider's own error (`provider_error`), `0011` is taken and then never answered until it expires (`expired`); both count as the operator's failures in `GET /v1/availability`. Any other completes after a few seconds.",
    security: ['secretKey'],
    body: genericCreateBody,
    bodyExample: {
      amount: 1500,
      currency: 'RWF',
      payment_method: 'mobile_money',
      phone_number: '+250788123456',
      description: 'Order #1042',
      metadata: { order_id: '1042' },
    },
    idempotent: true,
    success: answer(
      "The payment: `pending` with the provider's `next_action`, or `failed` when the provider refused it",
      out.genericPayment,
      'Payment created',
      example.pendingPayment,
      201,
    ),
    codes: [
      {
        code: 'validation_error',
        when: "A field is missing, unknown or invalid, the currency or the phone number's country is not served by the method, or `expires_in` is out of range. The message names the first bad field; `details` lists every one.",
        message: 'amount is required',
        details: [{ field: 'amount', message: 'amount is required' }],
      },
      {
        code: 'provider_unavailable',
        when: "No provider serves the method in this environment yet; or your `refuse_when_provider_down` is on and the number's operator is `down` (docs/availability.md#api-create): then with `Retry-After: 60`, and the `Idempotency-Key` is free for a retry. Nothing was created.",
        message: 'momo is down for collection in RW: nothing was sent to it; retry in 60 seconds',
      },
    ],
  },
  {
    method: 'get',
    path: '/v1/payments',
    operationId: 'listPayments',
    tag: 'Payments',
    summary: 'List payments',
    description:
      "Your payments in the key's environment, newest first, `limit` per page (default 10, at most 100). For the next page pass the `pagination.next_starting_after` of this one as `starting_after`; new payments created meanwhile do not shift the pages. Filter by `status`, `pending_reason` (why an open payment waits: `awaiting_customer`, `awaiting_provider`, `provider_unreachable`, `awaiting_callback`, `checking_with_provider`), `payment_method` and creation time (`created[gte]`, `created[lte]`: Unix seconds or ISO 8601). Payments created through the merchant-scoped endpoint are listed too, in this form.",
    security: ['secretKey'],
    query: listPaymentsQuery,
    success: answer(
      'A page of payments, newest first',
      z.object({
        payments: z.array(out.genericPayment).openapi({ description: 'This page of payments, newest first' }),
        pagination: out.cursorPagination.openapi({ description: 'Where this page ends and how to get the next' }),
      }),
      'Payments retrieved',
      {
        payments: [example.completedPayment],
        pagination: { limit: 1, has_more: true, next_starting_after: example.ids.payment },
      },
    ),
    codes: [
      {
        code: 'validation_error',
        when: 'An unknown query field, a bad filter value, or a `starting_after` that is not one of your payments. The message names the field.',
        message: 'unknown field: colour',
        details: [{ field: 'colour', message: 'unknown field: colour' }],
      },
    ],
  },
  {
    method: 'get',
    path: '/v1/payments/{id}',
    operationId: 'retrievePayment',
    tag: 'Payments',
    summary: 'Retrieve a payment',
    security: ['secretKey'],
    success: answer('The payment', out.genericPayment, 'Payment retrieved', example.completedPayment),
  },
  {
    method: 'post',
    path: '/v1/payments/{id}/cancel',
    operationId: 'cancelPayment',
    tag: 'Payments',
    summary: 'Cancel a payment',
    description:
      "Cancels a `pending` or `processing` payment, with an optional `reason`. If the provider reports the customer's payment first, the cancel loses: 409 `payment_not_cancellable`, and the payment is `completed`.",
    security: ['secretKey'],
    ...cancelRequestDoc,
  },
  {
    method: 'post',
    path: '/v1/payments/{id}/refund',
    operationId: 'refundPayment',
    tag: 'Payments',
    summary: 'Refund a payment',
    description:
      "Refunds part (`amount`, in minor units) or all (no `amount`: the whole rest) of a `completed` payment. The refund is written before the provider is asked. It is `completed`, `failed` when the provider refused it (nothing moved; `refund.failed` is sent and the amount is refundable again), or `pending` when the provider's answer is not known yet: the amount then stays reserved (the payment's `amount_refund_pending`) and `refund.completed` or `refund.failed` follows once the provider decides. A `reason` that is not well-formed Unicode text is refused (400) before anything is written or sent.",
    security: ['secretKey'],
    ...refundRequestDoc,
  },

  {
    method: 'post',
    path: '/v1/api/merchants/{merchant_id}/payments',
    operationId: 'createMerchantPayment',
    tag: 'Merchant-scoped payments',
    summary: 'Create a payment (merchant-scoped)',
    description:
      'The merchant-scoped form of payment creation: `amount` is a decimal string with two decimals (`"1500.00"`, also for currencies without minor units, where the decimals are `.00`), the key goes in `X-API-Key`, and errors answer `{error}`. The fee is in `metadata.fee_amount` and `metadata.fee_percentage`.',
    security: ['apiKey'],
    body: merchantCreateBody,
    bodyExample: {
      amount: '1500.00',
      currency: 'RWF',
      payment_method: 'momo',
      description: 'Order #1042',
      payment_method_data: { phone_number: '+250788123456' },
    },
    idempotent: true,
    plainErrors: true,
    success: {
      status: 200,
      description: 'The payment, `pending`',
      schema: out.merchantPayment,
      example: example.merchantPayment,
    },
    codes: ['merchant_mismatch', 'provider_unavailable'],
  },
  {
    method: 'get',
    path: '/v1/api/merchants/{merchant_id}/payments/{payment_id}',
    operationId: 'retrieveMerchantPayment',
    tag: 'Merchant-scoped payments',
    summary: 'Retrieve a payment (merchant-scoped)',
    security: ['apiKey'],
    plainErrors: true,
    success: { status: 200, description: 'The payment', schema: out.merchantPayment, example: example.merchantPayment },
    codes: ['merchant_mismatch'],
  },

  {
    ...providerCallbackDoc,
    method: 'post',
    operationId: 'receiveProviderCallback',
    summary: 'Provider callback',
    description: PROVIDER_CALLBACK_ABOUT,
  },
  {
    ...providerCallbackDoc,
    method: 'put',
    operationId: 'receiveProviderCallbackByPut',
    summary: 'Provider callback (PUT)',
    description: `The same callback for providers that call back with PUT (MTN MoMo does). ${PROVIDER_CALLBACK_ABOUT}`,
  },
];
