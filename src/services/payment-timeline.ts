/**
 * The payment detail of the dashboard (README.md#dashboard): the payment with its fee and net, its refunds and
 * their course (requested `pending`, then decided), its status changes with their sources, the events
 * sent about it with their webhook deliveries, and when the service will next ask the provider.
 *
 * Status changes and the next check come from the payment's workflow (docs/payments.md#workflow), the source of truth:
 * its executions (`payment:{id}`, every run: the first, continued ones and re-opened ones) are
 * listed through Temporal's visibility and their histories read; `domain/payment-timeline.ts`
 * decides what each write was caused by. A workflow whose history the server no longer keeps
 * (past the namespace's retention) gives no status changes: `history_available` is then false and
 * the events still show the payment's course.
 */
import { isGrpcServiceError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Config } from '../config';
import type { EventRecord, Scope } from '../db/events';
import type { Db } from '../db/knex';
import { listEventsForObject, listRefundsOfPayment } from '../db/payments';
import { listPostingsOfPayment } from '../db/ledger';
import { listDeliveriesOfEvents } from '../db/webhooks';
import type { RefundRecord } from '../domain/refund';
import type { DeliveryWithAttempts } from '../domain/webhooks';
import { feeAndNetOf } from '../domain/fees';
import { isOpen, type PaymentSnapshot } from '../domain/payment';
import { providerCheckReason, refundChangesOf, statusChangesOf, type WorkflowFact } from '../domain/payment-timeline';
import type { Principal } from '../domain/principal';
import { toGenericPaymentView, type PaymentViewContext } from '../views/payment';
import type { PaymentDetailView } from '../views/payment-detail';
import { toRefundView } from '../views/refund';
import { toDeliveryView } from '../views/webhook';
import { paymentWorkflowId } from '../workflows/messages';
import { getPayment } from './payment-service';

/** A workflow history as the client reads it (the protobuf types come with the client). */
type History = Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>>;
type HistoryEvent = NonNullable<History['events']>[number];
type Payloads = NonNullable<HistoryEvent['workflowExecutionStartedEventAttributes']>['input'];
type Payload = NonNullable<NonNullable<Payloads>['payloads']>[number];
type Timestamp = { seconds?: { toNumber(): number } | number | null; nanos?: number | null } | null | undefined;

/** What the detail needs. */
export interface PaymentTimelineDeps {
  db: Db;
  temporal: Client;
  config: Pick<Config, 'TEMPORAL_CALL_TIMEOUT_MS'>;
}

/** The marker the SDK records for each local activity's outcome. */
const LOCAL_ACTIVITY_MARKER = 'core_local_activity';

/** gRPC's NOT_FOUND status code. */
const GRPC_NOT_FOUND = 5;

/** True when Temporal does not know the run (never started, or past the namespace's retention). */
function runNotFound(error: unknown): boolean {
  return error instanceof WorkflowNotFoundError || (isGrpcServiceError(error) && error.code === GRPC_NOT_FOUND);
}

function toMs(ts: Timestamp): number | undefined {
  if (!ts || ts.seconds === null || ts.seconds === undefined) return undefined;
  const seconds = typeof ts.seconds === 'number' ? ts.seconds : ts.seconds.toNumber();
  return seconds * 1000 + Math.floor((ts.nanos ?? 0) / 1e6);
}

/** Reads one run's history into facts (see {@link WorkflowFact}). */
function factsOf(events: HistoryEvent[], decode: (payload: Payload) => unknown): WorkflowFact[] {
  const facts: WorkflowFact[] = [];
  const activityTypes = new Map<string, string>();
  const first = (payloads: Payloads) => {
    const payload = payloads?.payloads?.[0];
    return payload ? decode(payload) : undefined;
  };
  for (const event of events) {
    const started = event.workflowExecutionStartedEventAttributes;
    if (started) {
      const input = first(started.input) as { mode?: string; payment?: PaymentSnapshot } | undefined;
      if (input?.mode === 'create' && input.payment)
        facts.push({ kind: 'started', mode: 'create', payment: input.payment });
      else facts.push({ kind: 'started', mode: input?.mode === 'continued' ? 'continued' : 'reopen' });
    }
    if (event.workflowExecutionSignaledEventAttributes?.signalName === 'providerCallback')
      facts.push({ kind: 'callback' });
    const update = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name;
    if (update === 'cancelPayment') facts.push({ kind: 'merchant', action: 'cancel' });
    if (update === 'refundPayment') facts.push({ kind: 'merchant', action: 'refund' });
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) {
      const type = scheduled.activityType?.name ?? '';
      activityTypes.set(String(event.eventId), type);
      if (type === 'cancelProviderPayment') facts.push({ kind: 'provider_cancel_asked' });
      if (type === 'recordPaymentStatus')
        facts.push({ kind: 'recorded', payment: first(scheduled.input) as PaymentSnapshot });
      if (type === 'recordRefundOutcome')
        facts.push({ kind: 'recorded', payment: (first(scheduled.input) as { payment: PaymentSnapshot }).payment });
    }
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName === LOCAL_ACTIVITY_MARKER) {
      // A local activity (the create's initiation, and the writes it left to the workflow): its type in `data`, its
      // result in `result`.
      const data = marker.details?.data?.payloads?.[0];
      const type = data ? (decode(data) as { activity_type?: string } | undefined)?.activity_type : undefined;
      const result = first(marker.details?.result);
      if (type === 'initiatePayment' && result) {
        const initiated = result as { payment: PaymentSnapshot; recorded?: PaymentSnapshot };
        facts.push({ kind: 'initiated', payment: initiated.payment });
        // What initiation wrote of the provider's word in the same activity (docs/payments.md#workflow).
        if (initiated.recorded) facts.push({ kind: 'recorded', payment: initiated.recorded });
      }
      if (type === 'recordPaymentStatus' && result)
        facts.push({ kind: 'recorded', payment: result as PaymentSnapshot });
    }
    const completed = event.activityTaskCompletedEventAttributes;
    if (completed) {
      const type = activityTypes.get(String(completed.scheduledEventId));
      if (type === 'pollProviderPayment') facts.push({ kind: 'polled' });
      if (type === 'initiatePayment')
        facts.push({ kind: 'initiated', payment: (first(completed.result) as { payment: PaymentSnapshot }).payment });
    }
  }
  return facts;
}

/** The end of the run's last timer still running, in ms since the epoch; undefined when none runs. */
function pendingTimerEnd(events: HistoryEvent[]): number | undefined {
  const running = new Map<string, number>();
  for (const event of events) {
    const started = event.timerStartedEventAttributes;
    const startedAt = toMs(event.eventTime as Timestamp);
    const timeout = toMs(started?.startToFireTimeout as Timestamp);
    if (started && startedAt !== undefined && timeout !== undefined)
      running.set(String(event.eventId), startedAt + timeout);
    const ended = event.timerFiredEventAttributes?.startedEventId ?? event.timerCanceledEventAttributes?.startedEventId;
    if (ended !== undefined && ended !== null) running.delete(String(ended));
  }
  const ends = [...running.values()];
  return ends.length ? Math.max(...ends) : undefined;
}

/**
 * When the running workflow will next ask the provider (ms since the epoch): a poll activity
 * waiting for its next attempt (its retries are the later polls, docs/payments.md#workflow), one running now, or else
 * the timer it waits on.
 */
async function nextCheckMs(
  deps: PaymentTimelineDeps,
  workflowId: string,
  runId: string,
  events: HistoryEvent[],
): Promise<number | undefined> {
  const description = await deps.temporal.workflow.getHandle(workflowId, runId).describe();
  const asking = [
    'pollProviderPayment',
    'fetchProviderPaymentStatus',
    'fetchRefundAtProvider',
    'cancelProviderPayment',
  ];
  for (const activity of description.raw.pendingActivities ?? []) {
    if (!asking.includes(activity.activityType?.name ?? '')) continue;
    return toMs(activity.nextAttemptScheduleTime as Timestamp) ?? Date.now();
  }
  return pendingTimerEnd(events);
}

/**
 * Every run of the payment's workflow, oldest first. Visibility may lag a run that just started:
 * the latest run is then read directly. Empty when the server knows no run (past retention).
 */
async function runsOf(
  deps: PaymentTimelineDeps,
  workflowId: string,
): Promise<{ runId: string; running: boolean; startMs: number }[]> {
  const runs: { runId: string; running: boolean; startMs: number }[] = [];
  const escaped = workflowId.replace(/["\\]/g, '');
  for await (const run of deps.temporal.workflow.list({ query: `WorkflowId = "${escaped}"` })) {
    runs.push({ runId: run.runId, running: run.status.name === 'RUNNING', startMs: run.startTime.getTime() });
  }
  try {
    // Only the latest run can be running, and the server itself knows best whether it is.
    const latest = await deps.temporal.workflow.getHandle(workflowId).describe();
    for (const run of runs) run.running = false;
    const known = runs.find((run) => run.runId === latest.runId);
    if (known) known.running = latest.status.name === 'RUNNING';
    else
      runs.push({
        runId: latest.runId,
        running: latest.status.name === 'RUNNING',
        startMs: latest.startTime.getTime(),
      });
  } catch (error) {
    // No run at all: the history is gone, or the workflow never started. Anything else is an outage.
    if (!runNotFound(error)) throw error;
  }
  return runs.sort((a, b) => a.startMs - b.startMs);
}

/**
 * What the histories of the payment's workflow runs say: the facts of every run still kept, when
 * the running one next asks the provider, and whether any history was there.
 */
async function workflowFactsOf(
  deps: PaymentTimelineDeps,
  workflowId: string,
): Promise<{ facts: WorkflowFact[]; next: number | undefined; historyAvailable: boolean }> {
  const converter = deps.temporal.options.loadedDataConverter.payloadConverter;
  const decode = (payload: Payload) => converter.fromPayload(payload);
  const facts: WorkflowFact[] = [];
  let next: number | undefined;
  let historyAvailable = false;
  for (const run of await runsOf(deps, workflowId)) {
    let history: History;
    try {
      history = await deps.temporal.workflow.getHandle(workflowId, run.runId).fetchHistory();
    } catch (error) {
      if (runNotFound(error)) continue; // past retention
      throw error;
    }
    historyAvailable = true;
    const runEvents = history.events ?? [];
    facts.push(...factsOf(runEvents, decode));
    if (run.running) next = await nextCheckMs(deps, workflowId, run.runId, runEvents);
  }
  return { facts, next, historyAvailable };
}

/**
 * What the database holds around payment `paymentId` of `scope`: its refunds, its events (oldest first) and the
 * webhook deliveries of those events with their attempts; what the payment's detail and the operators' story show.
 */
export async function paymentRecordsOf(
  db: Db,
  scope: Scope,
  paymentId: string,
): Promise<{ refunds: RefundRecord[]; events: EventRecord[]; deliveries: DeliveryWithAttempts[] }> {
  const [refunds, events] = await Promise.all([
    listRefundsOfPayment(db, scope, paymentId),
    listEventsForObject(db, paymentId),
  ]);
  const deliveries = await listDeliveriesOfEvents(
    db,
    scope,
    events.map((event) => event.id),
  );
  return { refunds, events, deliveries };
}

/**
 * The detail of payment `id` of the caller's merchant and environment (docs/api.md#merchants-and-environments,
 * README.md#dashboard).
 * @throws DomainError `not_found` for unknown and foreign ids; Temporal's errors when it cannot be reached
 */
export async function getPaymentDetail(
  deps: PaymentTimelineDeps,
  owner: Principal,
  id: string,
  view: PaymentViewContext = {},
): Promise<PaymentDetailView> {
  const payment = await getPayment(deps, owner, id);
  const records = await paymentRecordsOf(deps.db, owner, id);
  const { refunds, events } = records;
  const postings = await listPostingsOfPayment(
    deps.db,
    id,
    refunds.map((refund) => refund.id),
  );
  const deliveries = records.deliveries.map(toDeliveryView);

  // Every Temporal call of the detail shares one deadline (docs/operations.md#deadlines): past it, 503.
  const deadline = Date.now() + deps.config.TEMPORAL_CALL_TIMEOUT_MS;
  const { facts, next, historyAvailable } = await deps.temporal.withDeadline(deadline, () =>
    workflowFactsOf(deps, paymentWorkflowId(id)),
  );

  // Only a late success collected after a cancel is refunded on a cancelled payment.
  const { fee, net } = feeAndNetOf(payment, refunds.length > 0);
  return {
    payment: toGenericPaymentView(payment, view),
    fee,
    net: net - payment.amountRefunded,
    // A provider that knows the payment by our own id (M-Pesa, docs/providers.md#m-pesa) gave no id of its own.
    provider_reference: payment.providerReference === payment.id ? null : payment.providerReference,
    refunds: refunds.map(toRefundView),
    status_changes: statusChangesOf(facts),
    refund_changes: refundChangesOf(refunds),
    history_available: historyAvailable,
    events: events.map((event) => ({
      ...event,
      deliveries: deliveries.filter((delivery) => delivery.event_id === event.id),
    })),
    next_provider_check:
      next === undefined || (!isOpen(payment.status) && refunds.every((refund) => refund.status !== 'pending'))
        ? null
        : {
            at: new Date(next).toISOString(),
            reason: providerCheckReason(payment.status, next, Date.parse(payment.expiresAt)),
          },
    postings: postings.map((p) => ({
      journal_id: p.journalId,
      cause: p.cause,
      account: p.account,
      amount: p.amount,
      currency: p.currency,
      created_at: p.createdAt,
    })),
  };
}
