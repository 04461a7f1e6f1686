/**
 * `checkoutWorkflow` (docs/checkout.md#states): one per checkout session, id `checkout:{cs_id}`, on the payments
 * task queue, started by the API's create with the session to store (its first step stores it; the API writes no
 * session row), or again by a payment's Signal-with-Start of a late outcome after it ended. It carries out the table
 * of `domain/checkout-table.ts` and nothing else: each message hands off to a method of {@link CheckoutRun}.
 * - `createCheckoutSession` (the create's wait) answers once the session is stored;
 * - `startCheckoutAttempt` admits one attempt at a time and creates its payment;
 * - `expireCheckoutSession` is the merchant's expire;
 * - `checkoutAttemptOutcome` is an attempt's payment telling its final outcome;
 * the main loop expires the session at `expires_at` (once no attempt is in flight) and ends once it is complete or
 * expired with no attempt in flight.
 *
 * Deterministic: only `@temporalio/workflow`, messages and the run are imported.
 */
import { setHandler } from '@temporalio/workflow';
import { carryOut } from './main-loop';
import type { CheckoutSessionSnapshot } from '../domain/checkout-table';
import {
  checkoutAttemptOutcomeSignal,
  createCheckoutSessionUpdate,
  expireCheckoutSessionUpdate,
  getCheckoutSessionQuery,
  startCheckoutAttemptUpdate,
  type CheckoutWorkflowInput,
} from './checkout-messages';
import { CheckoutRun } from './checkout-run';

/** Stores (for a create) and carries one session to its end (see the module's comment). @returns the session */
export async function checkoutWorkflow(input: CheckoutWorkflowInput): Promise<CheckoutSessionSnapshot> {
  const run = new CheckoutRun(input);
  setHandler(getCheckoutSessionQuery, () => run.snapshot());
  setHandler(checkoutAttemptOutcomeSignal, (outcome) => run.told(outcome));
  setHandler(createCheckoutSessionUpdate, () => run.created());
  setHandler(startCheckoutAttemptUpdate, (request) => run.attempt(request));
  setHandler(expireCheckoutSessionUpdate, () => run.expire());
  return carryOut(run);
}
