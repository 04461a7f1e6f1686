/**
 * The API's forms of the developer account (docs/api.md#sessions, docs/api.md#profile) and its secret keys
 * (docs/api.md#secret-keys).
 */
import { SCOPES } from '../domain/access';
import { z } from '../lib/zod';
import { timestamp } from './timestamp';

/** A developer as registration answers it (never the password hash). */
export const developer = z.object({
  id: z.string(),
  merchant_id: z.string(),
  email: z.string(),
  name: z.string(),
  business_name: z.string().nullable(),
  plan: z.string(),
  has_live_access: z.boolean(),
  created_at: timestamp,
});

/** A developer as answered. */
export type DeveloperView = z.output<typeof developer>;

/**
 * What the developer view reads of a stored developer: its fields, `created_at` as a Date (a `developers` row has
 * them).
 */
export type DeveloperSource = Omit<DeveloperView, 'created_at'> & { created_at: Date };

/** The API form of a developer. */
export function developerView(row: DeveloperSource): DeveloperView {
  return {
    id: row.id,
    merchant_id: row.merchant_id,
    email: row.email,
    name: row.name,
    business_name: row.business_name,
    plan: row.plan,
    has_live_access: row.has_live_access,
    created_at: row.created_at.toISOString(),
  };
}

/** The profile (docs/api.md#profile): the developer with country and phone. */
export const profile = developer.extend({ country: z.string().nullable(), phone: z.string().nullable() });

/** The profile as answered. */
export type ProfileView = z.output<typeof profile>;

/** The API form of a developer's profile. */
export function profileView(row: DeveloperSource & Pick<ProfileView, 'country' | 'phone'>): ProfileView {
  return { ...developerView(row), country: row.country, phone: row.phone };
}

/** A session token (docs/api.md#sessions). */
export const session = z.object({ token: z.string(), expires_at: timestamp });

/** A listed key (docs/api.md#secret-keys, docs/security.md#restricted-keys): masked, never the secret. */
export const keySummary = z.object({
  id: z.string(),
  /** `secret` (every scope) or `restricted` (its `scopes` only). */
  kind: z.enum(['secret', 'restricted']),
  /** A restricted key's name; null for secret keys. */
  name: z.string().nullable(),
  /** A restricted key's scopes; null for secret keys, which hold every scope. */
  scopes: z.array(z.enum(SCOPES)).nullable(),
  environment: z.enum(['sandbox', 'live']),
  masked: z.string(),
  last4: z.string(),
  status: z.enum(['active', 'expiring', 'expired', 'revoked']),
  created_at: timestamp,
  expires_at: timestamp.nullable(),
});

/** A listed key as answered. */
export type KeySummaryView = z.output<typeof keySummary>;

/** What the key view reads of a stored key (an `api_keys` row has these). */
export type KeySource = Pick<KeySummaryView, 'id' | 'environment' | 'last4' | 'kind' | 'name' | 'scopes'> & {
  created_at: Date;
  expires_at: Date | null;
};

/** The API form of a key in `status` (the service decides it, docs/api.md#secret-keys). */
export function keyView(row: KeySource, status: KeySummaryView['status']): KeySummaryView {
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    scopes: row.scopes,
    environment: row.environment,
    masked: `${row.kind === 'restricted' ? 'rk' : 'sk'}_${row.environment}_…${row.last4}`,
    last4: row.last4,
    status,
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at?.toISOString() ?? null,
  };
}

/** The first live key, revealed once (docs/api.md#secret-keys). */
export const revealedKey = z.object({
  id: z.string(),
  object: z.literal('api_key'),
  environment: z.literal('live'),
  secret: z.string(),
  last4: z.string(),
  created_at: timestamp,
});

/** The revealed live key as answered. */
export type RevealedKeyView = z.output<typeof revealedKey>;
