/**
 * Provider callbacks (docs/payments.md#provider-callbacks): the callback route and the sandbox stand-ins (card confirm,
 * bank
 * simulate) hand the provider's word about a payment to its workflow here. A callback is a hint:
 * the workflow asks the provider for the status before acting.
 */
import { WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import type { Config } from '../config';
import type { Db } from '../db/knex';
import { findPaymentByProviderReference } from '../db/payments';
import type { ProviderCode } from '../domain/catalogue';
import { DomainError } from '../domain/errors';
import { callbackMayChange } from '../domain/payment';
import type { PaymentSnapshot } from '../domain/payment';
import { isOutage } from '../lib/outage';
import { byDeadline, DeadlinePassed } from '../lib/temporal-deadline';
import { ProviderRefusal, type CallbackRequest, type ParsedCallback } from '../providers/provider';
import type { ProviderRegistry } from '../providers/registry';
import {
  paymentSearchAttributes,
  paymentWorkflowId,
  PAYMENT_WORKFLOW_TASK_TIMEOUT_MS,
  providerCallbackSignal,
  type PaymentWorkflowInput,
  type ProviderHint,
} from '../workflows/messages';

/** What delivering a hint needs. */
export interface ProviderHintDeps {
  temporal: Client;
  config: Pick<Config, 'TEMPORAL_TASK_QUEUE' | 'RECONCILIATION_WINDOW_DAYS' | 'TEMPORAL_CALL_TIMEOUT_MS'>;
}

/**
 * Signals `hint` to the payment's workflow, re-opening a closed one from the read model
 * (Signal-with-Start on the same workflow id, docs/payments.md#workflow) when the hint may change the payment: any hint
 * while it is open, a claimed success once it failed by expiry or provider error or was cancelled
 * (reconciliation, docs/payments.md#states). Other hints about a closed payment change nothing and start nothing.
 * Answers within `TEMPORAL_CALL_TIMEOUT_MS` (milliseconds) even while Temporal refuses connections or stalls.
 * @returns `signalled`, or `ignored` for a hint that cannot change the payment
 * @throws DomainError `service_unavailable` (503) when Temporal did not take the signal by the deadline
 */
export async function deliverProviderHint(
  deps: ProviderHintDeps,
  payment: PaymentSnapshot,
  hint: ProviderHint,
): Promise<'signalled' | 'ignored'> {
  if (!callbackMayChange(payment, hint.claimed)) return 'ignored';
  const input: PaymentWorkflowInput = {
    mode: 'reopen',
    paymentId: payment.id,
    reconciliationWindowSeconds: deps.config.RECONCILIATION_WINDOW_DAYS * 86_400,
  };
  // Bounded (docs/operations.md#deadlines) as the Updates are: raced against its deadline, so that the client's own
  // pauses between retries of an unreachable Temporal cannot hold the provider's request past it.
  const deadline = Date.now() + deps.config.TEMPORAL_CALL_TIMEOUT_MS;
  try {
    await byDeadline(deps.temporal, deadline, () =>
      deps.temporal.workflow.signalWithStart('paymentWorkflow', {
        taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
        workflowId: paymentWorkflowId(payment.id),
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
        args: [input],
        signal: providerCallbackSignal,
        signalArgs: [hint],
        typedSearchAttributes: paymentSearchAttributes(payment),
        workflowTaskTimeout: PAYMENT_WORKFLOW_TASK_TIMEOUT_MS,
      }),
    );
  } catch (error) {
    if (error instanceof DeadlinePassed || isOutage(error)) throw hintNotDelivered();
    throw error;
  }
  return 'signalled';
}

/**
 * 503 `service_unavailable` (with `Retry-After`) for a hint that could not reach the payment's workflow by its deadline
 * (docs/payments.md#provider-callbacks, docs/operations.md#deadlines): the provider sends the callback again, and the
 * workflow's own polling learns the outcome meanwhile. A signal that did reach Temporal before the deadline is only
 * repeated by the provider's retry: a hint twice changes nothing more than once.
 */
function hintNotDelivered(): DomainError {
  return new DomainError(
    'service_unavailable',
    "the callback could not be handed to the payment's workflow in time; nothing is lost, send it again",
  );
}

/** What receiving a callback needs: the hint's deps, the read model and the adapters. */
export interface ProviderCallbackDeps extends ProviderHintDeps {
  db: Db;
  providers: ProviderRegistry;
}

/**
 * Authenticates and parses a callback of provider `code` with its adapters (sandbox first, then
 * live: every environment's adapter of a provider authenticates the same way), finds the payment
 * it names and hands the hint to the payment's workflow ({@link deliverProviderHint}).
 * @returns the payment's id, and `signalled` or `ignored`; for a payout's result (M-Pesa B2C), the payout's id and
 *   `recorded` (it decided the payout) or `ignored` (a repeated, late or undecided result); for a refund's result
 *   (M-Pesa's reversal), the refund's id and `recorded` or `ignored` alike
 * @throws DomainError `unauthorized` (401) when no adapter accepts the request (bad or missing
 *   signature, or no adapter configured for `code`); `not_found` (404) for an unknown provider_reference
 */
export async function receiveProviderCallback(
  deps: ProviderCallbackDeps,
  code: ProviderCode,
  request: CallbackRequest,
): Promise<
  | { paymentId: string; action: 'signalled' | 'ignored' }
  | { payoutId: string; action: 'recorded' | 'ignored' }
  | { refundId: string; action: 'recorded' | 'ignored' }
> {
  const adapters = (['sandbox', 'live'] as const).flatMap((environment) => deps.providers.get(environment, code) ?? []);
  let hint: ParsedCallback | undefined;
  let refusal: unknown;
  for (const adapter of adapters) {
    try {
      hint = await adapter.parseCallback(request);
      break;
    } catch (error) {
      if (!(error instanceof ProviderRefusal)) throw error;
      refusal = error;
    }
  }
  if (!hint)
    throw new DomainError(
      'unauthorized',
      refusal instanceof Error ? refusal.message : `no ${code} adapter is configured`,
    );
  // A payout's result, kept by the adapter for the payout's rail (docs/payouts.md#m-pesa-b2c): nothing to signal.
  if (hint.payoutId !== undefined) return { payoutId: hint.payoutId, action: hint.recorded ? 'recorded' : 'ignored' };
  // A refund's result (M-Pesa's reversal), kept by the adapter for the refund's status call (docs/providers.md#m-pesa).
  if (hint.refundId !== undefined) return { refundId: hint.refundId, action: hint.recorded ? 'recorded' : 'ignored' };
  const payment = await findPaymentByProviderReference(deps.db, code, hint.providerReference);
  if (!payment) throw new DomainError('not_found', 'no payment with this provider_reference');
  const action = await deliverProviderHint(deps, payment, {
    providerReference: hint.providerReference,
    claimed: hint.claimed,
  });
  return { paymentId: payment.id, action };
}
