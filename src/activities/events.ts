/** Building event rows (docs/payments.md#events) for the activities and the services that write events. */
import type { EventInput } from '../db/payments';
import type { Environment } from '../domain/environment';
import type { PaymentSnapshot } from '../domain/payment';
import { toGenericPaymentView } from '../views/payment';
import { deriveId } from '../lib/ids';

/** What an event is about: a money object as stored (a payment, a payout, a checkout session), at its last change. */
export interface EventSubject {
  id: string;
  merchantId: string;
  environment: Environment;
  /** ISO 8601 UTC; the event's `created_at`. */
  updatedAt: string;
}

/**
 * The event row `type` of `subject`, with `data` (the subject's view as of its change). Its id is derived from the
 * subject's kind and id and the step (docs/payments.md#events), so it is written at most once whatever the retries,
 * and the API and the workflow agree on it.
 * @param kind the kind of the subject, in the derived id (`payment`, `payout`, `checkout`)
 * @param step distinguishes several events of one type (a refund id); for most events the type itself
 */
export function subjectEvent(
  kind: string,
  subject: EventSubject,
  type: string,
  step: string,
  data: unknown,
): EventInput {
  return {
    id: deriveId('evt_', `${kind}:${subject.id}:${step}`),
    merchantId: subject.merchantId,
    environment: subject.environment,
    type,
    objectId: subject.id,
    data,
    createdAt: subject.updatedAt,
  };
}

/**
 * The event row of a payment step (see {@link subjectEvent}).
 * @param step distinguishes several events of one type (a refund id); defaults to the type
 */
export function paymentEvent(payment: PaymentSnapshot, type: string, step: string = type): EventInput {
  // As of the step: `refundable` and `cancellable` judged at the payment's change, by its descriptor's capabilities.
  return subjectEvent('payment', payment, type, step, toGenericPaymentView(payment, { at: payment.updatedAt }));
}
