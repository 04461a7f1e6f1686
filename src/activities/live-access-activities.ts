/**
 * Activities of the live access review (docs/live-access.md): the only code of the review that writes
 * PostgreSQL, creates the live key (docs/api.md#secret-keys) and sends e-mail. Each is idempotent: ids of keys, messages
 * and audit entries are derived from the request and the step, so a retry writes nothing twice.
 * E-mail is at-least-once: a retry after a send that succeeded unseen may send it again, with the
 * same Message-ID (and, without SMTP, the same `.eml` file).
 */
import type { Config } from '../config';
import { findDeveloperById } from '../db/developers';
import type { Db } from '../db/knex';
import { findLiveAccessRequest, recordApproval, recordReviewState, type ReviewWrite } from '../db/live-access-requests';
import type { ActivityAction, ActivityEntry, Actor } from '../domain/activity-log';
import { ID_PREFIXES } from '../domain/ids';
import { LIVE_ACCESS_ENVIRONMENT, type ReviewState } from '../domain/live-access';
import { deriveId } from '../lib/ids';
import { isForReviewers, renderLiveAccessMail, type LiveAccessMailDetails } from '../lib/live-access-mail';
import type { Mailer } from '../lib/mailer';
import { sealSecret } from '../lib/sealed-secrets';
import { issueSecretKey } from '../lib/secret-keys';
import { liveAccessWorkflowId } from '../workflows/live-access-messages';

/** Dependencies of the live access activities. */
export interface LiveAccessActivityDeps {
  db: Db;
  mailer: Mailer;
  /** JWT_SECRET seals the live key until it is revealed; reviewers get new requests and reminders. */
  config: Pick<Config, 'JWT_SECRET' | 'LIVE_ACCESS_REVIEWER_EMAILS'>;
}

/** Prefix of conversation message ids. */
const MESSAGE_PREFIX = 'msg_';

/** One step of a review to record; `step` is unique within the request (`request_info:2`, `reminder:1`). */
export interface ReviewStepRecord {
  merchantId: string;
  /** The review's state after the step. */
  state: ReviewState;
  /** ISO 8601 UTC time of the step, from the workflow's clock. */
  at: string;
  step: string;
  /** The audit entry of the step (docs/live-access.md#audit-log), if it makes one. */
  activity?: { actor: Actor; action: ActivityAction };
  /** A message of the conversation the step adds (a reviewer's question or reason, a developer's answer). */
  message?: { authorType: 'reviewer' | 'developer'; author: string; body: string };
}

/** Input of `approveLiveAccessRequest`. */
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

/** The audit entry of a review step, scoped to the merchant's live environment (docs/live-access.md). */
function entry(requestId: string, merchantId: string, step: string, at: string, actor: Actor, action: ActivityAction, target = requestId): ActivityEntry {
  return {
    id: deriveId(ID_PREFIXES.activity, `${liveAccessWorkflowId(requestId)}:${step}:${action}`),
    merchantId,
    environment: LIVE_ACCESS_ENVIRONMENT,
    actor,
    action,
    target,
    ip: null,
    createdAt: at,
  };
}

function reviewWrite(record: ReviewStepRecord): ReviewWrite {
  const { requestId } = record.state;
  return {
    state: record.state,
    at: record.at,
    activities: record.activity ? [entry(requestId, record.merchantId, record.step, record.at, record.activity.actor, record.activity.action)] : [],
    message: record.message && {
      id: deriveId(MESSAGE_PREFIX, `${liveAccessWorkflowId(requestId)}:${record.step}`),
      requestId,
      authorType: record.message.authorType,
      author: record.message.author,
      body: record.message.body,
      createdAt: record.at,
    },
  };
}

/** Builds the live access activities around their dependencies (samples' `createActivities(deps)`). */
export function createLiveAccessActivities(deps: LiveAccessActivityDeps) {
  return {
    /**
     * Writes a review step to the read model with its message and audit entry (docs/live-access.md#audit-log).
     * @throws a retryable error while the request row is missing
     */
    async recordLiveAccessReview(record: ReviewStepRecord): Promise<void> {
      await recordReviewState(deps.db, reviewWrite(record));
    },

    /**
     * Approves (docs/live-access.md#review, docs/api.md#secret-keys): creates the first live key (`sk_live_…`, stored as hash and last 4, the
     * secret sealed until its one reveal), grants live access, assigns plan `starter` and writes the
     * state and the audit entries, in one transaction.
     * @returns the live key's id and last 4 characters, and the merchant's plan afterwards
     */
    async approveLiveAccessRequest(record: ApprovalRecord): Promise<{ keyId: string; last4: string; plan: string }> {
      const { requestId } = record.state;
      const workflowId = liveAccessWorkflowId(requestId);
      const reviewer: Actor = { type: 'reviewer', id: record.reviewer };
      const keyId = deriveId(ID_PREFIXES.apiKey, `${workflowId}:live-key`);
      const key = issueSecretKey('live');
      const write: ReviewWrite = {
        state: record.state,
        at: record.at,
        activities: [
          entry(requestId, record.merchantId, 'approve', record.at, reviewer, 'live_access.approved'),
          entry(requestId, record.merchantId, 'approve', record.at, { type: 'system', id: workflowId }, 'api_key.created', keyId),
        ],
      };
      const planChanged = entry(requestId, record.merchantId, 'approve', record.at, reviewer, 'merchant.plan_changed', record.merchantId);
      return recordApproval(deps.db, write, record.merchantId, {
        id: keyId,
        hash: key.hash,
        last4: key.last4,
        sealedSecret: sealSecret(key.secret, deps.config.JWT_SECRET),
      }, planChanged);
    },

    /**
     * Sends one review e-mail (docs/live-access.md#e-mail): reviewers for a new request and reminders, the developer for
     * questions and decisions. Addresses and names are read at send time.
     * @throws when the request or developer is missing (retryable), or the transport fails
     */
    async sendLiveAccessEmail(email: LiveAccessEmail): Promise<{ messageId: string; location: string }> {
      const request = await findLiveAccessRequest(deps.db, email.requestId);
      if (!request) throw new Error(`live access request ${email.requestId} is not in the read model`);
      const developer = await findDeveloperById(deps.db, request.developerId);
      if (!developer) throw new Error(`developer ${request.developerId} of ${email.requestId} does not exist`);
      const rendered = renderLiveAccessMail(
        {
          requestId: request.id,
          merchantId: request.merchantId,
          businessName: request.businessName,
          developerName: developer.name,
          requestedAt: request.requestedAt,
          underReviewSince: request.underReviewSince,
        },
        email.details,
      );
      const sent = await deps.mailer.send({
        to: isForReviewers(email.details.kind) ? deps.config.LIVE_ACCESS_REVIEWER_EMAILS : [developer.email],
        subject: rendered.subject,
        text: rendered.text,
        messageId: `<live-access.${email.requestId}.${email.step.replace(/[^A-Za-z0-9_-]/g, '-')}@paycollect>`,
        date: email.at,
      });
      return { messageId: sent.messageId, location: sent.location };
    },
  };
}

/** The live access activities' type, imported by the workflow as a type only. */
export type LiveAccessActivities = ReturnType<typeof createLiveAccessActivities>;
