/**
 * What an on-call engineer asks of the service (docs/operations.md#runbooks): the backlog the
 * gauges show, the deliveries, refunds and payouts stuck behind it, one payment's whole story, and the
 * mends (a new delivery of a given-up one, a payment's provider or a payout's rail asked again). Used by
 * the admin command and by the API's `/metrics`.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';
import { payoutWorkflowStart } from '../activities/payout-activities';
import {
  listOpenPayouts,
  listPendingRefunds,
  listStuckDeliveries,
  readBacklog,
  type Backlog,
  type BacklogFigure,
  type OpenPayout,
  type PendingRefund,
  type StuckDelivery,
} from '../db/backlog';
import type { Db } from '../db/knex';
import { findPaymentById } from '../db/payments';
import { findPayoutById } from '../db/payouts';
import { findDeliveryTarget } from '../db/webhooks';
import type { DeliveryWithAttempts } from '../domain/webhooks';
import { orNotFound, DomainError } from '../domain/errors';
import type { EventRecord } from '../db/events';
import type { PaymentSnapshot } from '../domain/payment';
import type { RefundRecord } from '../domain/refund';
import { paymentWorkflowId, providerCallbackSignal } from '../workflows/messages';
import { askPayoutRailSignal, payoutWorkflowId } from '../workflows/payout-messages';
import { paymentRecordsOf } from './payment-timeline';
import { retryWebhookDelivery, type WebhookServiceDeps } from './webhook-service';

export type { Backlog, BacklogFigure, OpenPayout, PendingRefund, StuckDelivery };

/** How long a backlog read serves scrapes before it is read again, in milliseconds. */
export const BACKLOG_CACHE_MS = 15_000;

/**
 * The backlog for the gauges, read at most once per {@link BACKLOG_CACHE_MS} however often
 * Prometheus scrapes and however many scrapes overlap (one read in flight at a time).
 */
export class BacklogReader {
  private last?: { at: number; backlog: Backlog };
  private inFlight?: Promise<Backlog>;

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The backlog read within the last {@link BACKLOG_CACHE_MS}, or a fresh one.
   * @throws the database's error when a fresh read fails (the gauges then show nothing)
   */
  async read(): Promise<Backlog> {
    if (this.last && this.now() - this.last.at < BACKLOG_CACHE_MS) return this.last.backlog;
    this.inFlight ??= readBacklog(this.db)
      .then((backlog) => {
        this.last = { at: this.now(), backlog };
        return backlog;
      })
      .finally(() => {
        this.inFlight = undefined;
      });
    return this.inFlight;
  }

  /**
   * {@link read}, or undefined when it fails or takes longer than `timeoutMs` milliseconds (a scrape
   * answers while PostgreSQL is down; the read goes on and serves the next scrape).
   */
  async readWithin(timeoutMs: number): Promise<Backlog | undefined> {
    return answerWithin(this.read(), timeoutMs);
  }
}

/**
 * What `read` resolves to, or undefined when it fails or takes longer than `timeoutMs` milliseconds (a scrape answers
 * while PostgreSQL is down; the read goes on on its own).
 */
export async function answerWithin<T>(read: Promise<T>, timeoutMs: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), timeoutMs);
  });
  try {
    return await Promise.race([read.catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Lists deliveries pending for longer than the threshold, or given up on (docs/operations.md#webhook-backlog). */
export function stuckDeliveries(
  db: Db,
  filter: { olderThanSeconds: number; status: 'pending' | 'failed'; limit: number },
): Promise<StuckDelivery[]> {
  return listStuckDeliveries(db, filter);
}

/** Lists refunds pending for longer than the threshold (docs/operations.md#refunds-stuck-pending). */
export function pendingRefunds(db: Db, filter: { olderThanSeconds: number; limit: number }): Promise<PendingRefund[]> {
  return listPendingRefunds(db, filter);
}

/**
 * Lists payouts `pending` or `in_transit` for longer than the threshold, oldest first, with their rail
 * (docs/operations.md#payouts-stuck-pending).
 */
export function openPayouts(db: Db, filter: { olderThanSeconds: number; limit: number }): Promise<OpenPayout[]> {
  return listOpenPayouts(db, filter);
}

/**
 * Asks payout `payoutId`'s rail again now (docs/operations.md#payouts-stuck-pending): signals its workflow, which ends
 * its wait and makes its next call at once. A payout in transit or paid is asked about with the rail's status call,
 * never sent again (docs/payouts.md#rails); a pending one is offered to its rail, which never had it. A pending or in
 * transit payout whose workflow is not running (its API died before starting it) gets it started by the same call,
 * under the payout's own workflow id.
 * @param taskQueue the payment task queue, where payout workflows run
 * @throws DomainError `not_found` for an unknown payout; `conflict` when it is final (failed, returned, cancelled) or
 *   paid and no longer watched for a return
 */
export async function askPayoutRailAgain(
  deps: { db: Db; temporal: Client },
  taskQueue: string,
  payoutId: string,
): Promise<void> {
  const payout = orNotFound(await findPayoutById(deps.db, payoutId), 'payout', payoutId);
  const nothingWaits = new DomainError(
    'conflict',
    `payout ${payoutId} is ${payout.status} and its workflow has finished; nothing is waiting for its rail`,
  );
  if (payout.status === 'pending' || payout.status === 'in_transit') {
    await deps.temporal.workflow.signalWithStart('payoutWorkflow', {
      ...payoutWorkflowStart(payout, taskQueue),
      signal: askPayoutRailSignal,
      signalArgs: [],
    });
    return;
  }
  if (payout.status !== 'paid') throw nothingWaits;
  try {
    await deps.temporal.workflow.getHandle(payoutWorkflowId(payoutId)).signal(askPayoutRailSignal);
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw nothingWaits;
    throw error;
  }
}

/**
 * A new delivery of delivery `deliveryId`'s event, as the merchant's own retry would make it
 * (docs/webhooks.md#retries), on the operator's word.
 * @returns the new delivery's id
 * @throws DomainError `not_found` for an unknown delivery; `conflict` for a test delivery or a
 *   disabled endpoint (the merchant's retry refuses the same)
 */
export async function retryDeliveryAsOperator(deps: WebhookServiceDeps, deliveryId: string): Promise<string> {
  const target = orNotFound(await findDeliveryTarget(deps.db, deliveryId), 'delivery', deliveryId);
  const { delivery } = target;
  const retried = await retryWebhookDelivery(
    deps,
    { merchantId: delivery.merchantId, developerId: 'operator', environment: delivery.environment, via: 'session' },
    delivery.webhookId,
    delivery.id,
  );
  return retried.id;
}

/**
 * Asks payment `paymentId`'s provider again now, for the payment and its pending refunds: the same
 * hint a provider callback gives (docs/payments.md#provider-callbacks), so the workflow asks the
 * provider and acts on its answer only.
 * @throws DomainError `not_found` for an unknown payment; `conflict` when its workflow has finished
 */
export async function askProviderAgain(deps: { db: Db; temporal: Client }, paymentId: string): Promise<void> {
  const payment = orNotFound(await findPaymentById(deps.db, paymentId), 'payment', paymentId);
  try {
    await deps.temporal.workflow
      .getHandle(paymentWorkflowId(paymentId))
      .signal(providerCallbackSignal, { providerReference: payment.providerReference ?? '', claimed: 'pending' });
  } catch (error) {
    if (error instanceof WorkflowNotFoundError)
      throw new DomainError('conflict', `the workflow of ${paymentId} has finished; nothing is waiting for an answer`);
    throw error;
  }
}

/** One payment's whole story (docs/operations.md#a-payments-story). */
export interface PaymentStory {
  payment: PaymentSnapshot;
  refunds: RefundRecord[];
  events: EventRecord[];
  deliveries: DeliveryWithAttempts[];
  /** The workflow's run as Temporal tells it; `undefined` when Temporal does not know it (any more). */
  workflow?: {
    workflowId: string;
    runId: string;
    status: string;
    startTime: Date;
    closeTime?: Date;
    historyLength: number;
    /** History event types with how often each occurred, in order of first occurrence. */
    eventCounts: { type: string; count: number }[];
    /** The last activity failure's message, when one failed. */
    lastFailure?: string;
  };
}

/**
 * Reads payment `paymentId`'s read model, refunds, events, deliveries and the summary of its
 * workflow's history.
 * @throws DomainError `not_found` for an unknown payment
 */
export async function paymentStory(deps: { db: Db; temporal: Client }, paymentId: string): Promise<PaymentStory> {
  const payment = orNotFound(await findPaymentById(deps.db, paymentId), 'payment', paymentId);
  const scope = { merchantId: payment.merchantId, environment: payment.environment };
  const records = await paymentRecordsOf(deps.db, scope, paymentId);
  return { payment, ...records, workflow: await workflowSummary(deps.temporal, paymentId) };
}

/** The summary of payment `paymentId`'s workflow history; undefined when Temporal has no such workflow. */
async function workflowSummary(temporal: Client, paymentId: string): Promise<PaymentStory['workflow']> {
  const handle = temporal.workflow.getHandle(paymentWorkflowId(paymentId));
  let description;
  try {
    description = await handle.describe();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
  const history = await handle.fetchHistory();
  const counts = new Map<string, number>();
  let lastFailure: string | undefined;
  for (const event of history.events ?? []) {
    const type = eventTypeName(event.eventType);
    counts.set(type, (counts.get(type) ?? 0) + 1);
    const failure = event.activityTaskFailedEventAttributes?.failure?.message;
    if (failure) lastFailure = failure;
  }
  return {
    workflowId: description.workflowId,
    runId: description.runId,
    status: description.status.name,
    startTime: description.startTime,
    closeTime: description.closeTime,
    historyLength: description.historyLength,
    eventCounts: [...counts].map(([type, count]) => ({ type, count })),
    lastFailure,
  };
}

/** The history event type (a proto enum number) → `ActivityTaskCompleted`. */
function eventTypeName(type: proto.api.enums.v1.EventType | null | undefined): string {
  const name = type === null || type === undefined ? 'unknown' : (proto.api.enums.v1.EventType[type] ?? String(type));
  return name
    .replace(/^EVENT_TYPE_/, '')
    .toLowerCase()
    .replace(/(^|_)([a-z])/g, (_, __, letter: string) => letter.toUpperCase());
}
