/**
 * `paymentWorkflow` (docs/payments.md#workflow): one per payment, id `payment:{pay_id}`. It carries out the table of
 * `domain/payment-table.ts` and nothing else: each message hands off to a method of {@link PaymentRun} (which commits
 * the table's rows and runs their effects as activities, one money operation at a time), and the main loop waits for
 * the provider (callbacks, polls, expiry) and for refunds whose answer is unknown, until the payment is final.
 *
 * - create: initiation records the payment and asks the provider; the API's `initiatePayment` Update (sent with the
 *   start) answers then, with the provider's reference and `next_action`.
 * - final: the run ends once the payment is no longer open and no refund is in flight; a cancel, a refund or a late
 *   callback re-opens it from the read model (Update- or Signal-with-Start).
 * - a long wait on the provider continues as new, keeping the history short.
 *
 * Deterministic: only `@temporalio/workflow`, domain code, messages and activity contracts are imported.
 */
import { setHandler } from '@temporalio/workflow';
import { carryOut } from './main-loop';
import type { PaymentSnapshot } from '../domain/payment';
import {
  cancelPaymentUpdate,
  getPaymentQuery,
  initiatePaymentUpdate,
  providerCallbackSignal,
  refundPaymentUpdate,
  type PaymentWorkflowInput,
} from './messages';
import { PaymentRun } from './payment-run';

export { HISTORY_EVENTS_BEFORE_CONTINUE } from './payment-run';

/**
 * Runs one payment until it is final (see the module comment).
 * @returns the payment as it ended
 * @throws ApplicationFailure `PaymentNotRecorded` when PostgreSQL refused a new payment's data (nothing was recorded)
 */
export async function paymentWorkflow(input: PaymentWorkflowInput): Promise<PaymentSnapshot> {
  const run = new PaymentRun(input);
  setHandler(getPaymentQuery, () => run.snapshot());
  setHandler(providerCallbackSignal, (hint) => run.hint(hint));
  setHandler(initiatePaymentUpdate, () => run.initiated());
  setHandler(cancelPaymentUpdate, (request) => run.cancel(request), { validator: (r) => run.checkCancel(r) });
  setHandler(refundPaymentUpdate, (request) => run.refund(request), { validator: (r) => run.checkRefund(r) });
  return carryOut(run);
}
