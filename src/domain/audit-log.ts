/**
 * The audit log (docs/live-access.md#audit-log): who changed what, written with every change made through the API, by a
 * reviewer or by the service itself. Merchants read it at `GET /v1/developer/activity`.
 */
import type { Environment } from './environment';

/** Who acted: a developer (session), a secret key, a reviewer or operator (admin command), or the service. */
export type ActorType = 'developer' | 'api_key' | 'reviewer' | 'operator' | 'system';

/** The actor of an entry: `id` is a developer id, a reviewer's or operator's name, or a process name. */
export interface Actor {
  type: ActorType;
  id: string;
}

/**
 * The actions the audit log records: live access, documents, money, keys, webhooks, settings, the team, sign-ins and
 * passwords (docs/security.md#activity-log); the dashboard offers them as the activity screen's filter.
 */
export const AUDIT_ACTIONS = [
  'document.uploaded',
  'live_access.requested',
  'live_access.responded',
  'live_access.info_requested',
  'live_access.review_resumed',
  'live_access.reminder_sent',
  'live_access.approved',
  'live_access.rejected',
  'api_key.created',
  'api_key.revealed',
  'merchant.plan_changed',
  'merchant.limits_changed',
  'merchant.settlement_delay_changed',
  'payment.created',
  'payment.cancelled',
  'refund.created',
  'profile.updated',
  'api_key.rolled',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'webhook.secret_rotated',
  'api_key.restricted_created',
  'api_key.restricted_rolled',
  'api_key.revoked',
  'sign_in.succeeded',
  'sign_in.failed',
  'sign_out.everywhere',
  'password.changed',
  'password.change_refused',
  'two_factor.enabled',
  'two_factor.disabled',
  'two_factor.code_refused',
  'team.member_invited',
  'team.member_joined',
  'team.role_changed',
  'team.member_removed',
  'payout_destination.created',
  'payout_destination.deleted',
  'payout.created',
  'payout.cancelled',
  'payout_schedule.updated',
  'branding.updated',
  'branding.logo_removed',
] as const;

/** One action of {@link AUDIT_ACTIONS}. */
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** An entry to write; `id` is `act_…` (derived from the step where a retry could repeat it). */
export interface AuditEntry {
  id: string;
  merchantId: string;
  environment: Environment;
  actor: Actor;
  action: AuditAction;
  /** The id of what was changed (`req_…`, `doc_…`, `key_…`, `mer_…`). */
  target: string;
  /** The caller's IP address for API actions; null for reviewers and the service. */
  ip: string | null;
  /** The API request that made the change (its `X-Request-Id`); absent outside the API. */
  requestId?: string | null;
  /** The caller's User-Agent; absent outside the API. */
  userAgent?: string | null;
  /** ISO 8601 UTC. */
  createdAt: string;
}
