/**
 * The live access review's activities (`LiveAccessActivities` in src/workflows/activity-contracts.ts,
 * docs/live-access.md). E-mail is at-least-once: a retry after a send that succeeded unseen may send
 * it again, with the same Message-ID (and, without SMTP, the same `.eml` file).
 */
import type { Config } from '../config';
import { findDeveloperById } from '../db/developers';
import type { Db } from '../db/knex';
import { findLiveAccessRequest, recordApproval, recordReviewState, type ReviewWrite } from '../db/live-access-requests';
import type { AuditAction, AuditEntry, Actor } from '../domain/audit-log';
import { ID_PREFIXES } from '../domain/ids';
import { LIVE_ACCESS_ENVIRONMENT } from '../domain/live-access';
import { deriveId } from '../lib/ids';
import { isForReviewers, renderLiveAccessMail } from '../lib/live-access-mail';
import type { Mailer } from '../lib/mailer';
import { sealSecret } from '../lib/sealed-secrets';
import { issueSecretKey } from '../lib/secret-keys';
import type { LiveAccessActivities, ReviewStepRecord } from '../workflows/activity-contracts';
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

/** The audit entry of a review step, scoped to the merchant's live environment (docs/live-access.md). */
function entry(
  requestId: string,
  merchantId: string,
  step: string,
  at: string,
  actor: Actor,
  action: AuditAction,
  target = requestId,
): AuditEntry {
  return {
    id: deriveId(ID_PREFIXES.auditEntry, `${liveAccessWorkflowId(requestId)}:${step}:${action}`),
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
    activities: record.activity
      ? [entry(requestId, record.merchantId, record.step, record.at, record.activity.actor, record.activity.action)]
      : [],
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
export function createLiveAccessActivities(deps: LiveAccessActivityDeps): LiveAccessActivities {
  return {
    async recordLiveAccessReview(record) {
      await recordReviewState(deps.db, reviewWrite(record));
    },

    async approveLiveAccessRequest(record) {
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
          entry(
            requestId,
            record.merchantId,
            'approve',
            record.at,
            { type: 'system', id: workflowId },
            'api_key.created',
            keyId,
          ),
        ],
      };
      const planChanged = entry(
        requestId,
        record.merchantId,
        'approve',
        record.at,
        reviewer,
        'merchant.plan_changed',
        record.merchantId,
      );
      return recordApproval(
        deps.db,
        write,
        record.merchantId,
        {
          id: keyId,
          hash: key.hash,
          last4: key.last4,
          sealedSecret: sealSecret(key.secret, deps.config.JWT_SECRET),
        },
        planChanged,
      );
    },

    async sendLiveAccessEmail(email) {
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
