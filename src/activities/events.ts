/** Building event rows (docs/payments.md#events) for the activities and the services that write events. */
import type { EventInput } from '../db/payments';
import type { PaymentSnapshot } from '../domain/payment';
import { toGenericPaymentView } from '../views/payment';
import { deriveId } from '../lib/ids';

/**
 * The event row of a payment step; its id is derived from the payment id and the step (docs/payments.md#events), so it
 * is written at most once whatever the retries, and the API and the workflow agree on it.
 * @param step distinguishes several events of one type (a refund id); defaults to the type
 */
export function paymentEvent(payment: PaymentSnapshot, type: string, step: string = type): EventInput {
  return {
    id: deriveId('evt_', `payment:${payment.id}:${step}`),
    merchantId: payment.merchantId,
    environment: payment.environment,
    type,
    objectId: payment.id,
    // As of the step: `refundable` and `cancellable` judged at the payment's change, by its descriptor's capabilities.
    data: toGenericPaymentView(payment, { at: payment.updatedAt }),
    createdAt: payment.updatedAt,
  };
}
