/**
 * The activities each workflow calls, declared once: their names, inputs, results and the
 * `ApplicationFailure` types they raise. `src/activities/` implements these interfaces
 * (`createPaymentActivities(deps): PaymentActivities`, …); the workflows call them through
 * `proxyActivities<PaymentActivities>(…)`. A renamed activity or a changed input or result breaks
 * the recorded histories (docs/workflow-changes.md). Types and constants only: safe inside the
 * workflow sandbox.
 */
import type { AuditAction, AuditEntry, Actor } from '../domain/audit-log';
import type { ProviderCode } from '../domain/catalogue';
import type { Environment } from '../domain/environment';
import type { LiveAccessMailDetails, ReviewState } from '../domain/live-access';
import type { PaymentSnapshot, PaymentStatus, ProviderAnswer } from '../domain/payment';
import type { Decision, InitiationWord, RefundAnswerOutcome, WriteOrders } from '../domain/payment-table';
import type { ProviderCapabilities } from '../domain/provider-descriptor';
import type { StatusChange } from '../domain/provider-health';
import type { RefundRecord } from '../domain/refund';
import type { AttemptOutcome, AttemptRecord, WebhookStatus } from '../domain/webhooks';

/**
 * `ApplicationFailure.type` values activities raise and workflows and the API match (never class names, which bundling
 * and minifying may change).
 */
export const FAILURE_TYPES = {
  /** No adapter serves the payment, or the provider did not answer for 2 minutes (non-retryable). */
  providerUnavailable: 'ProviderUnavailable',
  /** The provider definitely refused (details carry the failure code; non-retryable). */
  providerRejected: 'ProviderRejected',
  /** The provider does not offer the flow (cancel, refund; non-retryable). */
  providerUnsupported: 'ProviderUnsupported',
  /** A poll whose answer changes nothing: `pollProviderPayment`'s retry is the next poll (benign). */
  providerStillWaiting: 'ProviderStillWaiting',
  /**
   * `initiatePayment` could not record the payment at all: PostgreSQL refused its data (SQLSTATE
   * class 22), so nothing was written and the provider was not asked (non-retryable).
   */
  paymentNotRecorded: 'PaymentNotRecorded',
  /**
   * `refundAtProvider` could not write the refund before sending it: its data (the reason) cannot be
   * stored, so the provider was not asked and nothing was written (non-retryable).
   */
  refundNotRecorded: 'RefundNotRecorded',
  /**
   * Any other statement PostgreSQL refused for its data (SQLSTATE class 22), raised by every activity (non-retryable).
   */
  dataError: 'DataError',
  /** `loadPayment` found no such payment (non-retryable). */
  notFound: 'not_found',
  /** `deliverAndRecordWebhook` found no such delivery (non-retryable). */
  deliveryNotFound: 'DeliveryNotFound',
} as const;

/** Which provider call an activity makes: the adapter of `provider` in `environment`. */
export interface ProviderCall {
  environment: Environment;
  provider: ProviderCode;
}

/**
 * What `initiatePayment` returns: the payment as recorded (`pending`, before the provider's answer), the provider's
 * answer (its reference, next action and current word) or its definite refusal, `steps`: what the table made of that
 * word (the rows it took, in order, with their effects), which the workflow carries as it is and never works out
 * again (docs/payments.md#workflow: the create decides once), and `recorded`: the payment as the activity then wrote
 * it, when it wrote those steps (absent when their writes are left to the workflow).
 */
export type InitiationResult = {
  payment: PaymentSnapshot;
  steps: Decision[];
  recorded?: PaymentSnapshot;
} & InitiationWord;

/**
 * What `pollProviderPayment` returns: the provider's answer that changes the payment, and the poll (attempt, from 1)
 * that saw it.
 */
export interface PollResult {
  answer: ProviderAnswer;
  attempt: number;
}

/**
 * A refund of a payment, as `recordRefundPending`, `refundAtProvider` and `fetchRefundAtProvider` take it; `post`: the
 * journal causes the table's row that accepted it declared (its reservation `refund:{id}:reserved`, and with a late
 * success after a cancel the payment's collection), posted exactly with whichever write first stores the refund
 * `pending` (docs/ledger.md#postings); empty when the refund is stored already (a re-opened run).
 */
export interface RefundCall {
  payment: PaymentSnapshot;
  refund: RefundRecord;
  post: string[];
}

/**
 * The payment workflow's activities (docs/payments.md#workflow): the only code that calls providers
 * and writes the payments read model. Each is idempotent (provider idempotency keys derived from the
 * payment or refund id, writes keyed and versioned), so retries never charge, refund or write twice.
 */
export interface PaymentActivities {
  /**
   * The payment's first step (docs/payments.md#states, docs/providers.md#adapters): writes the payment and
   * `payment.created` unless present and starts that event's deliveries, then asks the provider to collect it
   * (idempotency key derived from the payment id, so a retry after a crash finds the same request). Then records the
   * provider's word as the table makes it (src/domain/payment-table.ts, from `input.payment` at `input.changedAt`):
   * the acceptance and an answer given at once, or the refusal, in one write with its event and postings. The table
   * is applied here and only here: the workflow carries the steps it returns (docs/payments.md#workflow). When that
   * write fails, nothing of the answer is written and the workflow writes the steps with its own retries. Unknown
   * answers are retried (the same request) for 2 minutes; read-model faults by the workflow's policy
   * (docs/limits.md#retries).
   * @param input.changedAt the workflow's time (ISO 8601) when it asked: the time of the rows the word takes
   * @returns the payment as recorded, the provider's answer or its definite refusal, the table's steps, and the payment
   *   as then written
   * @throws ApplicationFailure `ProviderUnavailable` (no adapter, or no answer for 2 min; non-retryable);
   *   `PaymentNotRecorded` (non-retryable) when PostgreSQL refuses the payment's data, before anything is sent
   */
  initiatePayment(input: {
    payment: PaymentSnapshot;
    changedAt: string;
    audit?: AuditEntry;
  }): Promise<InitiationResult>;

  /**
   * Writes the payment's state, the event `orders.emit` names (docs/payments.md#events) and the journals of
   * `orders.post` (docs/ledger.md#postings), exactly the effects of the table's row, then starts that event's webhook
   * deliveries. Ordered by the payment's version. Returns
   * `payment`, so that a run of it as a local activity keeps what it wrote in the history (its marker holds results,
   * not inputs; the dashboard's timeline reads it, src/services/payment-timeline.ts).
   * @throws a retryable error while the row is missing
   */
  recordPaymentStatus(payment: PaymentSnapshot, orders: WriteOrders): Promise<PaymentSnapshot>;

  /**
   * The payment as the read model holds it, for a workflow re-opened after it closed
   * (docs/payments.md#workflow), with the refunds still pending there (normally none) and those decided (an Update of
   * one that reaches the new run answers it instead of taking it again).
   * @throws ApplicationFailure `not_found` (non-retryable) when there is no such payment
   */
  loadPayment(
    paymentId: string,
  ): Promise<{ payment: PaymentSnapshot; pendingRefunds: RefundRecord[]; decidedRefunds?: RefundRecord[] }>;

  /**
   * The provider's current answer about the payment (docs/payments.md#provider-callbacks): confirms
   * a callback, and is the last word at expiry. Unknown answers are retried.
   * @returns the answer, with `supports`: the adapter's refund capabilities, which decide what a late success after a
   *   cancel becomes (docs/payments.md#late-successes)
   * @throws ApplicationFailure `ProviderRejected` for a reference the provider does not know
   */
  fetchProviderPaymentStatus(
    input: ProviderCall & { providerReference: string },
  ): Promise<ProviderAnswer & { supports?: Pick<ProviderCapabilities, 'refund' | 'partialRefund'> }>;

  /**
   * One poll of the provider (docs/payments.md#workflow): the workflow's retry policy (2 s doubling
   * to 60 s, until `expires_at`) schedules the next one on the server, so a payment waiting on its
   * provider costs no workflow task per poll. An answer that changes nothing, a provider fault and a
   * time-out fail the attempt alike and are retried.
   * @param input.status the payment's status now (`pending` or `processing`)
   * @returns the answer that changes the payment and the attempt that saw it
   * @throws ApplicationFailure `ProviderStillWaiting` (retryable, benign), `ProviderUnavailable` (no adapter,
   *   non-retryable)
   */
  pollProviderPayment(input: ProviderCall & { providerReference: string; status: PaymentStatus }): Promise<PollResult>;

  /**
   * Asks the provider to stop collecting (docs/payments.md#cancel-and-refund).
   * @returns the provider's final word, or `unsupported` when it cannot withdraw its request (mobile money)
   * @throws ApplicationFailure `ProviderRejected`; unknown answers are retried
   */
  cancelProviderPayment(input: ProviderCall & { providerReference: string }): Promise<ProviderAnswer | 'unsupported'>;

  /**
   * Sends a refund to the provider (docs/payments.md#cancel-and-refund): first writes it `pending`
   * unless its id is known (then answers `already_decided` with the stored refund when an earlier run
   * decided it, and sends nothing), then asks the provider with the idempotency key
   * `refund:{refund id}`, so a retried or repeated call never refunds twice.
   * @returns the provider's answer; `pending` when it took the refund without deciding
   * @throws ApplicationFailure `ProviderUnsupported` (non-retryable) before anything is written when
   *   the provider has no refunds, or returns only whole payments and this refund is partial;
   *   `RefundNotRecorded` (non-retryable) when the refund's data cannot be stored: nothing written,
   *   nothing sent; unknown answers are retried, then left to `fetchRefundAtProvider`
   */
  refundAtProvider(input: RefundCall): Promise<RefundAnswerOutcome>;

  /**
   * Writes a refund `pending` with its reservation before it is sent (docs/payments.md#cancel-and-refund), once per
   * refund id, as `refundAtProvider` does first: the workflow then knows the refund exists, and may answer `pending`
   * while the provider's answer is still to come.
   * @returns the refund as stored: `pending`, or final when an earlier run decided it
   * @throws ApplicationFailure `ProviderUnsupported` or `RefundNotRecorded` (non-retryable), as `refundAtProvider`:
   *   nothing written
   */
  recordRefundPending(input: RefundCall): Promise<RefundRecord>;

  /**
   * Asks the provider what became of a refund whose answer was unknown
   * (docs/payments.md#cancel-and-refund). A refund the provider never received is written `pending`
   * when it is not yet and sent now, with the same idempotency key: a refund the workflow accepted is
   * never failed for a fault of ours, and never made twice.
   * @returns its answer (`pending` while the provider has not decided)
   * @throws on an unknown answer (retried by the workflow's schedule)
   */
  fetchRefundAtProvider(input: RefundCall): Promise<RefundAnswerOutcome>;

  /**
   * Writes a refund's final outcome, the payment it changed and the event `emit` names (`refund.completed` or
   * `refund.failed`; the refund with the payment after it) and the journals of `post`, in one transaction, then starts
   * that event's webhook deliveries (docs/payments.md#cancel-and-refund, docs/payments.md#events,
   * docs/ledger.md#postings). `post`: the causes the outcome's row declared, after those its acceptance declared while
   * the refund may not be stored yet (a lost first call): exactly what the table declared, each posted once.
   * @throws Error (retried) when `post` orders a journal the refund contradicts; nothing is written
   */
  recordRefundOutcome(input: { refund: RefundRecord; payment: PaymentSnapshot } & WriteOrders): Promise<void>;
}

/** One step of a review to record; `step` is unique within the request (`request_info:2`, `reminder:1`). */
export interface ReviewStepRecord {
  merchantId: string;
  /** The review's state after the step. */
  state: ReviewState;
  /** ISO 8601 UTC time of the step, from the workflow's clock. */
  at: string;
  step: string;
  /** The audit entry of the step (docs/live-access.md#audit-log), if it makes one. */
  activity?: { actor: Actor; action: AuditAction };
  /** A message of the conversation the step adds (a reviewer's question or reason, a developer's answer). */
  message?: { authorType: 'reviewer' | 'developer'; author: string; body: string };
}

/** Input of `approveLiveAccessRequest`: the approved state, the workflow's time (ISO 8601 UTC) and who approved. */
export interface ApprovalRecord {
  merchantId: string;
  state: ReviewState;
  at: string;
  reviewer: string;
}

/** Input of `sendLiveAccessEmail`: the request, the workflow's time of the step and what to say. */
export interface LiveAccessEmail {
  requestId: string;
  at: string;
  step: string;
  details: LiveAccessMailDetails;
}

/**
 * The live access review's activities (docs/live-access.md#review): the only code of the review
 * that writes PostgreSQL, creates the live key and sends e-mail. Ids of keys, messages and audit
 * entries derive from the request and the step, so a retry writes nothing twice; e-mail is
 * at-least-once, a resend carrying the same Message-ID.
 */
export interface LiveAccessActivities {
  /**
   * Writes a review step to the read model with its message and audit entry (docs/live-access.md#audit-log).
   * @throws a retryable error while the request row is missing
   */
  recordLiveAccessReview(record: ReviewStepRecord): Promise<void>;

  /**
   * Approves (docs/live-access.md#review, docs/api.md#secret-keys): creates the first live key
   * (`sk_live_…`, stored as hash and last 4, the secret sealed until its one reveal), grants live
   * access, assigns plan `starter` and writes the state and the audit entries, in one transaction.
   * @returns the live key's id and last 4 characters, and the merchant's plan afterwards
   */
  approveLiveAccessRequest(record: ApprovalRecord): Promise<{ keyId: string; last4: string; plan: string }>;

  /**
   * Sends one review e-mail (docs/live-access.md#e-mail): reviewers for a new request and reminders,
   * the developer for questions and decisions. Addresses and names are read at send time.
   * @returns the message's id and where the mailer put it (SMTP server or `.eml` file)
   * @throws when the request or developer is missing (retryable), or the transport fails
   */
  sendLiveAccessEmail(email: LiveAccessEmail): Promise<{ messageId: string; location: string }>;
}

/** Why an attempt was skipped: the endpoint was disabled, deleted, or failed by a 410 Gone. */
export type SkipReason = 'webhook_disabled' | 'webhook_deleted' | 'webhook_gone';

/**
 * What a self-recording attempt did: sent (with the outcome, and whether its record was written),
 * skipped, or not made yet because the endpoint had no turn free (docs/webhooks.md#isolation): the
 * delivery is queued there, nothing was sent, and the attempt is asked for again later.
 */
export type RecordedAttemptResult =
  | { kind: 'attempted'; outcome: AttemptOutcome; recorded: boolean }
  | { kind: 'skipped'; reason: SkipReason }
  | { kind: 'waiting' };

/**
 * The webhook delivery workflow's activities (docs/webhooks.md#retries): make one attempt and record
 * it with the statuses that follow. A receiver's failure is an outcome, never a thrown error, so the
 * workflow's timers make the schedule.
 */
export interface WebhookActivities {
  /**
   * Attempt `attempt` of the delivery, recording itself: POSTs the event once to the endpoint as it
   * is now, signed with every secret still valid (docs/webhooks.md#secret-rotation), then writes the
   * attempt with the delivery's and the endpoint's statuses after it, decided as the workflow decides
   * (`decideAfterAttempt`). A failed write is answered `recorded: false` (a retry would send again),
   * and the workflow records the attempt itself.
   * @param input.attemptedAt when the workflow asked for the attempt (workflow time, ISO 8601)
   * At most `WEBHOOK_ENDPOINT_CONCURRENCY` attempts are in flight to one endpoint and
   * `WEBHOOK_MERCHANT_CONCURRENCY` to all of one merchant's (docs/webhooks.md#isolation): without a free
   * turn the activity sends nothing and answers `waiting` at once.
   * @returns `skipped` for a disabled, deleted or gone endpoint, `waiting` when the endpoint or its
   *   merchant has no turn free (the workflow is signalled `endpointTurn` when one may be), else the outcome
   * @throws ApplicationFailure `DeliveryNotFound` (non-retryable); `WebhookAttemptNotMade` (retryable)
   *   when the store or the event cannot be read: nothing was sent, and the workflow does not count it
   */
  deliverAndRecordWebhook(input: {
    deliveryId: string;
    attempt: number;
    attemptedAt: string;
  }): Promise<RecordedAttemptResult>;

  /**
   * Records an attempt and the statuses after it (docs/webhooks.md#retries). Idempotent.
   * @returns the endpoint's status after the attempt (undefined when the endpoint is gone)
   */
  recordWebhookAttempt(record: AttemptRecord): Promise<WebhookStatus | undefined>;

  /** Ends a delivery whose endpoint was disabled or deleted before it finished. Idempotent. */
  recordWebhookDeliveryCancelled(input: { deliveryId: string }): Promise<void>;
}

/** One reconciliation run's subject (docs/reconciliation.md#runs): a provider account and a UTC day. */
export interface ReconciliationInput {
  provider: ProviderCode;
  environment: Environment;
  /** `YYYY-MM-DD`, UTC. */
  day: string;
}

/** What a reconciliation run found. */
export interface ReconciliationSummary {
  runId: string;
  method: 'transactions' | 'balance' | 'none';
  /** Movements compared on each side (transactions), or currencies compared (balance). */
  compared: { ours: number; theirs: number };
  /** Exceptions found by this run, and how many of them were new. */
  exceptionsFound: number;
  exceptionsAdded: number;
}

/** The activity of a reconciliation run. */
/** The measurement of operators' health (docs/availability.md#statuses). */
export interface ProviderHealthActivities {
  /**
   * Judges every provider, country and operation `input.environment` serves at `input.now` (epoch ms; the activity's
   * clock without it), starts the deliveries of the changes' events; returns the changed statuses.
   */
  measureProviderHealth(input: { environment: Environment; now?: number }): Promise<StatusChange[]>;
}

export interface ReconciliationActivities {
  /**
   * Compares our books with the provider's for the day and stores each difference once; marks the run
   * failed and throws when either side cannot be read (retried; nothing counts as reconciled).
   */
  reconcileProviderDay(input: ReconciliationInput): Promise<ReconciliationSummary>;
}
