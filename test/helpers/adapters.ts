/**
 * What the live adapters' tests (test/providers/<code>.test.ts) share: a fresh payment's initiation request, waiting
 * for a provider's final answer, customer numbers unique within the run, and what a promise rejected with.
 */
import { newId } from '../../src/lib/ids';
import type { ProviderAnswer } from '../../src/domain/payment';
import type { InitiateRequest, PaymentProvider } from '../../src/providers/provider';

/** Waits `ms` milliseconds. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a promise rejected with, or undefined when it resolved. */
export function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

let serial = 0;

/**
 * An E.164 number `prefix` + a serial of `serialDigits` digits + `ending` (the digits a fake decides by), unique within
 * the test run: fakes that lock a number while a prompt is open never see the same one twice.
 */
export function uniqueNumber(prefix: string, serialDigits: number, ending: string): string {
  serial += 1;
  return `${prefix}${String(serial).padStart(serialDigits, '0')}${ending}`;
}

/**
 * The initiation request of a fresh payment (new id, its idempotency key, expiring in 10 minutes) from `customer`, with
 * `payment`'s amount (minor units), currency, description and callback URL, and `overrides` on top.
 */
export function initiateRequest(
  customer: string,
  payment: Pick<InitiateRequest, 'amount' | 'currency' | 'description' | 'callbackUrl'>,
  overrides: Partial<InitiateRequest> = {},
): InitiateRequest {
  const paymentId = newId('pay_');
  return {
    paymentId,
    idempotencyKey: `payment:${paymentId}:initiate`,
    customer,
    expiresAt: new Date(Date.now() + 600_000).toISOString(),
    ...payment,
    ...overrides,
  };
}

/**
 * `adapter`'s answer for `reference` once the provider settled it (neither `pending` nor `processing`), asked every
 * 25 ms; after 80 asks (about 2 s), the answer of one more ask whatever it is.
 */
export async function settledAnswer(adapter: PaymentProvider, reference: string): Promise<ProviderAnswer> {
  for (let i = 0; i < 80; i += 1) {
    const answer = await adapter.fetchStatus(reference);
    if (answer.outcome.status !== 'processing' && answer.outcome.status !== 'pending') return answer;
    await sleep(25);
  }
  return adapter.fetchStatus(reference);
}
