/**
 * The live access request (docs/live-access.md#review): its statuses, the review's state
 * machine. Pure, so `liveAccessReviewWorkflow` runs it and tests check it alone.
 *
 * | from | message | to |
 * |---|---|---|
 * | under_review, more_info_required | approve (reviewer) | approved |
 * | under_review, more_info_required | reject {reason} (reviewer) | rejected |
 * | under_review, more_info_required | request_info {message} (reviewer) | more_info_required |
 * | more_info_required | document uploaded or response (developer) | under_review |
 * | under_review | response (developer) | under_review (the message is kept) |
 * | approved, rejected | anything | unchanged (the review is over) |
 */

/** Request statuses (docs/live-access.md#review). */
export const LIVE_ACCESS_REQUEST_STATUSES = ['under_review', 'more_info_required', 'approved', 'rejected'] as const;
/** One request status. */
export type LiveAccessRequestStatus = (typeof LIVE_ACCESS_REQUEST_STATUSES)[number];
/** Statuses of a request still under review: at most one such request per merchant (docs/live-access.md#review). */
export const OPEN_REQUEST_STATUSES: readonly LiveAccessRequestStatus[] = ['under_review', 'more_info_required'];

/** Top-level `status` of `GET /developer/live-access/status` (docs/live-access.md#review). */
export type LiveAccessStatus = 'none' | 'pending' | 'approved' | 'rejected';

/** `business_type` values a live access request may state. */
export const BUSINESS_TYPES = [
  'e_commerce',
  'saas',
  'marketplace',
  'fintech',
  'education',
  'healthcare',
  'other',
] as const;
/** One business type. */
export type BusinessType = (typeof BUSINESS_TYPES)[number];

/** Shortest `use_case` in characters (docs/live-access.md#review). */
export const USE_CASE_MIN_LENGTH = 20;

/**
 * The environment that documents, live access requests and their audit entries belong to
 * (docs/api.md#merchants-and-environments): they
 * concern the merchant's live account, whichever environment the session token names.
 */
export const LIVE_ACCESS_ENVIRONMENT = 'live' as const;

/** Plan assigned on approval (docs/live-access.md#review). */
export const APPROVAL_PLAN = 'starter';

/** True while the request can still change. */
export function isOpenRequest(status: LiveAccessRequestStatus): boolean {
  return OPEN_REQUEST_STATUSES.includes(status);
}

/** The top-level status (docs/live-access.md#review) for the merchant's latest request (or none). */
export function overallStatus(latest: LiveAccessRequestStatus | undefined): LiveAccessStatus {
  if (latest === undefined) return 'none';
  if (isOpenRequest(latest)) return 'pending';
  return latest as 'approved' | 'rejected';
}

/**
 * What the review workflow receives: reviewer decisions (signals from the admin command,
 * docs/live-access.md#admin-command) and developer actions.
 */
export type ReviewMessage =
  | { type: 'approve'; reviewer: string }
  | { type: 'reject'; reviewer: string; reason: string }
  | { type: 'request_info'; reviewer: string; message: string }
  | { type: 'developer_responded'; developerId: string; message: string }
  | { type: 'document_uploaded'; developerId: string; documentId: string };

/** The review as the workflow holds it; the read model (`live_access_requests`) follows it. */
export interface ReviewState {
  requestId: string;
  status: LiveAccessRequestStatus;
  /** When the request last entered `under_review` (ISO 8601 UTC); the reminder clock counts from here. */
  underReviewSince: string;
  /** The reviewer's latest question, or the rejection reason. */
  reviewerMessage: string | null;
  decidedAt: string | null;
  decidedBy: string | null;
  /** How many times the reviewers asked for more information. */
  infoRounds: number;
  /** How many developer responses were received. */
  responses: number;
  /** When each reminder was sent (ISO 8601 UTC). */
  remindersSent: string[];
}

/** What the workflow does for a message, besides keeping the new state. */
export type ReviewStep =
  | { kind: 'approve'; reviewer: string }
  | { kind: 'reject'; reviewer: string; reason: string }
  | { kind: 'request_info'; reviewer: string; message: string }
  | { kind: 'resume'; developerId: string; message: string | null }
  | { kind: 'note'; developerId: string; message: string }
  | { kind: 'ignore'; reason: string };

/**
 * Which review e-mail is sent (docs/live-access.md#e-mail), with what the review adds to it: the
 * reminder's number, the reviewer's question or reason, the plan and live key's last 4 on approval.
 */
export type LiveAccessMailDetails =
  | { kind: 'new_request' }
  | { kind: 'reminder'; reminderNumber: number }
  | { kind: 'info_requested'; message: string }
  | { kind: 'approved'; plan: string; liveKeyLast4: string }
  | { kind: 'rejected'; reason: string };

/** Which review e-mail: to the reviewers (`new_request`, `reminder`) or to the developer. */
export type LiveAccessMailKind = LiveAccessMailDetails['kind'];

/** The state of a request just filed at `filedAt` (ISO 8601 UTC). */
export function initialReviewState(requestId: string, filedAt: string): ReviewState {
  return {
    requestId,
    status: 'under_review',
    underReviewSince: filedAt,
    reviewerMessage: null,
    decidedAt: null,
    decidedBy: null,
    infoRounds: 0,
    responses: 0,
    remindersSent: [],
  };
}

/**
 * Applies one message at `at` (ISO 8601 UTC) by the table in the module comment.
 * @returns the next state and the step to carry out; `ignore` leaves the state as it was
 */
export function reviewStep(
  state: ReviewState,
  message: ReviewMessage,
  at: string,
): { state: ReviewState; step: ReviewStep } {
  if (!isOpenRequest(state.status)) {
    return { state, step: { kind: 'ignore', reason: `the request is already ${state.status}` } };
  }
  switch (message.type) {
    case 'approve':
      return {
        state: { ...state, status: 'approved', decidedAt: at, decidedBy: message.reviewer, reviewerMessage: null },
        step: { kind: 'approve', reviewer: message.reviewer },
      };
    case 'reject':
      return {
        state: {
          ...state,
          status: 'rejected',
          decidedAt: at,
          decidedBy: message.reviewer,
          reviewerMessage: message.reason,
        },
        step: { kind: 'reject', reviewer: message.reviewer, reason: message.reason },
      };
    case 'request_info':
      return {
        state: {
          ...state,
          status: 'more_info_required',
          reviewerMessage: message.message,
          infoRounds: state.infoRounds + 1,
        },
        step: { kind: 'request_info', reviewer: message.reviewer, message: message.message },
      };
    case 'developer_responded':
    case 'document_uploaded': {
      const text = message.type === 'developer_responded' ? message.message : null;
      const responses = state.responses + 1;
      if (state.status === 'more_info_required') {
        return {
          state: { ...state, status: 'under_review', underReviewSince: at, responses },
          step: { kind: 'resume', developerId: message.developerId, message: text },
        };
      }
      if (text !== null)
        return {
          state: { ...state, responses },
          step: { kind: 'note', developerId: message.developerId, message: text },
        };
      return { state, step: { kind: 'ignore', reason: 'a document uploaded while under review changes nothing' } };
    }
  }
}
