/**
 * Creating, reading, cancelling and refunding payments (docs/limits.md#amounts, docs/payments.md). Every change goes
 * through the payment's workflow, so the answer is what the workflow decided (docs/payments.md#cancel-and-refund):
 * - create is Update-with-Start: the API starts the workflow and waits (at most CREATE_WAIT_MS)
 *   for its `initiatePayment` Update, which answers once the payment is recorded and the provider
 *   answered, with its `next_action` (docs/payments.md#workflow);
 * - cancel and refund are Update-with-Start on the same workflow id: a final payment's workflow
 *   has ended, and the Update re-opens it from the read model (docs/payments.md#workflow).
 * Ids derive from merchant, environment and `Idempotency-Key` when one is given (docs/payments.md#idempotency), so a
 * retried
 * request reattaches to the same workflow and Update instead of creating a second payment or refund.
 */
import { WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import type { Config } from '../config';
import type { Db } from '../db/knex';
import { findPayment, findPaymentListPosition, findRefund, listPaymentsPage } from '../db/payments';
import { PROVIDER_KINDS } from '../domain/catalogue';
import { providerUnavailable } from '../domain/create-payment';
import { DomainError, validationError, type ErrorCode } from '../domain/errors';
import { cursorPosition } from './list-cursor';
import { ID_PREFIXES } from '../domain/ids';
import type { PaymentSnapshot, PendingReason } from '../domain/payment';
import { apply, expiresInProblem } from '../domain/payment-table';
import type { Principal } from '../domain/principal';
import type { RefundRecord } from '../domain/refund';
import { audit, auditEntryOf } from './audit';
import { refuseCreateWhenDown } from './provider-health-service';
import {
  decidedRefusal,
  paymentWorkflowStart,
  reopenPaymentInput,
  expirySeconds,
  startPayment,
  type NewPayment,
  type PaymentCreateDeps,
} from '../activities/payment-create';

export { expirySeconds, type NewPayment };
import { deriveId, newId } from '../lib/ids';
import { byDeadline, UpdateUnanswered, updateWithin } from '../lib/temporal-deadline';
import type { ProviderRegistry } from '../providers/registry';
import type { PaymentViewContext } from '../views/payment';
import {
  cancelPaymentUpdate,
  paymentWorkflowId,
  refundPaymentUpdate,
  type PaymentWorkflowInput,
} from '../workflows/messages';

/** What the payment service needs. */
export interface PaymentServiceDeps {
  db: Db;
  temporal: Client;
  providers: ProviderRegistry;
  /** The create path's settings (src/activities/payment-create.ts), and the Updates' and idempotency's. */
  config: PaymentCreateDeps['config'] & Pick<Config, 'IDEMPOTENCY_LEASE_MS' | 'UPDATE_DEADLINE_MS'>;
}

/**
 * How the API judges a payment's `refundable` and `cancellable` (docs/payments.md#refundable-and-cancellable): with
 * the capabilities of the adapter that serves it (the simulator's in sandbox, which are its live adapter's) and the
 * configured refund window, now.
 */
export function paymentViewContext(deps: {
  providers?: ProviderRegistry;
  config: Pick<Config, 'REFUND_WINDOW_DAYS'>;
}): PaymentViewContext {
  return {
    capabilities: (payment) => deps.providers?.get(payment.environment, payment.provider)?.supports,
    refundWindowDays: deps.config.REFUND_WINDOW_DAYS,
  };
}

/**
 * What reading a payment needs: the read model, and Temporal (with TEMPORAL_CALL_TIMEOUT_MS) for a payment whose
 * workflow has not written it yet.
 */
export interface PaymentReaderDeps {
  db: Db;
  temporal?: Client;
  config?: Pick<Config, 'TEMPORAL_CALL_TIMEOUT_MS'>;
}

/**
 * The id of a resource created by a request: derived from merchant, environment, the request's
 * kind and its idempotency seed (`Idempotency-Key` and request hash) when there is one (docs/payments.md#idempotency),
 * else random.
 */
function requestId(prefix: string, owner: Principal, scope: string, idempotencySeed: string | undefined): string {
  if (!idempotencySeed) return newId(prefix);
  return deriveId(prefix, `${owner.merchantId}:${owner.environment}:${scope}:${idempotencySeed}`);
}

/**
 * The payment as the table's pre-check sees it: the stored row without its refunds in flight (the workflow holds
 * those; counting the read model's could refuse what the workflow accepts), so the API never refuses what the
 * workflow would accept (docs/payments.md#states).
 */
function stateOfStored(payment: PaymentSnapshot) {
  return { payment: { ...payment, amountRefundPending: 0 }, pendingRefunds: [] };
}

/** The table's event of a refund request, with the configured refund window (docs/payments.md#states). */
function refundRequestOf(
  refundId: string,
  request: { amount?: number; reason?: string },
  config: Pick<Config, 'REFUND_WINDOW_DAYS'>,
) {
  return {
    type: 'refund_accepted' as const,
    refundId,
    amount: request.amount,
    reason: request.reason ?? null,
    refundWindowMs: config.REFUND_WINDOW_DAYS * 86_400_000,
  };
}

/**
 * 503 `service_unavailable`: the workflow could not take the request now, and nothing happened (docs/api.md#errors).
 */
function unavailable(): DomainError {
  return new DomainError(
    'service_unavailable',
    'the payment could not take this request right now; nothing was changed, retry in a moment',
  );
}

/**
 * Creates a payment of either family for the caller's merchant and environment (docs/payments.md#workflow): starts its
 * workflow with the `initiatePayment` Update (Update-with-Start) and answers what the Update
 * returns: `pending` with the provider's `next_action` for an accepted request, `failed` for an
 * outright refusal. After CREATE_WAIT_MS without an answer, the payment as the read model or the
 * request knows it (`pending`, no next action yet); the API writes no payment row, the workflow's activities
 * do. A retried request with the same `Idempotency-Key` reattaches to the same payment (docs/payments.md#idempotency).
 * @param idempotencySeed the request's `Idempotency-Key` and hash (the idempotency middleware's `idempotencySeed`)
 * @param seedFirstUse the key was not on record when claimed (`idempotencyKeyFirstUse`): its payment is not looked up
 *   before the start
 * @returns the payment
 * @throws DomainError `provider_unavailable` (503) in live mode without an adapter (docs/providers.md#adapters), or
 *   with `Retry-After` when the merchant's `refuse_when_provider_down` is on and the operator is down
 *   (docs/availability.md#api-create; nothing is created); `validation_error` (400) when PostgreSQL refuses the
 *   payment's data (nothing is created)
 */
export async function createPayment(
  deps: PaymentServiceDeps,
  owner: Principal,
  request: NewPayment,
  ip: string | null = null,
  idempotencySeed?: string,
  seedFirstUse = false,
): Promise<PaymentSnapshot> {
  const { provider } = request.resolved;
  const kind = PROVIDER_KINDS[provider];
  const tooLong = expiresInProblem(request.expiresInSeconds, expirySeconds(deps.config, kind), request.paymentMethod);
  if (tooLong) throw validationError([tooLong]);
  if (!deps.providers.get(owner.environment, provider)) throw providerUnavailable(request.paymentMethod);
  const id = requestId(ID_PREFIXES.payment, owner, 'payment', idempotencySeed);
  // A retry of a key an earlier attempt claimed may find its payment; a key's first use cannot (and should the id
  // exist all the same, the start below meets its workflow, or the closed run's row, docs/payments.md#idempotency).
  const existing = idempotencySeed && !seedFirstUse ? await findPayment(deps.db, owner, id) : undefined;
  if (existing) return existing;
  await refuseCreateWhenDown(deps.db, owner, request.resolved);
  return startPayment(deps, owner, id, request, auditEntryOf(owner, 'payment.created', id, ip));
}

/**
 * The payment `id` of the caller's merchant and environment.
 * @throws DomainError `not_found` for unknown and foreign ids alike (docs/api.md#merchants-and-environments)
 */
export async function getPayment(deps: PaymentReaderDeps, owner: Principal, id: string): Promise<PaymentSnapshot> {
  const payment = (await findPayment(deps.db, owner, id)) ?? (await startedPayment(deps, owner, id));
  if (!payment) throw new DomainError('not_found', `no payment with id ${id}`);
  return payment;
}

/**
 * A payment whose workflow started but has not written it yet (the create's wait ran out with no worker running,
 * docs/payments.md#workflow): the payment its create started the workflow with, from the workflow's first history
 * event, which Temporal keeps without a worker. Undefined without Temporal at hand, when there is no such workflow or
 * no answer within TEMPORAL_CALL_TIMEOUT_MS, or when it is not the caller's (docs/api.md#merchants-and-environments).
 */
async function startedPayment(
  deps: PaymentReaderDeps,
  owner: Principal,
  id: string,
): Promise<PaymentSnapshot | undefined> {
  const { temporal, config } = deps;
  if (!temporal || !config || !id.startsWith(ID_PREFIXES.payment)) return undefined;
  try {
    const { history } = await temporal.withDeadline(Date.now() + config.TEMPORAL_CALL_TIMEOUT_MS, () =>
      temporal.workflowService.getWorkflowExecutionHistory({
        namespace: temporal.options.namespace,
        execution: { workflowId: paymentWorkflowId(id) },
        maximumPageSize: 1,
      }),
    );
    const payload = history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    const input = payload
      ? (temporal.options.loadedDataConverter.payloadConverter.fromPayload(payload) as PaymentWorkflowInput)
      : undefined;
    if (input?.mode !== 'create') return undefined;
    const { payment } = input;
    return payment.merchantId === owner.merchantId && payment.environment === owner.environment ? payment : undefined;
  } catch {
    return undefined; // no such workflow, or Temporal out of reach: the read model's answer stands
  }
}

/**
 * 503 `service_unavailable` after UPDATE_DEADLINE_MS without the workflow's answer (no worker
 * running, or one too busy): the server may hold the Update and the workflow carry it out once a
 * worker takes it, so the caller is told to retry with the same `Idempotency-Key`, which
 * reattaches to that Update (docs/limits.md#update-deadlines).
 */
function updateTimedOut(deadlineMs: number): DomainError {
  return new DomainError(
    'service_unavailable',
    `the payment did not answer within ${deadlineMs / 1000} s; the request may still be carried out, so retry it with the same Idempotency-Key to learn its outcome`,
  );
}

/**
 * Sends `update` to the payment's workflow, re-opening it from the read model when its run has
 * ended (Update-with-Start, conflict policy use-existing, reuse allowed, docs/payments.md#workflow). An Update the
 * workflow never took is sent again with the same Update id (the workflow takes an id once), unless `carriedOut`
 * finds it done meanwhile (a refund's row: the run that took it may have closed, and a new run would take it again);
 * when that keeps failing, 503 `service_unavailable`: nothing was decided (or, when Temporal could not
 * be reached, the outcome is unknown: {@link updateTimedOut}). Every call to Temporal
 * shares one deadline, UPDATE_DEADLINE_MS from now: no request hangs on a payment no worker runs.
 * @throws DomainError with the code the workflow refused with, or `service_unavailable` (also at
 *   the deadline, when the Update may still be carried out later: {@link updateTimedOut})
 */
async function updatePayment<Ret, Args extends unknown[]>(
  deps: PaymentServiceDeps,
  payment: PaymentSnapshot,
  update: UpdateDefinition<Ret, Args>,
  args: Args,
  updateId: string,
  carriedOut?: () => Promise<Ret | undefined>,
): Promise<Ret> {
  const input = reopenPaymentInput(deps.config, payment.id);
  try {
    return await updateWithin(
      deps.temporal,
      { deadline: Date.now() + deps.config.UPDATE_DEADLINE_MS, refusal: decidedRefusal, carriedOut },
      () =>
        deps.temporal.workflow.executeUpdateWithStart(update, {
          args,
          updateId,
          // A new operation per send: one carries a single start.
          startWorkflowOperation: paymentWorkflowStart(
            deps.config,
            payment,
            input,
            WorkflowIdReusePolicy.ALLOW_DUPLICATE,
          ),
        }),
    );
  } catch (error) {
    if (!(error instanceof UpdateUnanswered)) throw error;
    throw error.outcomeKnown ? unavailable() : updateTimedOut(deps.config.UPDATE_DEADLINE_MS);
  }
}

/**
 * The answer of Update `updateId` if the payment's workflow already decided it: a retried request
 * whose first attempt ran out of its deadline (503) and was carried out afterwards learns what it
 * did. Undefined when the workflow's current run does not know the Update, or no answer comes
 * within UPDATE_DEADLINE_MS.
 * @throws DomainError with the code the workflow refused that Update with
 */
async function decidedUpdate<Ret>(
  deps: PaymentServiceDeps,
  paymentId: string,
  updateId: string,
): Promise<Ret | undefined> {
  try {
    const handle = deps.temporal.workflow.getHandle(paymentWorkflowId(paymentId)).getUpdateHandle<Ret>(updateId);
    return await byDeadline(deps.temporal, Date.now() + deps.config.UPDATE_DEADLINE_MS, () => handle.result());
  } catch (error) {
    const refused = decidedRefusal(error);
    if (refused) throw refused;
    return undefined;
  }
}

/**
 * Cancels a pending or processing payment (docs/payments.md#states, docs/payments.md#cancel-and-refund) through the
 * workflow's Update. The Update id
 * derives from the `Idempotency-Key` when one is given, so a retry after a 503 at the Update
 * deadline reattaches to the same cancel, or learns its answer once it was carried out.
 * @returns the cancelled payment
 * @throws DomainError `not_found`, `payment_not_cancellable` (409, also when a provider success
 *   won the race, or the provider cannot withdraw its request: nothing is written, no workflow is asked),
 *   `provider_unavailable`, `service_unavailable`
 */
export async function cancelPayment(
  deps: PaymentServiceDeps,
  owner: Principal,
  id: string,
  reason: string | undefined,
  ip: string | null = null,
  idempotencySeed?: string,
): Promise<PaymentSnapshot> {
  const payment = await getPayment(deps, owner, id);
  const updateId = requestId('cancel_', owner, `cancel:${id}`, idempotencySeed);
  // A retry of a cancel whose first attempt ran out of its deadline and was carried out later
  // (docs/payments.md#idempotency).
  // The workflow decides by the same table, with the provider's capabilities; asked here first for a fast 4xx
  // (docs/payments.md#cancel-and-refund: a provider that cannot withdraw its request refuses the cancel).
  const supports = deps.providers.get(payment.environment, payment.provider)?.supports;
  const capabilities = supports ? { cancel: supports.cancel } : undefined;
  const event = { type: 'cancel' as const, reason: reason ?? null, ...(capabilities ? { capabilities } : {}) };
  const decided = apply(stateOfStored(payment), event, new Date().toISOString());
  const earlier = idempotencySeed && !decided.ok ? await decidedUpdate<PaymentSnapshot>(deps, id, updateId) : undefined;
  if (!earlier && !decided.ok) throw new DomainError(decided.refusal.code as ErrorCode, decided.refusal.message);
  const cancelled =
    earlier ?? (await updatePayment(deps, payment, cancelPaymentUpdate, [{ reason, capabilities }], updateId));
  await audit(deps.db, owner, 'payment.cancelled', id, ip);
  return cancelled;
}

/**
 * Refunds part (`amount` minor units) or all of a completed payment (docs/payments.md#states,
 * docs/payments.md#cancel-and-refund). The refund id (and
 * Update id) derives from the `Idempotency-Key` when one is given, so a retry after a time-out or
 * a 5xx reattaches to the same refund and never refunds twice (docs/payments.md#idempotency).
 * @returns the refund: `completed`, `failed` (the provider refused) or `pending` (its answer is
 *   unknown yet; the amount stays reserved and the workflow decides it)
 * @throws DomainError `not_found`, `payment_not_refundable` (409), `amount_exceeds_refundable`
 *   (400), `service_unavailable` (503)
 */
export async function refundPayment(
  deps: PaymentServiceDeps,
  owner: Principal,
  id: string,
  request: { amount?: number; reason?: string },
  ip: string | null = null,
  idempotencySeed?: string,
): Promise<RefundRecord> {
  const payment = await getPayment(deps, owner, id);
  const refundId = requestId(ID_PREFIXES.refund, owner, `refund:${id}`, idempotencySeed);
  // A retry of a refund request whose answer was lost (docs/payments.md#idempotency): the refund it made, not a second
  // one.
  const made = idempotencySeed ? await findRefund(deps.db, owner, refundId) : undefined;
  if (made) return made;
  // The workflow decides by the same table; asked here first for a fast 4xx (docs/payments.md#states).
  const capabilities = deps.providers.get(payment.environment, payment.provider)?.supports;
  const event = { ...refundRequestOf(refundId, request, deps.config), capabilities };
  const decided = apply(stateOfStored(payment), event, new Date().toISOString());
  if (!decided.ok) throw new DomainError(decided.refusal.code as ErrorCode, decided.refusal.message);
  let refund: RefundRecord;
  try {
    refund = await updatePayment(
      deps,
      payment,
      refundPaymentUpdate,
      [{ refundId, amount: request.amount, reason: request.reason, capabilities }],
      refundId,
      () => findRefund(deps.db, owner, refundId),
    );
  } catch (error) {
    // A send whose answer was lost may have been carried out (a run closing under it) before the next send was
    // refused, e.g. `payment_not_refundable` once that very refund made the payment refunded: answer the refund it
    // made (docs/payments.md#refunds-happen-once).
    if (!(error instanceof DomainError) || error.code === 'service_unavailable') throw error;
    const madeMeanwhile = await findRefund(deps.db, owner, refundId);
    if (!madeMeanwhile) throw error;
    refund = madeMeanwhile;
  }
  await audit(deps.db, owner, 'refund.created', refund.id, ip);
  return refund;
}

/**
 * The refund `id` of the caller's merchant and environment as it now stands (`pending`, `completed` or `failed`), or
 * undefined: what a replayed refund request answers (docs/payments.md#idempotency).
 */
export async function refundAsStored(
  deps: Pick<PaymentServiceDeps, 'db'>,
  owner: Principal,
  id: string,
): Promise<RefundRecord | undefined> {
  return findRefund(deps.db, owner, id);
}

/** What {@link listPayments} filters on; the bounds are inclusive instants. */
export interface PaymentListRequest {
  status?: PaymentSnapshot['status'];
  /** Only open payments waiting for this reason (docs/payments.md#decision-time). */
  pendingReason?: PendingReason;
  paymentMethod?: string;
  createdGte?: Date;
  createdLte?: Date;
  /** Only the attempts (payments) of this checkout session (docs/checkout.md#states). */
  checkoutSession?: string;
  /** A payment id of the caller's scope: answer the payments after it (created before it). */
  startingAfter?: string;
  /** The most payments to answer, 1–100. */
  limit: number;
}

/**
 * One page of the caller's payments (merchant and environment, both families), newest first, read
 * from the read model (never from workflows), with whether more follow.
 * @throws DomainError `validation_error` (400) naming `starting_after` when it is not a payment of
 *   the caller's merchant and environment (foreign ids look unknown, docs/api.md#merchants-and-environments)
 */
export async function listPayments(
  deps: Pick<PaymentServiceDeps, 'db'>,
  owner: Principal,
  request: PaymentListRequest,
): Promise<{ payments: PaymentSnapshot[]; hasMore: boolean }> {
  const position = await cursorPosition(
    request.startingAfter,
    (id) => findPaymentListPosition(deps.db, owner, id),
    (id) => `starting_after must be the id of one of your payments; there is no payment ${id}`,
  );
  const filter = {
    status: request.status,
    pendingReason: request.pendingReason,
    paymentMethod: request.paymentMethod,
    createdGte: request.createdGte,
    createdLte: request.createdLte,
    checkoutSession: request.checkoutSession,
    startingAfter: position,
  };
  return listPaymentsPage(deps.db, owner, filter, request.limit);
}
