/**
 * The sandbox's stand-ins for what customers do outside the API (D14, D15): confirming a card on the
 * simulated gateway, and a bank transfer arriving. Both decide the simulated provider's transaction
 * and report it to the payment's workflow as the provider's callback would (D16).
 */
import { timingSafeEqual } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import type { Db } from '../db/knex';
import { findPayment, findPaymentByProviderReference } from '../db/payments';
import { decideSandboxTransaction, findSandboxTransactionByClientSecret, findSandboxTransactionByPayment } from '../db/sandbox-ledger';
import { DomainError } from '../domain/errors';
import { isOpen } from '../domain/payment';
import type { PaymentSnapshot } from '../domain/payment-record';
import type { Principal } from '../domain/principal';
import { behaviourForCard } from '../domain/sandbox';
import { answerOf, claimedStatusOf } from '../providers/sandbox/statuses';
import type { ProviderAnswer } from '../providers/provider';
import { deliverProviderHint } from './provider-callbacks';

/** What the sandbox service needs. */
export interface SandboxServiceDeps {
  db: Db;
  temporal: Client;
  config: Pick<Config, 'TEMPORAL_TASK_QUEUE' | 'RECONCILIATION_WINDOW_DAYS'>;
}

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Decides the simulated transaction of an open payment and tells its workflow, as the provider's callback would. */
async function decide(
  deps: SandboxServiceDeps,
  payment: PaymentSnapshot,
  decision: Parameters<typeof decideSandboxTransaction>[2],
): Promise<ProviderAnswer> {
  if (!isOpen(payment.status)) throw new DomainError('conflict', `the payment is already ${payment.status}`);
  const transaction = await findSandboxTransactionByPayment(deps.db, payment.provider, payment.id);
  if (!transaction) throw new DomainError('conflict', 'the payment is not at the provider yet; retry in a moment');
  if (transaction.status !== 'pending') throw new DomainError('conflict', 'the payment was already decided at the provider');
  const decided = (await decideSandboxTransaction(deps.db, transaction.provider_reference, decision, new Date())) ?? transaction;
  await deliverProviderHint(deps, payment, { providerReference: decided.provider_reference, claimed: claimedStatusOf(decided.status) });
  return answerOf(decided);
}

/**
 * The simulated card gateway's confirm (D15): the client secret the gateway gave proves the
 * payment; the card number decides (D14: 4242… succeeds, 4000…0002 is declined, 4000…9995 has
 * insufficient funds).
 * @returns the gateway's answer and the payment it was about
 * @throws DomainError `not_found` for an unknown client secret, `conflict` for a payment already decided
 */
export async function confirmSandboxCard(deps: SandboxServiceDeps, clientSecret: string, cardNumber: string): Promise<{ answer: ProviderAnswer; paymentId: string }> {
  const transaction = await findSandboxTransactionByClientSecret(deps.db, clientSecret);
  const payment = transaction ? await findPaymentByProviderReference(deps.db, transaction.provider, transaction.provider_reference) : undefined;
  if (!transaction?.client_secret || !payment || payment.environment !== 'sandbox' || !sameSecret(transaction.client_secret, clientSecret)) {
    throw new DomainError('not_found', 'no card payment with this client_secret');
  }
  const behaviour = behaviourForCard(cardNumber);
  const answer = await decide(
    deps,
    payment,
    behaviour.kind === 'decline'
      ? { status: 'failed', failureCode: behaviour.failureCode, failureMessage: behaviour.failureMessage }
      : { status: 'succeeded' },
  );
  return { answer, paymentId: payment.id };
}

/**
 * Simulates the customer's bank transfer arriving (`completed`) or being returned (`failed`) for a
 * sandbox bank transfer payment of the caller (D14).
 * @throws DomainError `not_found` (also for live keys and other methods), `conflict` when already decided
 */
export async function simulateBankTransfer(
  deps: SandboxServiceDeps,
  owner: Principal,
  paymentId: string,
  outcome: 'completed' | 'failed',
): Promise<ProviderAnswer> {
  const payment = owner.environment === 'sandbox' ? await findPayment(deps.db, owner, paymentId) : undefined;
  if (!payment || payment.provider !== 'bank_transfer') throw new DomainError('not_found', `no sandbox bank transfer payment with id ${paymentId}`);
  return decide(
    deps,
    payment,
    outcome === 'completed' ? { status: 'succeeded' } : { status: 'failed', failureCode: 'declined', failureMessage: 'The bank transfer was returned' },
  );
}
