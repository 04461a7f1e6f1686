/**
 * What the hosted payment page reads (docs/hosted-page.md): a session with its merchant's name, and an attempt's
 * payment, only when it is an attempt of that session (a session id never reaches another payment of the merchant).
 */
import { findPaymentById } from '../db/payments';
import type { CheckoutSessionSnapshot } from '../domain/checkout-table';
import { DomainError } from '../domain/errors';
import type { PaymentSnapshot } from '../domain/payment';
import { getPublicCheckoutSession, type CheckoutServiceDeps } from './checkout-service';

/** A session as its page reads it, with the merchant's business name (the page's display name without branding). */
export interface PageSession {
  session: CheckoutSessionSnapshot;
  merchantName: string;
}

/** Session `id` and its merchant's name, or undefined for an unknown id. */
export async function readPageSession(
  deps: Pick<CheckoutServiceDeps, 'db'>,
  id: string,
): Promise<PageSession | undefined> {
  try {
    return await getPublicCheckoutSession(deps, id);
  } catch (error) {
    if (error instanceof DomainError && error.code === 'not_found') return undefined;
    throw error;
  }
}

/**
 * The payment `paymentId` when it is an attempt of `session` (the session lists it), else undefined; also undefined
 * while the attempt's payment is admitted but not stored yet.
 */
export async function readAttemptPayment(
  deps: Pick<CheckoutServiceDeps, 'db'>,
  session: CheckoutSessionSnapshot,
  paymentId: string,
): Promise<PaymentSnapshot | undefined> {
  if (!session.attempts.some((attempt) => attempt.payment === paymentId)) return undefined;
  const payment = await findPaymentById(deps.db, paymentId);
  return payment?.checkoutSession === session.id ? payment : undefined;
}
