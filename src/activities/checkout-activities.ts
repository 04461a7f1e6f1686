/**
 * The activities of a checkout session's workflow (docs/checkout.md#states): the session's one writer (its row
 * and its events, src/db/checkout-sessions.ts), its attempts' payments through the payment create path, a duplicate's
 * settlement (its refund, reason `duplicate`, where its provider refunds, else the reconciliation exception), and
 * the payment's word to its session (a Signal-with-Start, so a session whose run ended hears a late success too).
 */
import { WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import type { Config } from '../config';
import {
  findCheckoutSessionById,
  insertCheckoutSession,
  recordDuplicateCheckoutPayment,
  writeCheckoutSession,
} from '../db/checkout-sessions';
import type { Db } from '../db/knex';
import { settleLinkReservations } from '../db/payment-links';
import { findPaymentById, findRefund, type EventInput } from '../db/payments';
import type { CheckoutEmittedEvent, CheckoutSessionSnapshot } from '../domain/checkout-table';
import { ID_PREFIXES } from '../domain/ids';
import type { PaymentSnapshot } from '../domain/payment';
import type { RefundRecord } from '../domain/refund';
import { duplicateCheckoutException } from '../domain/reconciliation';
import { insertAuditEntries } from '../db/audit-log';
import { DUPLICATE_REFUND_REASON } from '../domain/checkout-table';
import { refundPaymentUpdate } from '../workflows/messages';
import { decidedRefusal, paymentWorkflowStart, reopenPaymentInput } from './payment-create';
import { auditEntry } from '../lib/audit';
import { deriveId } from '../lib/ids';
import type { ProviderRegistry } from '../providers/registry';
import { startPayment, type PaymentCreateDeps } from './payment-create';
import { toCheckoutSessionView } from '../views/checkout';
import {
  checkoutAttemptOutcomeSignal,
  checkoutWorkflowId,
  type CheckoutActivities,
  type CheckoutWorkflowInput,
} from '../workflows/checkout-messages';
import { EnvironmentAttribute, MerchantIdAttribute } from '../workflows/messages';
import { subjectEvent } from './events';
import { startWebhookDeliveries } from './webhook-dispatch';
import { workflowStartOptions } from './workflow-start';
import { temporalNow } from './temporal-clock';

/** Dependencies of the checkout activities: the payment service's, and where the page lives. */
export interface CheckoutActivityDeps {
  db: Db;
  temporal: Client;
  providers: ProviderRegistry;
  config: PaymentCreateDeps['config'] & Pick<Config, 'TEMPORAL_WEBHOOK_TASK_QUEUE' | 'PUBLIC_BASE_URL'>;
}

/**
 * How a session's workflow is started, by whoever starts it (the API's create, a payment's late word): the id
 * `checkout:{cs_id}` on the payments task queue, the merchant on every log line and in the Temporal UI.
 */
export function checkoutWorkflowStart(
  session: Pick<CheckoutSessionSnapshot, 'id' | 'merchantId' | 'environment'>,
  taskQueue: string,
  create?: CheckoutSessionSnapshot,
) {
  const input: CheckoutWorkflowInput = { sessionId: session.id, ...(create ? { create } : {}) };
  return workflowStartOptions(taskQueue, checkoutWorkflowId(session.id), input, [
    { key: MerchantIdAttribute, value: session.merchantId },
    { key: EnvironmentAttribute, value: session.environment },
  ]);
}

/**
 * The event row `type` of `session` (docs/checkout.md#api): `data` is the session as the merchant reads it; its id
 * derives from the session and the type, so it is written once whatever the retries.
 */
export function checkoutEvent(
  session: CheckoutSessionSnapshot,
  type: CheckoutEmittedEvent,
  baseUrl: string,
): EventInput {
  return subjectEvent('checkout', session, type, type, toCheckoutSessionView(session, baseUrl));
}

/**
 * The id of the refund that settles a checkout session's duplicate payment `paymentId` (docs/checkout.md#states):
 * derived from the payment, so a retry reattaches to the one refund, and the refund's outcome knows it for one.
 */
export function duplicateRefundIdOf(paymentId: string): string {
  return deriveId(ID_PREFIXES.refund, `checkout-duplicate:${paymentId}`);
}

/**
 * Refunds a checkout's duplicate `payment` in full with reason `duplicate` (docs/checkout.md#states) by its workflow
 * (re-opened when its run ended), under a refund id derived from the payment, so a retry reattaches to the one refund;
 * the activity log names the session as the actor.
 * @returns the refund as it stands (`pending`, `completed` or `failed`), or undefined when the payment's table
 *   refuses it (its provider takes no refund of it)
 * @throws anything else, to be retried (Temporal unreachable, the Update unanswered)
 */
async function refundDuplicate(
  deps: CheckoutActivityDeps,
  payment: PaymentSnapshot,
  sessionId: string,
): Promise<RefundRecord | undefined> {
  const refundId = duplicateRefundIdOf(payment.id);
  const scope = { merchantId: payment.merchantId, environment: payment.environment };
  const made = await findRefund(deps.db, scope, refundId);
  if (made) return made;
  const start = paymentWorkflowStart(
    deps.config,
    payment,
    reopenPaymentInput(deps.config, payment.id),
    WorkflowIdReusePolicy.ALLOW_DUPLICATE,
  );
  const capabilities = deps.providers.get(payment.environment, payment.provider)?.supports;
  let refund: RefundRecord;
  try {
    refund = await deps.temporal.workflow.executeUpdateWithStart(refundPaymentUpdate, {
      args: [{ refundId, reason: DUPLICATE_REFUND_REASON, capabilities }],
      updateId: refundId,
      startWorkflowOperation: start,
    });
  } catch (error) {
    if (decidedRefusal(error)) return (await findRefund(deps.db, scope, refundId)) ?? undefined;
    throw error;
  }
  await insertAuditEntries(deps.db, [
    auditEntry({
      ...scope,
      actor: { type: 'system', id: `checkout:${sessionId}` },
      action: 'refund.created',
      target: refund.id,
      ip: null,
      requestId: null,
      userAgent: null,
    }),
  ]);
  return refund;
}

/** Builds the checkout activities around their dependencies. */
export function createCheckoutActivities(deps: CheckoutActivityDeps): CheckoutActivities {
  const dispatch = { db: deps.db, temporal: deps.temporal, taskQueue: deps.config.TEMPORAL_WEBHOOK_TASK_QUEUE };
  const baseUrl = deps.config.PUBLIC_BASE_URL ?? '';
  return {
    async storeCheckoutSession(session) {
      return insertCheckoutSession(deps.db, session);
    },

    async loadCheckoutSession(sessionId) {
      const session = await findCheckoutSessionById(deps.db, sessionId);
      if (!session) throw new Error(`checkout session ${sessionId} is not stored`);
      return session;
    },

    async recordCheckoutSession({ session, emit }) {
      const event = emit ? checkoutEvent(session, emit, baseUrl) : undefined;
      // A link's session settles its attempts' reservations with the same write (docs/payment-links.md#limits).
      await deps.db.transaction(async (trx) => {
        await writeCheckoutSession(trx, session, event);
        if (session.paymentLink) await settleLinkReservations(trx, session);
      });
      // Once per event id: a retry of this write starts no second delivery.
      if (event) await startWebhookDeliveries(dispatch, event);
    },

    async startCheckoutPayment({ session, attempt }) {
      // The payer acts by the capability the merchant created: the activity log names the checkout as the actor.
      const audit = auditEntry({
        merchantId: session.merchantId,
        environment: session.environment,
        actor: { type: 'system', id: `checkout:${session.id}` },
        action: 'payment.created',
        target: attempt.paymentId,
        ip: null,
        requestId: null,
        userAgent: null,
      });
      const amount = attempt.amount ?? session.amount;
      if (amount === null) throw new Error(`checkout session ${session.id} has no amount for ${attempt.paymentId}`);
      // A link's collected name goes to the payment's metadata, its email to the payment's customer email
      // (docs/payment-links.md#collect).
      const metadata: Record<string, string> = { checkout_session: session.id };
      if (session.paymentLink) metadata.payment_link = session.paymentLink;
      if (attempt.collected?.name !== undefined) metadata.customer_name = attempt.collected.name;
      return startPayment(
        deps,
        session,
        attempt.paymentId,
        {
          family: 'generic',
          amount,
          currency: session.currency,
          ...(attempt.paymentMethod === 'card'
            ? { paymentMethod: 'card', resolved: { provider: attempt.provider, kind: 'card' } }
            : {
                paymentMethod: 'mobile_money',
                resolved: { provider: attempt.provider, kind: 'mobile_money', customerPhone: attempt.customerPhone },
              }),
          description: session.description,
          metadata,
          ...(attempt.collected?.email === undefined ? {} : { customerEmail: attempt.collected.email }),
          checkoutSession: session.id,
        },
        audit,
        // The payment's times (created, expires, decision time) on Temporal's clock, as the session's run admitted it:
        // its workflow times the expiry by that clock, whatever this host's clock says.
        temporalNow(),
      );
    },

    async settleDuplicateCheckoutPayment({ session, payment: paymentId }) {
      const payment = await findPaymentById(deps.db, paymentId);
      if (!payment) throw new Error(`payment ${paymentId} is not stored`);
      const refund = await refundDuplicate(deps, payment, session.id);
      // A refund the provider took without deciding it yet (an M-Pesa reversal, say) is left to its payment's
      // workflow: if the provider refuses it later, the refund's outcome records the exception in the same write.
      if (refund?.status === 'completed' || refund?.status === 'pending') return;
      await recordDuplicateCheckoutPayment(
        deps.db,
        { provider: payment.provider, environment: payment.environment },
        duplicateCheckoutException(payment, session.id),
      );
    },

    async tellCheckoutSession({ sessionId, payment, outcome }) {
      const session = await findCheckoutSessionById(deps.db, sessionId);
      if (!session) throw new Error(`checkout session ${sessionId} is not stored`);
      await deps.temporal.workflow.signalWithStart('checkoutWorkflow', {
        ...checkoutWorkflowStart(session, deps.config.TEMPORAL_TASK_QUEUE),
        signal: checkoutAttemptOutcomeSignal,
        signalArgs: [{ payment, outcome }],
      });
    },
  };
}
