/**
 * The fair baseline of figure (a): the least a create that waits for its provider and survives a crash can cost with
 * this stack (docs/capacity.md#the-fair-baseline). Shared by its API process (bench/baseline/fair-api.ts) and the
 * baseline worker: the payment it records, the in-process provider simulator, and the one local activity that
 * inserts the row and asks the simulator.
 *
 * Not deterministic code: the workflow imports only the types and the update definition from ./shared.
 */
import type { Db } from '../../src/db/knex';
import type { FairPayment } from './shared';

/**
 * The provider simulator, in process: accepts every request at once with a reference derived from the payment
 * id (no I/O, as the service's sandbox simulator does for its instant-success number, without its ledger).
 */
async function simulatorInitiate(paymentId: string): Promise<{ providerReference: string }> {
  await Promise.resolve();
  return { providerReference: `sim_${paymentId}` };
}

/**
 * The fair baseline's activities, run as local activities of `fairCreateWorkflow`: `recordAndInitiate` inserts the
 * payment's row into the service's own `payments` table (same indexes, constraints and foreign key) once per id,
 * asks the simulator, and answers the row with the provider's reference.
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
  };
}

/** The fair baseline's activity interface, for the workflow's proxy. */
export type FairActivities = ReturnType<typeof createFairActivities>;
