/**
 * The reviewers' and operators' side (docs/live-access.md#admin-command): list and show live access requests with their
 * documents, decide them by signalling the review workflow (docs/live-access.md#review), and set a merchant's plan or
 * custom limits (docs/limits.md#rate-limits). Used by the admin command; it talks to PostgreSQL and Temporal directly.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { listDocuments } from '../db/documents';
import { sameFileWarnings, type DocumentRecord } from '../domain/documents';
import { findDeveloperById } from '../db/developers';
import type { Db } from '../db/knex';
import { findSettlementDelay, updateSettlementDelay } from '../db/ledger';
import {
  findLiveAccessRequest,
  listConversation,
  listLiveAccessRequests,
  type ConversationMessage,
  type LiveAccessRequestRecord,
} from '../db/live-access-requests';
import {
  findMerchantSettings,
  updateMerchantLimits,
  updateMerchantPlan,
  type MerchantSettings,
} from '../db/merchant-settings';
import { DomainError } from '../domain/errors';
import { isOpenRequest, LIVE_ACCESS_ENVIRONMENT, type LiveAccessRequestStatus } from '../domain/live-access';
import { checkCustomLimits, isPlan, PLANS, type CustomLimits } from '../domain/plans';
import { auditEntry } from '../lib/audit';
import type { AuditAction, AuditEntry } from '../domain/audit-log';
import type { BlobStore } from '../lib/blob-store';
import {
  approveSignal,
  liveAccessWorkflowId,
  rejectSignal,
  requestInfoSignal,
} from '../workflows/live-access-messages';

/** What the review service needs; `temporal` only for decisions. */
export interface ReviewServiceDeps {
  db: Db;
  blobs: BlobStore;
  temporal?: () => Promise<Client>;
}

/** A request with what a reviewer needs to decide it. */
export interface RequestDetails {
  request: LiveAccessRequestRecord;
  developer: { id: string; email: string; name: string } | null;
  /**
   * Each document, current and replaced (docs/limits.md#uploads), with where its file is (a local path for the local
   * blob store).
   */
  documents: (DocumentRecord & { location: string })[];
  /** What the reviewer should look at before deciding: current documents that are the same file (same SHA-256). */
  warnings: string[];
  conversation: ConversationMessage[];
}

/** A reviewer's decision (docs/live-access.md#review). */
export type Decision =
  | { type: 'approve'; reviewer: string }
  | { type: 'reject'; reviewer: string; reason: string }
  | { type: 'request_info'; reviewer: string; message: string };

/** What became of a decision: `applied` once the workflow recorded it, with the request then. */
export interface DecisionOutcome {
  applied: boolean;
  request: LiveAccessRequestRecord;
}

/** Requests in review order (oldest first), optionally of one status. */
export async function listRequests(
  deps: Pick<ReviewServiceDeps, 'db'>,
  status?: LiveAccessRequestStatus,
): Promise<LiveAccessRequestRecord[]> {
  return listLiveAccessRequests(deps.db, status ? { status } : {});
}

async function requireRequest(db: Db, id: string): Promise<LiveAccessRequestRecord> {
  const request = await findLiveAccessRequest(db, id);
  if (!request) throw new DomainError('not_found', `no live access request ${id}`);
  return request;
}

/**
 * A request with its developer, documents (names, types, sizes, sha256, locations), the reviewer's warnings (two
 * documents that are the same file, docs/live-access.md#review) and conversation.
 * @throws DomainError `not_found` for an unknown id
 */
export async function showRequest(deps: Pick<ReviewServiceDeps, 'db' | 'blobs'>, id: string): Promise<RequestDetails> {
  const request = await requireRequest(deps.db, id);
  const developer = await findDeveloperById(deps.db, request.developerId);
  const documents = await listDocuments(
    deps.db,
    { merchantId: request.merchantId, environment: LIVE_ACCESS_ENVIRONMENT },
    { includeSuperseded: true },
  );
  return {
    request,
    developer: developer ? { id: developer.id, email: developer.email, name: developer.name } : null,
    documents: documents.map((document) => ({ ...document, location: deps.blobs.locate(document.storageKey) })),
    warnings: sameFileWarnings(documents),
    conversation: await listConversation(deps.db, id),
  };
}

/** True once the read model shows `decision` applied to a request that was `before`. */
function isApplied(decision: Decision, before: LiveAccessRequestRecord, now: LiveAccessRequestRecord): boolean {
  switch (decision.type) {
    case 'approve':
      return now.status === 'approved';
    case 'reject':
      return now.status === 'rejected';
    case 'request_info':
      return now.infoRounds > before.infoRounds;
  }
}

/**
 * Sends a reviewer's decision to the request's review workflow as its signal (docs/live-access.md#review,
 * docs/live-access.md#admin-command), then waits
 * up to `waitMs` for the workflow to record it.
 * @throws DomainError `not_found` for an unknown id; `conflict` when the request is already decided
 */
export async function decide(
  deps: ReviewServiceDeps,
  id: string,
  decision: Decision,
  waitMs: number,
): Promise<DecisionOutcome> {
  const before = await requireRequest(deps.db, id);
  const closed = () =>
    new DomainError(
      'conflict',
      `request ${id} is already ${before.status}${before.decidedBy ? ` by ${before.decidedBy}` : ''}${before.decidedAt ? ` at ${before.decidedAt}` : ''}; only open requests take decisions`,
    );
  if (!isOpenRequest(before.status)) throw closed();
  if (!deps.temporal) throw new Error('a Temporal client is needed for decisions');
  const handle = (await deps.temporal()).workflow.getHandle(liveAccessWorkflowId(id));
  try {
    if (decision.type === 'approve') await handle.signal(approveSignal, { reviewer: decision.reviewer });
    else if (decision.type === 'reject')
      await handle.signal(rejectSignal, { reviewer: decision.reviewer, reason: decision.reason });
    else await handle.signal(requestInfoSignal, { reviewer: decision.reviewer, message: decision.message });
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw closed();
    throw error;
  }
  const deadline = Date.now() + waitMs;
  for (;;) {
    const now = await requireRequest(deps.db, id);
    if (isApplied(decision, before, now)) return { applied: true, request: now };
    if (Date.now() >= deadline) return { applied: false, request: now };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function requireMerchant(db: Db, merchantId: string): Promise<MerchantSettings> {
  const merchant = await findMerchantSettings(db, merchantId);
  if (!merchant) throw new DomainError('not_found', `no merchant ${merchantId}`);
  return merchant;
}

/**
 * The audit entry of a change `operator` made to merchant `merchantId` from the admin CLI
 * (docs/live-access.md#audit-log): in its live activity log, with no IP address.
 */
function operatorChange(merchantId: string, operator: string, action: AuditAction): AuditEntry {
  return auditEntry({
    merchantId,
    environment: 'live',
    actor: { type: 'operator', id: operator },
    action,
    target: merchantId,
    ip: null,
  });
}

/**
 * Moves a merchant to `plan` (docs/limits.md#rate-limits), with an audit entry by `operator`
 * (docs/live-access.md#audit-log).
 * @throws DomainError `not_found` for an unknown merchant, `validation_error` for an unknown plan
 */
export async function setPlan(
  deps: Pick<ReviewServiceDeps, 'db'>,
  merchantId: string,
  plan: string,
  operator: string,
): Promise<MerchantSettings> {
  if (!isPlan(plan)) throw new DomainError('validation_error', `plan must be one of: ${PLANS.join(', ')}`);
  await requireMerchant(deps.db, merchantId);
  await updateMerchantPlan(deps.db, merchantId, plan, operatorChange(merchantId, operator, 'merchant.plan_changed'));
  return requireMerchant(deps.db, merchantId);
}

/**
 * Stores custom limits for an enterprise merchant (docs/limits.md#rate-limits), with an audit entry by `operator`
 * (docs/live-access.md#audit-log).
 * @throws DomainError `not_found` for an unknown merchant, `validation_error` when not enterprise or
 *   the limits are not positive integers with per-hour ≥ per-minute
 */
export async function setLimits(
  deps: Pick<ReviewServiceDeps, 'db'>,
  merchantId: string,
  limits: CustomLimits,
  operator: string,
): Promise<MerchantSettings> {
  const merchant = await requireMerchant(deps.db, merchantId);
  checkCustomLimits(merchant.plan, limits);
  await updateMerchantLimits(
    deps.db,
    merchantId,
    limits,
    operatorChange(merchantId, operator, 'merchant.limits_changed'),
  );
  return requireMerchant(deps.db, merchantId);
}

/**
 * Gives a merchant its own settlement delay (docs/ledger.md#available-on): whole days from completion to available
 * funds for the payments completed from now on, or `null` to go back to each provider's; with an audit entry by
 * `operator` (docs/live-access.md#audit-log).
 * @returns the delay now in force (null: the providers')
 * @throws DomainError `not_found` for an unknown merchant, `validation_error` for days outside 0–30
 */
export async function setSettlementDelay(
  deps: Pick<ReviewServiceDeps, 'db'>,
  merchantId: string,
  days: number | null,
  operator: string,
): Promise<number | null> {
  if (days !== null && (!Number.isInteger(days) || days < 0 || days > 30))
    throw new DomainError('validation_error', 'days must be a whole number from 0 to 30, or default');
  await requireMerchant(deps.db, merchantId);
  await updateSettlementDelay(
    deps.db,
    merchantId,
    days,
    operatorChange(merchantId, operator, 'merchant.settlement_delay_changed'),
  );
  return findSettlementDelay(deps.db, merchantId);
}
