/**
 * Query and body schemas of the dashboard endpoints (docs/api.md#secret-keys, docs/api.md#profile,
 * docs/limits.md#lists).
 */
import { z } from '../../lib/zod';
import { pageQueryFields } from '../pagination';
import { GENERIC_CATALOGUE, MERCHANT_CATALOGUE } from '../../domain/catalogue';
import { parseDateFilter, parseDay } from '../../domain/date-filter';
import { PAYMENT_STATUSES } from '../../domain/payment';
import { parseMsisdn } from '../../domain/phone';

const METHODS = [...new Set([...Object.keys(GENERIC_CATALOGUE), ...Object.keys(MERCHANT_CATALOGUE)])] as [
  string,
  ...string[],
];
const environment = z.enum(['sandbox', 'live']).optional();

/**
 * `GET /v1/developer/transactions` (docs/limits.md#lists): `status` one or more, comma-separated; `method`; `date`;
 * `currency` and `q` (README.md#dashboard).
 */
export const transactionsQuery = z.strictObject({
  ...pageQueryFields,
  /** The `pagination.as_of` of the first page: later pages then ignore transactions created since. */
  as_of: z.iso
    .datetime({ offset: true })
    .transform((value) => new Date(value))
    .optional(),
  status: z
    .string()
    .transform((value) => value.split(',').map((s) => s.trim()))
    .refine(
      (values) => values.every((s) => (PAYMENT_STATUSES as readonly string[]).includes(s)),
      `status must be one or more of: ${PAYMENT_STATUSES.join(', ')}`,
    )
    .optional(),
  method: z.enum(METHODS).optional(),
  /** One ISO 4217 currency (README.md#dashboard dashboard filter). */
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/, 'currency must be an ISO 4217 code, e.g. RWF')
    .optional(),
  /**
   * Search (README.md#dashboard): part of the id (payment or refund), the description or the customer (phone, wallet,
   * e-mail), case-insensitive.
   */
  q: z.string().trim().min(1).max(100).optional(),
  date: z
    .string()
    .transform((value, ctx) => {
      const parsed = parseDateFilter(value);
      if (parsed.ok) return parsed.range;
      ctx.addIssue({ code: 'custom', message: parsed.message });
      return z.NEVER;
    })
    .optional(),
});

const day = (name: string) =>
  z.string().transform((value, ctx) => {
    const parsed = parseDay(value);
    if (parsed) return parsed;
    ctx.addIssue({ code: 'custom', message: `${name} must be a calendar day YYYY-MM-DD` });
    return z.NEVER;
  });

/**
 * `GET /v1/developer/analytics` (docs/limits.md#lists): `from` and `to` days (UTC, both included; default the last 30
 * days).
 */
export const analyticsQuery = z
  .strictObject({ environment, from: day('from').optional(), to: day('to').optional() })
  .refine((q) => !q.from || !q.to || q.from <= q.to, { message: 'from must not be after to', path: ['from'] });

/** `PUT /v1/developer/profile` (docs/api.md#profile): only name, business_name, country, phone. */
export const profileBody = z.strictObject({
  name: z.string().trim().min(1).max(200).optional(),
  business_name: z.string().trim().max(200).nullable().optional(),
  country: z
    .string()
    .regex(/^[A-Z]{2}$/, 'country must be an ISO 3166-1 alpha-2 code, e.g. RW')
    .nullable()
    .optional(),
  phone: z
    .string()
    .max(32)
    .refine((value) => parseMsisdn(value) !== undefined, 'phone must be a valid international (E.164) number')
    .nullable()
    .optional(),
});

/** Fields of the profile that exist but cannot be changed through `PUT` (docs/api.md#profile). */
export const IMMUTABLE_PROFILE_FIELDS = ['id', 'merchant_id', 'email', 'plan', 'has_live_access', 'created_at'];

/** `POST /v1/developer/keys/{environment}/roll` (docs/api.md#secret-keys): grace period of the old key in hours. */
export const rollKeyBody = z.strictObject({ expires_in_hours: z.number().int().min(0).max(720).default(24) });

/** `{environment}` of the roll path. */
export const environmentParam = z.object({ environment: z.enum(['sandbox', 'live']) });

/** The environment query accepted by every dashboard endpoint (docs/api.md#credentials). */
export const environmentOnlyQuery = z.strictObject({ environment });

/**
 * `GET /v1/developer/activity` (docs/live-access.md#audit-log, docs/security.md#activity-log): page and limit,
 * and optionally one `action` (`team.role_changed`) and one actor id (`actor`: a `dev_…` or `key_…`).
 */
export const auditLogQuery = z.strictObject({
  ...pageQueryFields,
  action: z
    .string()
    .regex(/^[a-z_]+\.[a-z_]+$/, 'action must look like team.role_changed')
    .optional(),
  actor: z
    .string()
    .regex(/^[A-Za-z0-9_]{1,64}$/, 'actor must be an id such as dev_… or key_…')
    .optional(),
});
