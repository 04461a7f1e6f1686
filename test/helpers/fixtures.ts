/**
 * Rows and snapshots the workflow tests start from (a developer to own the payments,
 * docs/api.md#merchants-and-environments).
 */
import { insertDeveloperWithKey } from '../../src/db/developers';
import type { Db } from '../../src/db/knex';
import type { CheckoutSessionSnapshot } from '../../src/domain/checkout-table';
import type { Environment } from '../../src/domain/environment';
import type { PaymentSnapshot } from '../../src/domain/payment';
import { apply, initialPaymentState, type PaymentEvent } from '../../src/domain/payment-table';
import { newId } from '../../src/lib/ids';
import { issueSecretKey } from '../../src/lib/secret-keys';

/** Inserts a developer directly and returns its merchant id. */
export async function insertMerchant(db: Db): Promise<string> {
  const merchantId = newId('mer_');
  const key = issueSecretKey('sandbox');
  await insertDeveloperWithKey(db, {
    id: newId('dev_'),
    merchantId,
    email: `${merchantId.toLowerCase()}@example.com`,
    passwordHash: 'scrypt$unused',
    name: 'Fixture',
    businessName: null,
    key: { id: newId('key_'), hash: key.hash, last4: key.last4 },
  });
  return merchantId;
}

/**
 * A pending mobile money payment of 1500 RWF to `phone`, created at `nowMs` (the test server's clock
 * in time-skipping tests) and expiring `expirySeconds` later.
 */
export function mobileMoneyPayment(
  merchantId: string,
  phone: string,
  options: { environment?: Environment; expirySeconds?: number; nowMs?: number } = {},
): PaymentSnapshot {
  const now = new Date(options.nowMs ?? Date.now());
  return {
    id: newId('pay_'),
    merchantId,
    environment: options.environment ?? 'sandbox',
    family: 'generic',
    amount: 1500,
    amountRefunded: 0,
    currency: 'RWF',
    status: 'pending',
    paymentMethod: 'mobile_money',
    provider: 'momo',
    kind: 'mobile_money',
    description: 'Order 42',
    customerPhone: phone,
    customerEmail: null,
    metadata: {},
    feeAmount: 23,
    failureCode: null,
    failureMessage: null,
    providerReference: null,
    nextAction: null,
    expiresAt: new Date(now.getTime() + (options.expirySeconds ?? 600) * 1000).toISOString(),
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
  };
}

/** A pending card payment of 2500 USD cents, waiting for the card confirmation (docs/payments.md#card-payments). */
export function cardPayment(merchantId: string, options: { nowMs?: number } = {}): PaymentSnapshot {
  const base = mobileMoneyPayment(merchantId, '+250788000003', { nowMs: options.nowMs, expirySeconds: 24 * 3600 });
  return {
    ...base,
    amount: 2500,
    currency: 'USD',
    paymentMethod: 'card',
    provider: 'card_gateway',
    kind: 'card',
    customerPhone: null,
    feeAmount: 73,
    nextAction: { type: 'card_confirm', client_secret: `${base.id}_secret_test` },
  };
}

/** `payment` after the table's `event` at `at` (docs/payments.md#states); throws when the table refuses it. */
export function afterEvent(
  payment: PaymentSnapshot,
  event: PaymentEvent,
  at: string = new Date().toISOString(),
): PaymentSnapshot {
  const applied = apply(initialPaymentState(payment), event, at);
  if (!applied.ok) throw new Error(applied.refusal.message);
  return applied.state.payment;
}

/**
 * An open sandbox checkout session of 5 000 RWF with no attempts, created at `at` and expiring an hour later, with
 * `overrides` (docs/checkout.md#states).
 */
export function checkoutSessionSnapshot(
  at: string,
  overrides: Partial<CheckoutSessionSnapshot> = {},
): CheckoutSessionSnapshot {
  return {
    id: 'cs_test',
    merchantId: 'mer_1',
    environment: 'sandbox',
    amount: 5_000,
    currency: 'RWF',
    description: 'Fees',
    customerPhone: null,
    successUrl: 'https://shop.example/ok',
    cancelUrl: null,
    paymentLink: null,
    amountRange: null,
    collect: [],
    completionMessage: null,
    locale: 'en',
    metadata: {},
    status: 'open',
    payment: null,
    attempts: [],
    expiresAt: new Date(Date.parse(at) + 3_600_000).toISOString(),
    createdAt: at,
    updatedAt: at,
    completedAt: null,
    expiredAt: null,
    ...overrides,
  };
}
