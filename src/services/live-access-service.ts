/**
 * The developer's side of live access (docs/live-access.md#review, docs/api.md#secret-keys): filing a request (which
 * starts its review
 * workflow), reading its status, answering a reviewer, and revealing the first live key once.
 */
import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import { insertAuditEntries } from '../db/audit-log';
import { findDeveloperById } from '../db/developers';
import { listDocuments } from '../db/documents';
import { isUniqueViolation, type Db } from '../db/knex';
import {
  findLatestLiveAccessRequest,
  filedRequest,
  findLiveAccessRequest,
  hasLiveKey,
  insertLiveAccessRequest,
  takeLiveKeyReveal,
  type LiveAccessRequestRecord,
} from '../db/live-access-requests';
import type { Actor } from '../domain/audit-log';
import { missingDocuments } from '../domain/documents';
import { DomainError } from '../domain/errors';
import { ID_PREFIXES } from '../domain/ids';
import { isOpenRequest, LIVE_ACCESS_ENVIRONMENT, type BusinessType } from '../domain/live-access';
import type { RevealedKeyView } from '../views/developer';
import { toLiveAccessStatusView, type LiveAccessStatusView } from '../views/live-access';
import type { Principal } from '../domain/principal';
import { auditEntry } from '../lib/audit';
import { actorOf } from './audit';
import { newId } from '../lib/ids';
import { openSealedSecret } from '../lib/sealed-secrets';
import {
  developerActivitySignal,
  liveAccessWorkflowId,
  type LiveAccessReviewInput,
} from '../workflows/live-access-messages';
import { MerchantIdAttribute } from '../workflows/messages';

/** What the live access service needs. */
export interface LiveAccessServiceDeps {
  db: Db;
  temporal: Client;
  config: Pick<Config, 'TEMPORAL_TASK_QUEUE' | 'JWT_SECRET'>;
}

/**
 * A live access request as the developer filed it (`POST /v1/developer/live-access/request`,
 * docs/live-access.md#review), after the API checked its shape and the compliance acknowledgement.
 */
export interface LiveAccessApplication {
  business_name: string;
  business_type: BusinessType;
  /** An http(s) URL. */
  business_website: string;
  /** A whole number the developer gives; no unit is implied. */
  expected_monthly_volume: number;
  use_case: string;
}

/** How long `respond` waits for the review to take the answer before it answers 202, in milliseconds. */
export const RESPOND_WAIT_MS = 5_000;

/** The person who acted (docs/security.md#activity-log), not only the merchant's account. */
function developerActor(owner: Principal): Actor {
  return actorOf(owner);
}

async function hasLiveAccess(deps: Pick<LiveAccessServiceDeps, 'db'>, owner: Principal): Promise<boolean> {
  return (await findDeveloperById(deps.db, owner.developerId))?.has_live_access ?? false;
}

/**
 * Files a live access request (docs/live-access.md#review) and starts its review workflow in the same transaction.
 * @param ip the caller's address, for the audit entry (docs/live-access.md#audit-log)
 * @returns the request status (docs/live-access.md#review), with the request `under_review`
 * @throws DomainError `conflict` (409) with live access already granted or a request open;
 *   `documents_missing` (400) naming what is missing
 */
export async function requestLiveAccess(
  deps: LiveAccessServiceDeps,
  owner: Principal,
  body: LiveAccessApplication,
  ip: string,
): Promise<LiveAccessStatusView> {
  if (await hasLiveAccess(deps, owner))
    throw new DomainError('conflict', 'live access is already granted to this account');
  const latest = await findLatestLiveAccessRequest(deps.db, owner.merchantId);
  if (latest && isOpenRequest(latest.status)) {
    throw new DomainError('conflict', `live access request ${latest.id} is still open; one request at a time`);
  }
  const documents = await listDocuments(deps.db, {
    merchantId: owner.merchantId,
    environment: LIVE_ACCESS_ENVIRONMENT,
  });
  const missing = missingDocuments(documents);
  if (missing.length > 0) {
    throw new DomainError(
      'documents_missing',
      `documents missing: ${missing.map((m) => m.message).join('; ')}`,
      missing,
    );
  }

  const now = new Date().toISOString();
  const request = filedRequest(
    {
      id: newId(ID_PREFIXES.liveAccessRequest),
      merchantId: owner.merchantId,
      developerId: owner.developerId,
      businessName: body.business_name,
      businessType: body.business_type,
      businessWebsite: body.business_website,
      expectedMonthlyVolume: body.expected_monthly_volume,
      useCase: body.use_case,
    },
    now,
  );
  const input: LiveAccessReviewInput = {
    requestId: request.id,
    merchantId: owner.merchantId,
    developerId: owner.developerId,
    filedAt: now,
  };
  const audit = auditEntry({
    merchantId: owner.merchantId,
    environment: LIVE_ACCESS_ENVIRONMENT,
    actor: developerActor(owner),
    action: 'live_access.requested',
    target: request.id,
    ip,
  });
  try {
    await insertLiveAccessRequest(deps.db, request, audit, async () => {
      await deps.temporal.workflow.start('liveAccessReviewWorkflow', {
        taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
        workflowId: liveAccessWorkflowId(request.id),
        args: [input],
        typedSearchAttributes: [{ key: MerchantIdAttribute, value: owner.merchantId }],
      });
    });
  } catch (error) {
    if (isUniqueViolation(error))
      throw new DomainError('conflict', 'a live access request is already open; one request at a time');
    throw error;
  }
  return toLiveAccessStatusView(false, request);
}

/**
 * The live-access status (docs/live-access.md#review) of the owner's merchant: its latest request, if any, and whether
 * live access is granted.
 */
export async function getLiveAccessStatus(
  deps: Pick<LiveAccessServiceDeps, 'db'>,
  owner: Principal,
): Promise<LiveAccessStatusView> {
  return toLiveAccessStatusView(
    await hasLiveAccess(deps, owner),
    await findLatestLiveAccessRequest(deps.db, owner.merchantId),
  );
}

/**
 * Answers a reviewer's question (docs/live-access.md#review): signals the review, which brings the request back to
 * `under_review`, and waits up to {@link RESPOND_WAIT_MS} for that to be recorded.
 * @returns the status afterwards, and `applied` false when the review has not recorded it yet
 * @throws DomainError `conflict` (409) when no request waits for information from the developer
 */
export async function respondToReviewer(
  deps: LiveAccessServiceDeps,
  owner: Principal,
  message: string,
  ip: string,
): Promise<{ status: LiveAccessStatusView; applied: boolean }> {
  const latest = await findLatestLiveAccessRequest(deps.db, owner.merchantId);
  if (!latest || latest.status !== 'more_info_required') {
    const why = latest ? `request ${latest.id} is ${latest.status}` : 'there is no live access request';
    throw new DomainError('conflict', `no live access request is waiting for information from you (${why})`);
  }
  await deps.temporal.workflow
    .getHandle(liveAccessWorkflowId(latest.id))
    .signal(developerActivitySignal, { kind: 'responded', developerId: owner.developerId, message });
  const audit = auditEntry({
    merchantId: owner.merchantId,
    environment: LIVE_ACCESS_ENVIRONMENT,
    actor: developerActor(owner),
    action: 'live_access.responded',
    target: latest.id,
    ip,
  });
  await insertAuditEntries(deps.db, [audit]);

  const deadline = Date.now() + RESPOND_WAIT_MS;
  let current: LiveAccessRequestRecord | undefined = latest;
  while (current?.status === 'more_info_required' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    current = await findLiveAccessRequest(deps.db, latest.id);
  }
  return {
    status: toLiveAccessStatusView(await hasLiveAccess(deps, owner), current),
    applied: current?.status !== 'more_info_required',
  };
}

/**
 * Reveals the first live key created on approval, once (docs/api.md#secret-keys): the sealed secret is deleted in the
 * transaction that reads it, with an `api_key.revealed` audit entry.
 * @throws DomainError `conflict` (409) when it was already revealed; `not_found` (404) before approval
 */
export async function revealLiveKey(
  deps: LiveAccessServiceDeps,
  owner: Principal,
  ip: string,
): Promise<RevealedKeyView> {
  let secret = '';
  const reveal = await takeLiveKeyReveal(deps.db, owner.merchantId, (pending) => {
    secret = openSealedSecret(pending.sealedSecret, deps.config.JWT_SECRET);
    return auditEntry({
      merchantId: owner.merchantId,
      environment: LIVE_ACCESS_ENVIRONMENT,
      actor: developerActor(owner),
      action: 'api_key.revealed',
      target: pending.keyId,
      ip,
    });
  });
  if (!reveal) {
    if (await hasLiveKey(deps.db, owner.merchantId)) {
      throw new DomainError(
        'conflict',
        'the live key was already revealed; it is shown only once (roll it for a new one)',
      );
    }
    throw new DomainError('not_found', 'no live key yet: live access has not been approved');
  }
  return {
    id: reveal.keyId,
    object: 'api_key',
    environment: 'live',
    secret,
    last4: secret.slice(-4),
    created_at: reveal.createdAt,
  };
}
