/**
 * The sandbox's stand-ins for what customers do outside the API (docs/payments.md#sandbox-scenarios,
 * docs/payments.md#card-payments): confirming a card on the
 * simulated gateway, and a bank transfer arriving or being returned. Both decide the simulated
 * provider's transaction in its ledger, then hand the provider's word to the payment's workflow as
 * the provider's callback would (a hint the workflow confirms with the provider, docs/payments.md#provider-callbacks).
 */
import { sameSecret } from '../lib/constant-time';
import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import type { Db } from '../db/knex';
import { findPayment, findPaymentByProviderReference } from '../db/payments';
import {
  decidePendingSandboxTransaction,
  findSandboxTransaction,
  findSandboxTransactionByPayment,
} from '../db/sandbox-ledger';
import { DomainError } from '../domain/errors';
import { isOpen, type PaymentSnapshot, type ProviderAnswer } from '../domain/payment';
import type { Principal } from '../domain/principal';
import { behaviourForCard, providerReferenceOfClientSecret } from '../domain/sandbox';
import type { SandboxDecision, SandboxTransaction } from '../domain/sandbox-ledger';
import { answerOf, claimedStatusOf } from '../providers/sandbox/statuses';
import { deliverProviderHint } from './provider-callbacks';

/**
 * What the sandbox service needs: the database (payments and the simulators' ledger), a Temporal
 * client and the settings with which hints reach (or re-open) a payment's workflow.
 */
export interface SandboxServiceDeps {
  db: Db;
  temporal: Client;
  config: Pick<
    Config,
    'TEMPORAL_TASK_QUEUE' | 'RECONCILIATION_WINDOW_DAYS' | 'TEMPORAL_CALL_TIMEOUT_MS' | 'REFUND_WINDOW_DAYS'
  >;
}

/**
 * Decides the simulated transaction of an open payment, then tells its workflow as the provider's
 * callback would.
 * @throws DomainError `conflict` when the payment is closed or the transaction was already decided
 *   (by another confirm, a simulate, a cancel, or by itself: the customer approved, the transfer arrived)
 */
async function decide(
  deps: SandboxServiceDeps,
  payment: PaymentSnapshot,
  transaction: SandboxTransaction,
  decision: SandboxDecision,
): Promise<ProviderAnswer> {
  if (!isOpen(payment.status)) throw new DomainError('conflict', `the payment is already ${payment.status}`);
  const result = await decidePendingSandboxTransaction(deps.db, transaction.provider_reference, decision, new Date());
  if (!result?.decided) throw new DomainError('conflict', 'the payment was already decided at the provider');
  const decided = result.transaction;
  await deliverProviderHint(deps, payment, {
    providerReference: decided.provider_reference,
    claimed: claimedStatusOf(decided.status),
  });
  return answerOf(decided);
}

/**
 * The simulated card gateway's confirm (docs/payments.md#card-payments): the client secret the gateway gave proves the
 * payment (the transaction it names is looked up, then the secret compared in constant time); the
 * card number decides (docs/payments.md#sandbox-scenarios: 4242… succeeds, 4000…9995 has insufficient funds, any other
 * is declined).
 * @returns the gateway's answer (`completed`, or `failed` with its failure code) and the payment's id
 * @throws DomainError `not_found` for an unknown or malformed client secret and for non-sandbox
 *   payments, `conflict` for a payment already decided
 */
export async function confirmSandboxCard(
  deps: SandboxServiceDeps,
  clientSecret: string,
  cardNumber: string,
): Promise<{ answer: ProviderAnswer; paymentId: string }> {
  const reference = providerReferenceOfClientSecret(clientSecret);
  const transaction = reference ? await findSandboxTransaction(deps.db, reference) : undefined;
  const known = transaction?.client_secret ? sameSecret(transaction.client_secret, clientSecret) : false;
  const payment =
    transaction && known
      ? await findPaymentByProviderReference(deps.db, transaction.provider, transaction.provider_reference)
      : undefined;
  if (!transaction || !payment || payment.environment !== 'sandbox')
    throw new DomainError('not_found', 'no card payment with this client_secret');
  const behaviour = behaviourForCard(cardNumber);
  const answer = await decide(
    deps,
    payment,
    transaction,
    behaviour.kind === 'decline'
      ? { status: 'failed', failureCode: behaviour.failureCode, failureMessage: behaviour.failureMessage }
      : { status: 'succeeded' },
  );
  return { answer, paymentId: payment.id };
}

/**
 * Simulates the customer's bank transfer arriving (`completed`) or being returned (`failed`,
 * `declined`) for a sandbox bank transfer payment of the caller (docs/payments.md#sandbox-scenarios).
 * @returns the simulated bank's answer
 * @throws DomainError `not_found` (also for live keys and other methods), `conflict` when already
 *   decided or when the payment is not at the provider yet
 */
export async function simulateBankTransfer(
  deps: SandboxServiceDeps,
  owner: Principal,
  paymentId: string,
  outcome: 'completed' | 'failed',
): Promise<ProviderAnswer> {
  const payment = owner.environment === 'sandbox' ? await findPayment(deps.db, owner, paymentId) : undefined;
  if (!payment || payment.provider !== 'bank_transfer')
    throw new DomainError('not_found', `no sandbox bank transfer payment with id ${paymentId}`);
  const transaction = await findSandboxTransactionByPayment(deps.db, payment.provider, payment.id);
  if (!transaction) throw new DomainError('conflict', 'the payment is not at the provider yet; retry in a moment');
  return decide(
    deps,
    payment,
    transaction,
    outcome === 'completed'
      ? { status: 'succeeded' }
      : { status: 'failed', failureCode: 'declined', failureMessage: 'The bank transfer was returned' },
  );
}
