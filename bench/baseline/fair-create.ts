/**
 * The fair baseline of figure (a): the least a create that waits for its provider and survives a crash can cost with
 * this stack (docs/capacity.md#the-fair-baseline). Shared by its API process (bench/baseline/fair-api.ts) and the
 * baseline worker: the payment it records, the in-process provider simulator, the one local activity that inserts
 * the row and asks the simulator, and the poll that asks the simulator again while the payment waits.
 *
 * Not deterministic code: the workflow imports only the types and the update definition from ./shared.
 */
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import type { Db } from '../../src/db/knex';
import { FAILURE_TYPES } from '../../src/workflows/activity-contracts';
import type { FairPayment } from './shared';

/**
 * The provider simulator, in process: accepts every request at once with a reference derived from the payment id and
 * leaves it waiting for its customer (no I/O, as the service's sandbox simulator does for its never-answering number
 * `0003`, without its ledger).
 */
async function simulatorInitiate(paymentId: string): Promise<{ providerReference: string }> {
  await Promise.resolve();
  return { providerReference: `sim_${paymentId}` };
}

/** The simulator's status of a payment: always `pending` (its customer never answers). */
async function simulatorStatus(providerReference: string): Promise<{ providerReference: string; status: 'pending' }> {
  await Promise.resolve();
  return { providerReference, status: 'pending' };
}

/**
 * The fair baseline's activities. `recordAndInitiate`, a local activity of `fairCreateWorkflow`, inserts the
 * payment's row into the service's own `payments` table (same indexes, constraints and foreign key) once per id,
 * asks the simulator, and answers the row with the provider's reference. `pollSimulator`, a regular activity whose
 * retries are the later polls as the service's `pollProviderPayment`'s are, asks the simulator for the payment's
 * status and, while it is `pending`, fails with a benign retryable failure of the service's type
 * (`FAILURE_TYPES.providerStillWaiting`), so that the server schedules the next poll.
 */
export function createFairActivities(db: Db) {
  return {
    async recordAndInitiate(payment: FairPayment): Promise<FairPayment> {
      await db('payments')
        .insert({
          id: payment.id,
          merchant_id: payment.merchantId,
          environment: payment.environment,
          family: 'generic',
          amount: payment.amount,
          amount_refunded: 0,
          currency: payment.currency,
          status: 'pending',
          payment_method: payment.paymentMethod,
          provider: payment.provider,
          customer_phone: payment.customerPhone,
          metadata: {},
          fee_amount: 0,
          version: 0,
          expires_at: new Date(payment.expiresAt),
          created_at: new Date(payment.createdAt),
          updated_at: new Date(payment.createdAt),
        })
        .onConflict('id')
        .ignore();
      const { providerReference } = await simulatorInitiate(payment.id);
      return { ...payment, providerReference };
    },

    async pollSimulator(providerReference: string): Promise<never> {
      const answer = await simulatorStatus(providerReference);
      throw ApplicationFailure.create({
        type: FAILURE_TYPES.providerStillWaiting,
        message: `the provider still says ${answer.status}`,
        category: ApplicationFailureCategory.BENIGN,
      });
    },
  };
}

/** The fair baseline's activity interface, for the workflow's proxy. */
export type FairActivities = ReturnType<typeof createFairActivities>;
