/**
 * The API's forms of the developer account (docs/api.md#sessions, docs/api.md#profile) and its secret keys
 * (docs/api.md#secret-keys).
 */
import { SCOPES } from '../domain/access';
import { z } from '../lib/zod';
import { timestamp } from './timestamp';
import { nullableText, objectName } from './fields';

/** A developer as registration answers it (never the password hash). */
export const developer = z
  .object({
    id: z.string().openapi({ description: 'Your developer id, `dev_…`' }),
    merchant_id: z.string().openapi({ description: 'Your merchant id, `mer_…`: the owner of your payments' }),
    email: z.string().openapi({ description: 'Your e-mail, your sign-in name' }),
    name: z.string().openapi({ description: 'Your name' }),
    business_name: nullableText('Your business; null when not given'),
    plan: z.string().openapi({ description: 'Your plan (`sandbox` until live access, then the approved plan)' }),
    has_live_access: z.boolean().openapi({ description: 'Whether live access was granted' }),
    created_at: timestamp.openapi({ description: 'When you registered (ISO 8601, UTC)' }),
  })
  .openapi({ description: 'Your developer account' });

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

/**
 * The profile (docs/api.md#profile): the developer with country, phone, the time zone of the dashboard and the setting
 * refuse_when_provider_down.
 */
export const profile = developer.extend({
  country: nullableText('Your country, ISO 3166-1 alpha-2; null when not given'),
  phone: nullableText('Your phone number; null when not given'),
  time_zone: nullableText("The IANA time zone the dashboard shows times in (`Africa/Kigali`); null: the browser's own"),
  refuse_when_provider_down: z.boolean().openapi({
    description:
      'Whether API creates to an operator that is `down` are refused with 503 `provider_unavailable` (docs/availability.md#api-create); false by default',
  }),
});

/** The profile as answered. */
export type ProfileView = z.output<typeof profile>;

/** The API form of a developer's profile. */
export function profileView(
  row: DeveloperSource & Pick<ProfileView, 'country' | 'phone' | 'refuse_when_provider_down' | 'time_zone'>,
): ProfileView {
  return {
    ...developerView(row),
    country: row.country,
    phone: row.phone,
    time_zone: row.time_zone,
    refuse_when_provider_down: row.refuse_when_provider_down,
  };
}

/** A session token (docs/api.md#sessions). */
export const session = z.object({
  token: z.string().openapi({ description: 'The session token: send it as `Authorization: Bearer <token>`' }),
  expires_at: timestamp.openapi({ description: 'When the token stops working; sign in again then (ISO 8601, UTC)' }),
});

/** A listed key (docs/api.md#secret-keys, docs/security.md#restricted-keys): masked, never the secret. */
export const keySummary = z.object({
  id: z.string().openapi({ description: 'Key id, `key_…`' }),
  kind: z
    .enum(['secret', 'restricted'])
    .openapi({ description: '`secret` (every scope) or `restricted` (its `scopes` only)' }),
  name: nullableText("A restricted key's name; null for secret keys"),
  scopes: z
    .array(z.enum(SCOPES))
    .nullable()
    .openapi({ description: "A restricted key's scopes; null for secret keys, which hold every scope" }),
  environment: z.enum(['sandbox', 'live']).openapi({ description: '`sandbox` or `live`' }),
  masked: z.string().openapi({ description: 'The key with all but its start and last 4 characters hidden' }),
  last4: z.string().openapi({ description: 'Its last 4 characters' }),
  status: z
    .enum(['active', 'expiring', 'expired', 'revoked'])
    .openapi({ description: "`active`; `expiring` during a roll's grace period; `expired`; `revoked`" }),
  created_at: timestamp.openapi({ description: 'When it was made (ISO 8601, UTC)' }),
  expires_at: timestamp.nullable().openapi({ description: 'When it stops working; null while it has no end' }),
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
  id: z.string().openapi({ description: 'Key id, `key_…`' }),
  object: objectName('api_key'),
  environment: objectName('live'),
  secret: z.string().openapi({ description: 'The secret key `sk_live_…`, shown once: store it' }),
  last4: z.string().openapi({ description: 'Its last 4 characters' }),
  created_at: timestamp.openapi({ description: 'When it was made (ISO 8601, UTC)' }),
});

/** The revealed live key as answered. */
export type RevealedKeyView = z.output<typeof revealedKey>;
