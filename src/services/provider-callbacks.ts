/**
 * Provider callbacks (docs/payments.md#provider-callbacks): the callback route and the sandbox stand-ins (card confirm, bank
 * simulate) hand the provider's word about a payment to its workflow here. A callback is a hint:
 * the workflow asks the provider for the status before acting (docs/payments.md, "Callbacks").
 */
import { WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import type { Config } from '../config';
import { callbackMayChange } from '../domain/payment';
import type { PaymentSnapshot } from '../domain/payment-record';
import { paymentSearchAttributes, paymentWorkflowId, providerCallbackSignal, type PaymentWorkflowInput, type ProviderHint } from '../workflows/messages';

/** What delivering a hint needs. */
export interface ProviderHintDeps {
  temporal: Client;
  config: Pick<Config, 'TEMPORAL_TASK_QUEUE' | 'RECONCILIATION_WINDOW_DAYS'>;
}

/**
 * Signals `hint` to the payment's workflow, re-opening a closed one from the read model
 * (Signal-with-Start on the same workflow id, docs/payments.md#workflow) when the hint may change the payment: any hint
 * while it is open, a claimed success once it failed by expiry or provider error or was cancelled
 * (reconciliation, docs/payments.md#states). Other hints about a closed payment change nothing and start nothing.
 * @returns `signalled`, or `ignored` for a hint that cannot change the payment
 */
export async function deliverProviderHint(deps: ProviderHintDeps, payment: PaymentSnapshot, hint: ProviderHint): Promise<'signalled' | 'ignored'> {
  if (!callbackMayChange(payment, hint.claimed)) return 'ignored';
  const input: PaymentWorkflowInput = { mode: 'reopen', paymentId: payment.id, reconciliationWindowSeconds: deps.config.RECONCILIATION_WINDOW_DAYS * 86_400 };
  await deps.temporal.workflow.signalWithStart('paymentWorkflow', {
    taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
    workflowId: paymentWorkflowId(payment.id),
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    args: [input],
    signal: providerCallbackSignal,
    signalArgs: [hint],
    typedSearchAttributes: paymentSearchAttributes(payment),
  });
  return 'signalled';
}
