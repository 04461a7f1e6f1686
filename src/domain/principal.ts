/**
 * Who is calling the API: the merchant and environment every query is scoped to
 * (docs/api.md#merchants-and-environments, docs/api.md#credentials), and what the caller may do there
 * (docs/security.md#roles, docs/security.md#restricted-keys).
 */
import type { Role, Scope } from './access';
import type { Environment } from './environment';

/** A signed-in person acting in a merchant (docs/security.md#team-members). */
export interface MemberActor {
  /** The person's developer id (`dev_…`): the actor of the audit log. */
  personId: string;
  role: Role;
  /** When the person last confirmed a two-factor code in this session, in epoch seconds; null if never. */
  twoFactorAt: number | null;
  /** True when the person has two-factor sign-in on (docs/security.md#two-factor). */
  twoFactorEnabled: boolean;
  /** The person's session generation, carried into the tokens signed for this session. */
  generation: number;
}

/** Where a request came from, for the audit log (docs/security.md#activity-log). */
export interface RequestOrigin {
  requestId: string | null;
  userAgent: string | null;
}

/**
 * The authenticated caller: an API key (`keyId` set) or a person's session token (`member` set).
 * `developerId` is the merchant's own account, the developer record that registered it.
 */
export interface Principal {
  merchantId: string;
  developerId: string;
  environment: Environment;
  via: 'key' | 'session';
  keyId?: string;
  /** A restricted key's scopes; undefined for a secret key (every scope) and for sessions. */
  scopes?: readonly Scope[];
  /** The signed-in person, for a session token. */
  member?: MemberActor;
  /**
   * The merchant's `refuse_when_provider_down` setting as the key's lookup read it, at most the key cache's 5 s old
   * (docs/api.md#credentials, docs/availability.md#api-create); undefined for a session, whose create reads it.
   */
  refusesWhenProviderDown?: boolean;
  origin?: RequestOrigin;
}
