/**
 * Who may call what (docs/security.md#roles, docs/security.md#restricted-keys): the one table of every
 * authenticated endpoint with the team roles whose sessions it serves and the scope a restricted key needs.
 * The API refuses anything else with 403 `forbidden` ({@link accessProblem}); a test walks the OpenAPI
 * document with every role and checks each answer against this table.
 */

/** Team roles (docs/security.md#roles), most powerful first. */
export const ROLES = ['owner', 'admin', 'developer', 'viewer'] as const;

/** A team role. */
export type Role = (typeof ROLES)[number];

/** Scopes a restricted key may hold (docs/security.md#restricted-keys); a secret key holds them all. */
export const SCOPES = [
  'payments:read',
  'payments:write',
  'refunds:write',
  'payouts:read',
  'payouts:write',
  'balance:read',
  'webhooks:write',
  'checkout:read',
  'checkout:write',
] as const;

/** A restricted key's scope. */
export type Scope = (typeof SCOPES)[number];

/** What one endpoint allows. */
export interface EndpointAccess {
  /** Roles whose session token it serves; empty for endpoints that take API keys only. */
  roles: readonly Role[];
  /**
   * The scope a restricted key needs; `any` when every restricted key may call it (public facts such as operators'
   * availability); null when only a secret key (or a session) may call it.
   */
  scope: Scope | 'any' | null;
}

const EVERYONE: readonly Role[] = ROLES;
/** Keys, webhooks, payments and refunds: not viewers. */
const BUILDERS: readonly Role[] = ['owner', 'admin', 'developer'];
/** The team, the merchant's settings, documents and live access. */
const MANAGERS: readonly Role[] = ['owner', 'admin'];
const KEYS_ONLY: readonly Role[] = [];

/**
 * Every authenticated endpoint, as `METHOD /path` in the OpenAPI document's spelling. Endpoints without
 * a credential (health, sign-in, provider callbacks) are not listed.
 */
export const ENDPOINT_ACCESS: Readonly<Record<string, EndpointAccess>> = {
  'GET /v1/payments': { roles: KEYS_ONLY, scope: 'payments:read' },
  'POST /v1/checkout/sessions': { roles: KEYS_ONLY, scope: 'checkout:write' },
  'GET /v1/checkout/sessions': { roles: EVERYONE, scope: 'checkout:read' },
  'GET /v1/checkout/sessions/{id}': { roles: EVERYONE, scope: 'checkout:read' },
  'POST /v1/checkout/sessions/{id}/expire': { roles: KEYS_ONLY, scope: 'checkout:write' },
  'POST /v1/payment_links': { roles: BUILDERS, scope: 'checkout:write' },
  'GET /v1/payment_links': { roles: EVERYONE, scope: 'checkout:read' },
  'GET /v1/payment_links/{id}': { roles: EVERYONE, scope: 'checkout:read' },
  'PATCH /v1/payment_links/{id}': { roles: BUILDERS, scope: 'checkout:write' },
  'GET /v1/payment_links/{id}/qr.svg': { roles: EVERYONE, scope: 'checkout:read' },
  'GET /v1/payment_links/{id}/qr.png': { roles: EVERYONE, scope: 'checkout:read' },
  'POST /v1/payments': { roles: KEYS_ONLY, scope: 'payments:write' },
  'GET /v1/payments/{id}': { roles: KEYS_ONLY, scope: 'payments:read' },
  'POST /v1/payments/{id}/cancel': { roles: KEYS_ONLY, scope: 'payments:write' },
  'POST /v1/payments/{id}/refund': { roles: KEYS_ONLY, scope: 'refunds:write' },
  'POST /v1/api/merchants/{merchant_id}/payments': { roles: KEYS_ONLY, scope: 'payments:write' },
  'GET /v1/api/merchants/{merchant_id}/payments/{payment_id}': { roles: KEYS_ONLY, scope: 'payments:read' },
  'POST /v1/sandbox/payments/{id}/simulate': { roles: KEYS_ONLY, scope: 'payments:write' },
  'GET /v1/availability': { roles: EVERYONE, scope: 'any' },
  'GET /v1/balance': { roles: EVERYONE, scope: 'balance:read' },
  'GET /v1/balance_transactions': { roles: EVERYONE, scope: 'balance:read' },
  'GET /v1/balance_transactions/{id}': { roles: EVERYONE, scope: 'balance:read' },
  // Reports show balance transactions: whoever reads the balance reads them (docs/ledger.md#reports).
  'GET /v1/balance/settlement_report': { roles: EVERYONE, scope: 'balance:read' },
  'GET /v1/payouts/{id}/settlement_report': { roles: EVERYONE, scope: 'balance:read' },
  'POST /v1/sandbox/balance/settle': { roles: KEYS_ONLY, scope: null },
  'POST /v1/sandbox/providers/{provider}/status': { roles: KEYS_ONLY, scope: null },
  'GET /v1/developer/events': { roles: EVERYONE, scope: 'payments:read' },
  'GET /v1/developer/events/{id}': { roles: EVERYONE, scope: 'payments:read' },
  'GET /v1/developer/events/stream': { roles: EVERYONE, scope: 'payments:read' },
  'GET /v1/developer/profile': { roles: EVERYONE, scope: null },
  'PUT /v1/developer/profile': { roles: MANAGERS, scope: null },
  'GET /v1/developer/branding': { roles: EVERYONE, scope: null },
  'PUT /v1/developer/branding': { roles: MANAGERS, scope: null },
  'GET /v1/developer/branding/logo': { roles: EVERYONE, scope: null },
  'DELETE /v1/developer/branding/logo': { roles: MANAGERS, scope: null },
  'GET /v1/developer/transactions': { roles: EVERYONE, scope: 'payments:read' },
  'GET /v1/developer/transactions/{id}': { roles: EVERYONE, scope: 'payments:read' },
  'GET /v1/developer/analytics': { roles: EVERYONE, scope: 'payments:read' },
  'GET /v1/developer/activity': { roles: EVERYONE, scope: null },
  'GET /v1/developer/payments/{id}': { roles: EVERYONE, scope: 'payments:read' },
  'POST /v1/developer/payments/{id}/cancel': { roles: BUILDERS, scope: 'payments:write' },
  'POST /v1/developer/payments/{id}/refund': { roles: BUILDERS, scope: 'refunds:write' },
  'POST /v1/documents/upload/kyc': { roles: MANAGERS, scope: null },
  'POST /v1/documents/upload/business': { roles: MANAGERS, scope: null },
  'GET /v1/documents': { roles: EVERYONE, scope: null },
  'POST /v1/developer/live-access/request': { roles: MANAGERS, scope: null },
  'GET /v1/developer/live-access/status': { roles: EVERYONE, scope: null },
  'POST /v1/developer/live-access/respond': { roles: MANAGERS, scope: null },
  'POST /v1/developer/live-access/live-key': { roles: MANAGERS, scope: null },
  'GET /v1/developer/webhooks': { roles: EVERYONE, scope: 'webhooks:write' },
  'POST /v1/developer/webhooks': { roles: BUILDERS, scope: 'webhooks:write' },
  'GET /v1/developer/webhooks/{id}': { roles: EVERYONE, scope: 'webhooks:write' },
  'PUT /v1/developer/webhooks/{id}': { roles: BUILDERS, scope: 'webhooks:write' },
  'DELETE /v1/developer/webhooks/{id}': { roles: BUILDERS, scope: 'webhooks:write' },
  'POST /v1/developer/webhooks/{id}/test': { roles: BUILDERS, scope: 'webhooks:write' },
  'POST /v1/developer/webhooks/{id}/rotate-secret': { roles: BUILDERS, scope: 'webhooks:write' },
  'GET /v1/developer/webhooks/{id}/deliveries': { roles: EVERYONE, scope: 'webhooks:write' },
  'POST /v1/developer/webhooks/{id}/deliveries/{delivery_id}/retry': { roles: BUILDERS, scope: 'webhooks:write' },
  'GET /v1/developer/keys': { roles: EVERYONE, scope: null },
  'POST /v1/developer/keys': { roles: BUILDERS, scope: null },
  'POST /v1/developer/keys/{environment}/roll': { roles: BUILDERS, scope: null },
  'POST /v1/developer/keys/restricted/{id}/roll': { roles: BUILDERS, scope: null },
  'DELETE /v1/developer/keys/{id}': { roles: BUILDERS, scope: null },
  'GET /v1/developer/2fa': { roles: EVERYONE, scope: null },
  'POST /v1/developer/2fa/enroll': { roles: EVERYONE, scope: null },
  'POST /v1/developer/2fa/confirm': { roles: EVERYONE, scope: null },
  'POST /v1/developer/2fa/verify': { roles: EVERYONE, scope: null },
  'DELETE /v1/developer/2fa': { roles: EVERYONE, scope: null },
  'POST /v1/developer/password': { roles: EVERYONE, scope: null },
  'GET /v1/developer/team/members': { roles: EVERYONE, scope: null },
  'PATCH /v1/developer/team/members/{id}': { roles: MANAGERS, scope: null },
  'DELETE /v1/developer/team/members/{id}': { roles: MANAGERS, scope: null },
  'GET /v1/developer/team/invitations': { roles: MANAGERS, scope: null },
  'POST /v1/developer/team/invitations': { roles: MANAGERS, scope: null },
  'POST /v1/auth/switch': { roles: EVERYONE, scope: null },
  'POST /v1/auth/sign-out-everywhere': { roles: EVERYONE, scope: null },
  'GET /v1/payout_destinations': { roles: EVERYONE, scope: 'payouts:read' },
  'POST /v1/payout_destinations': { roles: MANAGERS, scope: 'payouts:write' },
  'DELETE /v1/payout_destinations/{id}': { roles: MANAGERS, scope: 'payouts:write' },
  'GET /v1/payouts': { roles: EVERYONE, scope: 'payouts:read' },
  'POST /v1/payouts': { roles: MANAGERS, scope: 'payouts:write' },
  'GET /v1/payouts/{id}': { roles: EVERYONE, scope: 'payouts:read' },
  'POST /v1/payouts/{id}/cancel': { roles: MANAGERS, scope: 'payouts:write' },
  'GET /v1/payout_schedule': { roles: EVERYONE, scope: 'payouts:read' },
  'PUT /v1/payout_schedule': { roles: MANAGERS, scope: 'payouts:write' },
};

/** The caller as access rules see it. */
export interface AccessCaller {
  via: 'key' | 'session';
  role?: Role;
  /** A restricted key's scopes; undefined for a secret key. */
  scopes?: readonly Scope[];
}

/**
 * Why `caller` may not call `endpoint` (`METHOD /path` in the OpenAPI spelling), as the message of a 403
 * `forbidden`; undefined when it may. An endpoint missing from {@link ENDPOINT_ACCESS} is refused to
 * everyone (closed by default).
 */
export function accessProblem(caller: AccessCaller, endpoint: string): string | undefined {
  const access = ENDPOINT_ACCESS[endpoint];
  if (!access) return `${endpoint} is not open to this credential`;
  if (caller.via === 'session') {
    if (caller.role && access.roles.includes(caller.role)) return undefined;
    return `your role (${caller.role ?? 'none'}) does not allow ${endpoint}`;
  }
  if (caller.scopes === undefined) return undefined;
  if (access.scope === null) return `${endpoint} needs a secret key; a restricted key cannot call it`;
  if (access.scope === 'any' || caller.scopes.includes(access.scope)) return undefined;
  // `checkout:write` includes `checkout:read`.
  if (access.scope === 'checkout:read' && caller.scopes.includes('checkout:write')) return undefined;
  return `this restricted key lacks the scope ${access.scope}`;
}

/**
 * The OpenAPI spelling (`METHOD /v1/payments/{id}`) of a route as the router matched it (`/v1/payments/:id`);
 * HEAD is the GET of the same path.
 */
export function endpointOf(method: string, routePath: string): string {
  const path = routePath.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/(.)\/$/, '$1');
  const verb = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  return `${verb} ${path}`;
}

/** True when `role` may give or take the role `target` (docs/security.md#roles: only owners touch owners). */
export function mayAssignRole(role: Role, target: Role): boolean {
  if (role === 'owner') return true;
  return role === 'admin' && target !== 'owner';
}
