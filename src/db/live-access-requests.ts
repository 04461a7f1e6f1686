/**
 * Repository of live access requests (docs/live-access.md#review), their reviewer/developer messages, and the first
 * live
 * key waiting to be revealed (docs/api.md#secret-keys). The review workflow is the source of truth for a request's
 * status; its activities write here idempotently, each change with its audit entries (docs/live-access.md#audit-log).
 */
import type { Knex } from 'knex';
import type { AuditEntry } from '../domain/audit-log';
import type { BusinessType, LiveAccessRequestStatus, ReviewState } from '../domain/live-access';
import { APPROVAL_PLAN } from '../domain/live-access';
import { insertAuditEntries } from './audit-log';
import { iso, isoOrNull, type Db } from './knex';
import { findById } from './scoped-rows';

/** A request as stored; timestamps ISO 8601 UTC, `expectedMonthlyVolume` as the developer declared it. */
export interface LiveAccessRequestRecord {
  id: string;
  merchantId: string;
  developerId: string;
  businessName: string;
  businessType: BusinessType;
  businessWebsite: string;
  expectedMonthlyVolume: number;
  useCase: string;
  status: LiveAccessRequestStatus;
  reviewerMessage: string | null;
  decidedBy: string | null;
  infoRounds: number;
  remindersSent: number;
  liveKeyId: string | null;
  requestedAt: string;
  underReviewSince: string;
  decidedAt: string | null;
  updatedAt: string;
}

/** One message of the conversation between reviewers and the developer. */
export interface ConversationMessage {
  id: string;
  requestId: string;
  authorType: 'reviewer' | 'developer';
  author: string;
  body: string;
  createdAt: string;
}

/** What the developer states in a request (docs/live-access.md#review). */
export type RequestFields = Pick<
  LiveAccessRequestRecord,
  | 'id'
  | 'merchantId'
  | 'developerId'
  | 'businessName'
  | 'businessType'
  | 'businessWebsite'
  | 'expectedMonthlyVolume'
  | 'useCase'
>;

/**
 * A request just filed at `filedAt` (ISO 8601 UTC): under review since then, undecided (docs/live-access.md#review).
 */
export function filedRequest(fields: RequestFields, filedAt: string): LiveAccessRequestRecord {
  return {
    ...fields,
    status: 'under_review',
    reviewerMessage: null,
    decidedBy: null,
    infoRounds: 0,
    remindersSent: 0,
    liveKeyId: null,
    requestedAt: filedAt,
    underReviewSince: filedAt,
    decidedAt: null,
    updatedAt: filedAt,
  };
}

interface RequestRow {
  id: string;
  merchant_id: string;
  developer_id: string;
  business_name: string;
  business_type: BusinessType;
  business_website: string;
  expected_monthly_volume: number;
  use_case: string;
  status: LiveAccessRequestStatus;
  reviewer_message: string | null;
  decided_by: string | null;
  info_rounds: number;
  reminders_sent: number;
  live_key_id: string | null;
  requested_at: Date;
  under_review_since: Date;
  decided_at: Date | null;
  updated_at: Date;
}

function fromRow(row: RequestRow): LiveAccessRequestRecord {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    developerId: row.developer_id,
    businessName: row.business_name,
    businessType: row.business_type,
    businessWebsite: row.business_website,
    expectedMonthlyVolume: row.expected_monthly_volume,
    useCase: row.use_case,
    status: row.status,
    reviewerMessage: row.reviewer_message,
    decidedBy: row.decided_by,
    infoRounds: row.info_rounds,
    remindersSent: row.reminders_sent,
    liveKeyId: row.live_key_id,
    requestedAt: iso(row.requested_at),
    underReviewSince: iso(row.under_review_since),
    decidedAt: isoOrNull(row.decided_at),
    updatedAt: iso(row.updated_at),
  };
}

/**
 * Inserts a new request and its audit entry, then runs `startReview` (which starts the workflow)
 * inside the same transaction: if the workflow cannot be started, nothing is stored.
 * @throws the driver's unique_violation when the merchant already has an open request (docs/live-access.md#review)
 */
export async function insertLiveAccessRequest(
  db: Db,
  request: LiveAccessRequestRecord,
  activity: AuditEntry,
  startReview: () => Promise<void>,
): Promise<void> {
  await db.transaction(async (trx) => {
    await trx('live_access_requests').insert({
      id: request.id,
      merchant_id: request.merchantId,
      developer_id: request.developerId,
      business_name: request.businessName,
      business_type: request.businessType,
      business_website: request.businessWebsite,
      expected_monthly_volume: request.expectedMonthlyVolume,
      use_case: request.useCase,
      status: request.status,
      requested_at: new Date(request.requestedAt),
      under_review_since: new Date(request.underReviewSince),
      updated_at: new Date(request.updatedAt),
    });
    await insertAuditEntries(trx, [activity]);
    await startReview();
  });
}

/** The request `id`, if any. */
export async function findLiveAccessRequest(db: Db, id: string): Promise<LiveAccessRequestRecord | undefined> {
  return findById(db, 'live_access_requests', id, fromRow);
}

/** The merchant's most recent request, if any. */
export async function findLatestLiveAccessRequest(
  db: Db,
  merchantId: string,
): Promise<LiveAccessRequestRecord | undefined> {
  const row = await db<RequestRow>('live_access_requests')
    .where({ merchant_id: merchantId })
    .orderBy([
      { column: 'requested_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .first();
  return row ? fromRow(row) : undefined;
}

/** Requests, oldest first (the review queue), optionally of one status. */
export async function listLiveAccessRequests(
  db: Db,
  filter: { status?: LiveAccessRequestStatus } = {},
): Promise<LiveAccessRequestRecord[]> {
  const query = db<RequestRow>('live_access_requests').orderBy([{ column: 'requested_at' }, { column: 'id' }]);
  if (filter.status) query.where({ status: filter.status });
  return (await query).map(fromRow);
}

/** The conversation of a request, oldest first. */
export async function listConversation(db: Db, requestId: string): Promise<ConversationMessage[]> {
  const rows = await db('live_access_messages')
    .where({ request_id: requestId })
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
  return rows.map(
    (row: {
      id: string;
      request_id: string;
      author_type: 'reviewer' | 'developer';
      author: string;
      body: string;
      created_at: Date;
    }) => ({
      id: row.id,
      requestId: row.request_id,
      authorType: row.author_type,
      author: row.author,
      body: row.body,
      createdAt: iso(row.created_at),
    }),
  );
}

/** A step of the review to write: the state after it, its time, and what it adds. */
export interface ReviewWrite {
  state: ReviewState;
  /** ISO 8601 UTC time of the step (the workflow's clock). */
  at: string;
  message?: ConversationMessage;
  activities: AuditEntry[];
}

async function writeReview(
  trx: Knex.Transaction,
  write: ReviewWrite,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const { state } = write;
  const updated = await trx('live_access_requests')
    .where({ id: state.requestId })
    .update({
      status: state.status,
      reviewer_message: state.reviewerMessage,
      decided_by: state.decidedBy,
      decided_at: state.decidedAt === null ? null : new Date(state.decidedAt),
      info_rounds: state.infoRounds,
      reminders_sent: state.remindersSent.length,
      under_review_since: new Date(state.underReviewSince),
      updated_at: new Date(write.at),
      ...extra,
    });
  if (updated !== 1) throw new Error(`live access request ${state.requestId} is not in the read model`);
  if (write.message) {
    const { message } = write;
    await trx('live_access_messages')
      .insert({
        id: message.id,
        request_id: message.requestId,
        author_type: message.authorType,
        author: message.author,
        body: message.body,
        created_at: new Date(message.createdAt),
      })
      .onConflict('id')
      .ignore();
  }
  await insertAuditEntries(trx, write.activities);
}

/**
 * Writes a review step (request info, resume, note, reminder, rejection) in one transaction.
 * Idempotent: re-writing the same state changes nothing, messages and entries have derived ids.
 * @throws Error when the request row is missing (a retryable fault for the activity)
 */
export async function recordReviewState(db: Db, write: ReviewWrite): Promise<void> {
  await db.transaction((trx) => writeReview(trx, write));
}

/**
 * The first live key to create on approval: stored as hash and last 4 (docs/api.md#secret-keys), plus the sealed secret
 * to reveal once.
 */
export interface NewLiveKey {
  id: string;
  hash: string;
  last4: string;
  sealedSecret: string;
}

/**
 * Approves a request in one transaction (docs/live-access.md#review): creates the live key (unless a retry already
 * did),
 * grants live access, moves a `sandbox` plan to `starter` (an operator-set plan is kept), writes the
 * request's state and the audit entries; `planChanged` is written only when the plan changed.
 * @returns the live key's id and last 4 characters as stored, and the plan afterwards
 */
export async function recordApproval(
  db: Db,
  write: ReviewWrite,
  merchantId: string,
  key: NewLiveKey,
  planChanged: AuditEntry,
): Promise<{ keyId: string; last4: string; plan: string }> {
  return db.transaction(async (trx) => {
    const inserted = await trx('api_keys')
      .insert({
        id: key.id,
        merchant_id: merchantId,
        environment: 'live',
        key_hash: key.hash,
        last4: key.last4,
        created_at: new Date(write.at),
      })
      .onConflict('id')
      .ignore()
      .returning('id');
    if (inserted.length === 1) {
      await trx('live_key_reveals').insert({
        key_id: key.id,
        merchant_id: merchantId,
        request_id: write.state.requestId,
        sealed_secret: key.sealedSecret,
        created_at: new Date(write.at),
      });
    }
    const developer = await trx('developers').where({ merchant_id: merchantId }).forUpdate().first('plan');
    const changesPlan = developer?.plan === 'sandbox';
    await trx('developers')
      .where({ merchant_id: merchantId })
      .update({
        has_live_access: true,
        ...(changesPlan ? { plan: APPROVAL_PLAN } : {}),
        updated_at: new Date(write.at),
      });
    await writeReview(
      trx,
      { ...write, activities: changesPlan ? [...write.activities, planChanged] : write.activities },
      { live_key_id: key.id },
    );
    const stored = await trx('api_keys').where({ id: key.id }).first('last4');
    return {
      keyId: key.id,
      last4: stored.last4 as string,
      plan: changesPlan ? APPROVAL_PLAN : (developer?.plan as string),
    };
  });
}

/** A live key waiting to be revealed. */
export interface PendingReveal {
  keyId: string;
  requestId: string;
  sealedSecret: string;
  createdAt: string;
}

/**
 * Takes (reads and deletes) the merchant's live key waiting to be revealed, so it can be shown only
 * once (docs/api.md#secret-keys); undefined when there is none.
 * @param auditEntry the `api_key.revealed` entry (docs/live-access.md#audit-log), written in the same transaction
 */
export async function takeLiveKeyReveal(
  db: Db,
  merchantId: string,
  auditEntry: (reveal: PendingReveal) => AuditEntry,
): Promise<PendingReveal | undefined> {
  return db.transaction(async (trx) => {
    const [row] = await trx('live_key_reveals')
      .where({ merchant_id: merchantId })
      .orderBy('created_at')
      .limit(1)
      .forUpdate()
      .skipLocked()
      .select('*');
    if (!row) return undefined;
    await trx('live_key_reveals').where({ key_id: row.key_id }).delete();
    const reveal: PendingReveal = {
      keyId: row.key_id,
      requestId: row.request_id,
      sealedSecret: row.sealed_secret,
      createdAt: iso(row.created_at),
    };
    await insertAuditEntries(trx, [auditEntry(reveal)]);
    return reveal;
  });
}

/** True when the merchant has a live key (revealed or not, not revoked). */
export async function hasLiveKey(db: Db, merchantId: string): Promise<boolean> {
  const row = await db('api_keys')
    .where({ merchant_id: merchantId, environment: 'live' })
    .whereNull('revoked_at')
    .first('id');
  return row !== undefined;
}
