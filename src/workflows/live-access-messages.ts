/**
 * What the API, the admin command and `liveAccessReviewWorkflow` share (docs/live-access.md#review,
 * docs/live-access.md#admin-command): the workflow id,
 * its input and result, the reviewer signals `approve`, `reject` and `request_info`, the developer's
 * signal, and the query of the review's state. Pure: safe inside the workflow sandbox.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { ReviewState } from '../domain/live-access';

/** Workflow id of a live access request (docs/payments.md#workflow): `live-access:{req_id}`. */
export function liveAccessWorkflowId(requestId: string): string {
  return `live-access:${requestId}`;
}

/** Input of `liveAccessReviewWorkflow`. */
export interface LiveAccessReviewInput {
  requestId: string;
  merchantId: string;
  developerId: string;
  /** When the request was filed (ISO 8601 UTC); the reminder clock counts from here (docs/live-access.md#review). */
  filedAt: string;
}

/** How the review ended. */
export interface LiveAccessReviewResult {
  requestId: string;
  status: 'approved' | 'rejected';
  decidedAt: string;
  decidedBy: string;
  /** The first live key (`key_…`) created on approval (docs/api.md#secret-keys). */
  liveKeyId?: string;
}

/** A reviewer's approval; `reviewer` names who decided, for the audit log (docs/live-access.md#audit-log). */
export interface ApproveSignalArgs {
  reviewer: string;
}
/** A reviewer's rejection with the reason e-mailed to the developer. */
export interface RejectSignalArgs {
  reviewer: string;
  reason: string;
}
/** A reviewer's question or request for documents, e-mailed to the developer. */
export interface RequestInfoSignalArgs {
  reviewer: string;
  message: string;
}
/** The developer uploaded a document or answered (`POST /developer/live-access/respond`). */
export type DeveloperActivitySignalArgs =
  | { kind: 'document_uploaded'; developerId: string; documentId: string }
  | { kind: 'responded'; developerId: string; message: string };

/** Reviewer decision: approve (docs/live-access.md#review). */
export const approveSignal = defineSignal<[ApproveSignalArgs]>('approve');
/** Reviewer decision: reject with a reason (docs/live-access.md#review). */
export const rejectSignal = defineSignal<[RejectSignalArgs]>('reject');
/** Reviewer decision: ask the developer for more information (docs/live-access.md#review). */
export const requestInfoSignal = defineSignal<[RequestInfoSignalArgs]>('request_info');
/** Sent by the API when the developer uploads a document or responds while a request is open. */
export const developerActivitySignal = defineSignal<[DeveloperActivitySignalArgs]>('developer_activity');

/** The review's current state. */
export const getLiveAccessReviewQuery = defineQuery<ReviewState>('getLiveAccessReview');
