/**
 * `liveAccessReviewWorkflow` (docs/payments.md#workflow, docs/live-access.md#review): one per live access request, id
 * `live-access:{req_id}`.
 * The request starts `under_review` (the reviewers are told); reviewer decisions arrive as signals
 * from the admin command (docs/live-access.md#admin-command): `approve`, `reject {reason}`, `request_info {message}`;
 * the API
 * signals the developer's uploads and answers, which bring a `more_info_required` request back to
 * `under_review`. While under review and undecided for 3 business days (Mon–Fri, UTC) the reviewers
 * get a reminder, then one every further business day; the clock restarts when the request comes
 * back from `more_info_required`. Approval creates the first live key, grants live access and plan
 * `starter`, and e-mails the developer; rejection e-mails the reason. Every step is written to the
 * read model with its audit entry (docs/live-access.md#audit-log) through activities.
 *
 * Deterministic (docs/workflow-changes.md#determinism): only `@temporalio/workflow`, domain code, the message
 * definitions and
 * activity contracts are imported; time is the workflow's clock.
 */
import { ActivityFailure, condition, log, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Actor } from '../domain/audit-log';
import { nextReminderDueMs } from '../domain/business-days';
import {
  initialReviewState,
  isOpenRequest,
  reviewStep,
  type LiveAccessMailDetails,
  type ReviewMessage,
  type ReviewState,
} from '../domain/live-access';
import type { ApprovalRecord, LiveAccessActivities, ReviewStepRecord } from './activity-contracts';
import { REVIEW_MAIL_OPTIONS, REVIEW_RECORD_OPTIONS } from './activity-options';
import {
  approveSignal,
  developerActivitySignal,
  getLiveAccessReviewQuery,
  rejectSignal,
  requestInfoSignal,
  type LiveAccessReviewInput,
  type LiveAccessReviewResult,
} from './live-access-messages';

const records = proxyActivities<LiveAccessActivities>(REVIEW_RECORD_OPTIONS);
const mail = proxyActivities<LiveAccessActivities>(REVIEW_MAIL_OPTIONS);

/** The current time of the workflow's clock, ISO 8601 UTC. */
function nowIso(): string {
  return new Date(Date.now()).toISOString();
}

/** Runs one live access review to its decision (see module comment). */
export async function liveAccessReviewWorkflow(input: LiveAccessReviewInput): Promise<LiveAccessReviewResult> {
  const { requestId, merchantId } = input;
  const system: Actor = { type: 'system', id: `live-access:${requestId}` };
  let review: ReviewState = initialReviewState(requestId, input.filedAt);
  let liveKeyId: string | undefined;
  const inbox: ReviewMessage[] = [];

  setHandler(approveSignal, ({ reviewer }) => void inbox.push({ type: 'approve', reviewer }));
  setHandler(rejectSignal, ({ reviewer, reason }) => void inbox.push({ type: 'reject', reviewer, reason }));
  setHandler(
    requestInfoSignal,
    ({ reviewer, message }) => void inbox.push({ type: 'request_info', reviewer, message }),
  );
  setHandler(
    developerActivitySignal,
    (args) =>
      void inbox.push(
        args.kind === 'responded'
          ? { type: 'developer_responded', developerId: args.developerId, message: args.message }
          : { type: 'document_uploaded', developerId: args.developerId, documentId: args.documentId },
      ),
  );
  setHandler(getLiveAccessReviewQuery, () => review);

  /** Records a step of the review (state, audit entry, conversation message). */
  async function record(
    step: string,
    at: string,
    extra: Pick<ReviewStepRecord, 'activity' | 'message'> = {},
  ): Promise<void> {
    await records.recordLiveAccessReview({ merchantId, state: review, at, step, ...extra });
  }

  /** Sends a review e-mail; after a day of failed attempts the review goes on without it. */
  async function email(step: string, at: string, details: LiveAccessMailDetails): Promise<void> {
    try {
      await mail.sendLiveAccessEmail({ requestId, at, step, details });
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      log.warn('live access e-mail not sent', { requestId, step, error: error.cause?.message ?? error.message });
    }
  }

  /** Sends the next reminder to the reviewers (docs/live-access.md#review). */
  async function remind(): Promise<void> {
    const at = nowIso();
    review = { ...review, remindersSent: [...review.remindersSent, at] };
    const reminderNumber = review.remindersSent.length;
    await record(`reminder:${reminderNumber}`, at, {
      activity: { actor: system, action: 'live_access.reminder_sent' },
    });
    await email(`reminder:${reminderNumber}`, at, { kind: 'reminder', reminderNumber });
  }

  /** Applies one signal by the domain's state machine and carries out its step. */
  async function apply(message: ReviewMessage): Promise<void> {
    const at = nowIso();
    const next = reviewStep(review, message, at);
    review = next.state;
    const { step } = next;
    switch (step.kind) {
      case 'approve': {
        const approval: ApprovalRecord = { merchantId, state: review, at, reviewer: step.reviewer };
        const key = await records.approveLiveAccessRequest(approval);
        liveKeyId = key.keyId;
        await email('approved', at, { kind: 'approved', plan: key.plan, liveKeyLast4: key.last4 });
        return;
      }
      case 'reject':
        await record('reject', at, {
          activity: { actor: { type: 'reviewer', id: step.reviewer }, action: 'live_access.rejected' },
          message: { authorType: 'reviewer', author: step.reviewer, body: step.reason },
        });
        await email('rejected', at, { kind: 'rejected', reason: step.reason });
        return;
      case 'request_info':
        await record(`request_info:${review.infoRounds}`, at, {
          activity: { actor: { type: 'reviewer', id: step.reviewer }, action: 'live_access.info_requested' },
          message: { authorType: 'reviewer', author: step.reviewer, body: step.message },
        });
        await email(`request_info:${review.infoRounds}`, at, { kind: 'info_requested', message: step.message });
        return;
      case 'resume':
      case 'note':
        await record(`response:${review.responses}`, at, {
          activity: step.kind === 'resume' ? { actor: system, action: 'live_access.review_resumed' } : undefined,
          message:
            step.message === null
              ? undefined
              : { authorType: 'developer', author: step.developerId, body: step.message },
        });
        return;
      case 'ignore':
        log.info('live access signal ignored', { requestId, signal: message.type, reason: step.reason });
        return;
    }
  }

  await email('new_request', input.filedAt, { kind: 'new_request' });

  let lastReminderDueMs: number | undefined;
  let reviewSince = review.underReviewSince;
  while (isOpenRequest(review.status)) {
    if (review.status === 'under_review') {
      if (review.underReviewSince !== reviewSince) {
        reviewSince = review.underReviewSince; // back from more_info_required: the clock restarts
        lastReminderDueMs = undefined;
      }
      const dueMs = nextReminderDueMs(lastReminderDueMs, Date.parse(review.underReviewSince), Date.now());
      const waitMs = dueMs - Date.now();
      const arrived = waitMs > 0 ? await condition(() => inbox.length > 0, waitMs) : inbox.length > 0;
      if (!arrived) {
        lastReminderDueMs = dueMs;
        await remind();
        continue;
      }
    } else {
      await condition(() => inbox.length > 0);
    }
    await apply(inbox.shift() as ReviewMessage);
  }

  return {
    requestId,
    status: review.status as LiveAccessReviewResult['status'],
    decidedAt: review.decidedAt as string,
    decidedBy: review.decidedBy as string,
    ...(liveKeyId ? { liveKeyId } : {}),
  };
}
