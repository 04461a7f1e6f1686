/**
 * The payment create path (docs/payments.md#workflow) shared by the API's create (src/services/payment-service.ts) and
 * a checkout session's attempt (src/activities/checkout-activities.ts): builds the payment as the request made it
 * (`pending`) and starts its workflow with the `initiatePayment` Update (Update-with-Start, `updateWithStartWithin`).
 * The API writes no payment row: the workflow's first step does.
 */
import {
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  WorkflowUpdateFailedError,
  type Client,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { Config } from '../config';
import type { Db } from '../db/knex';
import { findPayment } from '../db/payments';
import type { AuditEntry } from '../domain/audit-log';
import { PROVIDER_KINDS, type MethodKind, type PaymentMethod } from '../domain/catalogue';
import type { ResolvedPayment } from '../domain/create-payment';
import { DomainError, ERROR_CODES, type ErrorCode } from '../domain/errors';
import { feeFor } from '../domain/fees';
import type { Currency } from '../domain/money';
import type { PaymentSnapshot } from '../domain/payment';
import { withDecisionTime } from '../domain/payment-table';
import type { Principal } from '../domain/principal';
import { createWithStart, type UpdateWithStartOutcome } from '../lib/temporal-deadline';
import { FAILURE_TYPES } from '../workflows/activity-contracts';
import {
  INITIATE_UPDATE_ID,
  initiatePaymentUpdate,
  paymentSearchAttributes,
  paymentWorkflowId,
  PAYMENT_WORKFLOW_TASK_TIMEOUT_MS,
  type PaymentWorkflowInput,
} from '../workflows/messages';

/** What the create path needs. */
export interface PaymentCreateDeps {
  db: Db;
  temporal: Client;
  config: Pick<
    Config,
    | 'TEMPORAL_TASK_QUEUE'
    | 'EXPIRY_MOBILE_MONEY_SECONDS'
    | 'EXPIRY_BANK_TRANSFER_SECONDS'
    | 'EXPIRY_CARD_SECONDS'
    | 'EXPIRY_WALLET_SECONDS'
    | 'REFUND_WINDOW_DAYS'
    | 'RECONCILIATION_WINDOW_DAYS'
    | 'CREATE_WAIT_MS'
    | 'TEMPORAL_CALL_TIMEOUT_MS'
  >;
}

/** A payment to create once its request was validated and resolved to a provider. */
export interface NewPayment {
  family: PaymentSnapshot['family'];
  amount: number;
  currency: Currency;
  paymentMethod: PaymentMethod;
  resolved: ResolvedPayment & { walletId?: string };
  description?: string;
  customerEmail?: string;
  metadata?: Record<string, string>;
  /**
   * Seconds until the payment expires (docs/payments.md#sandbox-scenarios `expires_in`); default the method's expiry.
   */
  expiresInSeconds?: number;
  /** The checkout session this payment is an attempt of (docs/checkout.md#states). */
  checkoutSession?: string;
}

/** The method's default expiry in seconds (docs/payments.md#states). */
export function expirySeconds(
  config: Pick<
    Config,
    'EXPIRY_MOBILE_MONEY_SECONDS' | 'EXPIRY_BANK_TRANSFER_SECONDS' | 'EXPIRY_CARD_SECONDS' | 'EXPIRY_WALLET_SECONDS'
  >,
  kind: MethodKind,
): number {
  switch (kind) {
    case 'mobile_money':
      return config.EXPIRY_MOBILE_MONEY_SECONDS;
    case 'bank_transfer':
      return config.EXPIRY_BANK_TRANSFER_SECONDS;
    case 'card':
      return config.EXPIRY_CARD_SECONDS;
    case 'wallet':
      return config.EXPIRY_WALLET_SECONDS;
  }
}

/**
 * 503 `service_unavailable` for a create whose workflow may have started but could not be
 * confirmed in time (Temporal stalled or gone, docs/operations.md#deadlines): the payment may exist, so the
 * caller is told to retry with the same `Idempotency-Key`, which reattaches to it (docs/payments.md#idempotency).
 */
function createOutcomeUnknown(): DomainError {
  return new DomainError(
    'service_unavailable',
    'the payment could not be confirmed in time and may have been created; retry the request with the same Idempotency-Key to get it',
  );
}

/** True for an Update failure the workflow decided (its type is one of our error codes, docs/api.md#errors). */
export function decidedRefusal(error: unknown): DomainError | undefined {
  if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure) {
    const code = error.cause.type as ErrorCode;
    if (ERROR_CODES.includes(code)) return new DomainError(code, error.cause.message);
  }
  return undefined;
}

/**
 * The start of `payment`'s workflow with `input` that an Update-with-Start carries (docs/payments.md#workflow): on the
 * payments task queue, a running run used as it is, `reuse` deciding whether an ended run's id starts again.
 */
export function paymentWorkflowStart(
  config: Pick<Config, 'TEMPORAL_TASK_QUEUE'>,
  payment: Parameters<typeof paymentSearchAttributes>[0] & { id: string },
  input: PaymentWorkflowInput,
  reuse: WorkflowIdReusePolicy,
) {
  return new WithStartWorkflowOperation('paymentWorkflow', {
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    workflowId: paymentWorkflowId(payment.id),
    args: [input],
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    workflowIdReusePolicy: reuse,
    typedSearchAttributes: paymentSearchAttributes(payment),
    workflowTaskTimeout: PAYMENT_WORKFLOW_TASK_TIMEOUT_MS,
  });
}

/**
 * The input that re-opens `paymentId`'s workflow from its stored state (an Update to a payment whose run ended,
 * docs/payments.md#workflow), with the configured windows.
 */
export function reopenPaymentInput(
  config: Pick<Config, 'RECONCILIATION_WINDOW_DAYS' | 'REFUND_WINDOW_DAYS'>,
  paymentId: string,
): PaymentWorkflowInput {
  return {
    mode: 'reopen',
    paymentId,
    reconciliationWindowSeconds: config.RECONCILIATION_WINDOW_DAYS * 86_400,
    refundWindowSeconds: config.REFUND_WINDOW_DAYS * 86_400,
  };
}

/**
 * The 400 a create got when its workflow's run ended without recording the payment because
 * PostgreSQL refused its data (`PaymentNotRecorded`); undefined for a run that ended otherwise.
 */
async function refusalOfClosedCreate(deps: PaymentCreateDeps, paymentId: string): Promise<DomainError | undefined> {
  try {
    await deps.temporal.withDeadline(Date.now() + deps.config.TEMPORAL_CALL_TIMEOUT_MS, () =>
      deps.temporal.workflow.getHandle(paymentWorkflowId(paymentId)).result(),
    );
  } catch (error) {
    if (
      error instanceof WorkflowFailedError &&
      error.cause instanceof ApplicationFailure &&
      error.cause.type === FAILURE_TYPES.paymentNotRecorded
    ) {
      return new DomainError('validation_error', error.cause.message);
    }
  }
  return undefined;
}

/**
 * Starts the workflow of payment `id` of `owner` for `request` and answers what its `initiatePayment` Update returns:
 * `pending` with the provider's `next_action`, or `failed` for an outright refusal; after CREATE_WAIT_MS without an
 * answer, the payment as the read model or the request knows it (docs/payments.md#workflow). A start of an id whose
 * workflow runs reattaches to it; one whose run closed answers the stored payment.
 * @param audit the create's activity-log entry, written with the payment's row by the workflow's first step
 * @param now when the payment is created (its `created_at`, and its `expires_at` and decision time counted from it):
 *   the API's own clock by default; a workflow's activity gives the time Temporal scheduled it, the clock the
 *   payment's workflow times its expiry by
 * @throws DomainError `validation_error` (400) when PostgreSQL refuses the payment's data (nothing is created);
 *   `service_unavailable` (503) when the workflow could not be confirmed started in time
 */
export async function startPayment(
  deps: PaymentCreateDeps,
  owner: Pick<Principal, 'merchantId' | 'environment'>,
  id: string,
  request: NewPayment,
  audit: AuditEntry,
  now: Date = new Date(),
): Promise<PaymentSnapshot> {
  const { provider } = request.resolved;
  const kind = PROVIDER_KINDS[provider];
  // Why it waits and until when, as the payment's table decides for a new payment (docs/payments.md#decision-time).
  const payment: PaymentSnapshot = withDecisionTime(
    {
      id,
      merchantId: owner.merchantId,
      environment: owner.environment,
      family: request.family,
      amount: request.amount,
      amountRefunded: 0,
      currency: request.currency,
      status: 'pending',
      paymentMethod: request.paymentMethod,
      provider,
      kind,
      description: request.description ?? null,
      customerPhone: request.resolved.customerPhone ?? null,
      customerEmail: request.customerEmail ?? null,
      walletId: request.resolved.walletId ?? null,
      metadata: request.metadata ?? {},
      feeAmount: feeFor(request.amount, provider, request.resolved.country),
      failureCode: null,
      failureMessage: null,
      cancellationReason: null,
      providerReference: null,
      nextAction: null,
      expiresAt: new Date(
        now.getTime() + (request.expiresInSeconds ?? expirySeconds(deps.config, kind)) * 1000,
      ).toISOString(),
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
      reconciledAt: null,
      lateAnswer: null,
      version: 0,
      ...(request.checkoutSession ? { checkoutSession: request.checkoutSession } : {}),
    },
    undefined,
    now.toISOString(),
  );
  const input: PaymentWorkflowInput = {
    mode: 'create',
    payment,
    // Written with the payment's row by the workflow's first step, once however often the step runs.
    audit,
    reconciliationWindowSeconds: deps.config.RECONCILIATION_WINDOW_DAYS * 86_400,
    refundWindowSeconds: deps.config.REFUND_WINDOW_DAYS * 86_400,
  };
  const start = paymentWorkflowStart(deps.config, payment, input, WorkflowIdReusePolicy.REJECT_DUPLICATE);
  let outcome: UpdateWithStartOutcome<PaymentSnapshot>;
  try {
    // The one create-and-wait choreography (src/lib/temporal-deadline.ts): the answer within CREATE_WAIT_MS, else
    // whether the workflow runs within TEMPORAL_CALL_TIMEOUT_MS more (docs/operations.md#deadlines).
    outcome = await createWithStart(deps.temporal, deps.config, start, initiatePaymentUpdate, INITIATE_UPDATE_ID);
  } catch (error) {
    const refused = decidedRefusal(error);
    if (refused) throw refused; // e.g. data PostgreSQL refuses: 400, nothing created
    if (error instanceof WorkflowExecutionAlreadyStartedError) {
      // The workflow of this key's payment ran and closed: the read model has the payment, or the
      // run ended without recording it, refused for its data (the same request gets the same 400).
      const stored = await findPayment(deps.db, owner, id);
      if (stored) return stored;
      throw (await refusalOfClosedCreate(deps, id)) ?? error;
    }
    throw error;
  }
  if (outcome.answered !== undefined) return outcome.answered;
  if (!outcome.running) throw createOutcomeUnknown();
  // The row is the workflow's to write (one writer): answered from the read model when the workflow got that far,
  // else from the request, as the workflow started with it; `GET` reads it from the workflow meanwhile.
  return (await findPayment(deps.db, owner, id)) ?? payment;
}
