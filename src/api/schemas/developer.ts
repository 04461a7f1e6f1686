/**
 * Query and body schemas of the dashboard endpoints (docs/api.md#secret-keys, docs/api.md#profile,
 * docs/limits.md#lists).
 */
import { z } from '../../lib/zod';
import { countryCode, currencyFilter, trimmedText } from './fields';
import { pageQueryFields } from '../pagination';
import { GENERIC_CATALOGUE, MERCHANT_CATALOGUE } from '../../domain/catalogue';
import { parseDateFilter, parseDay } from '../../domain/date-filter';
import { PAYMENT_STATUSES } from '../../domain/payment';
import { parseMsisdn } from '../../domain/phone';
import { isIanaTimeZone } from '../../lib/time-zone';

const METHODS = [...new Set([...Object.keys(GENERIC_CATALOGUE), ...Object.keys(MERCHANT_CATALOGUE)])] as [
  string,
  ...string[],
];
const environment = z
  .enum(['sandbox', 'live'])
  .optional()
  .openapi({ description: "With a session token: the environment to read (default sandbox); a key's own otherwise" });

/**
 * `GET /v1/developer/transactions` (docs/limits.md#lists): `status` one or more, comma-separated; `method`; `date`;
 * `currency` and `q` (README.md#dashboard).
 */
export const transactionsQuery = z.strictObject({
  ...pageQueryFields,
  /**
   * A payment or refund id: answer the transactions after it in the list (created before it), as `GET /v1/payments`
   * pages; pass the previous page's `pagination.next_starting_after`.
   */
  starting_after: z.string().min(1).max(64).optional().openapi({
    description:
      'A payment or refund id (`pay_…`, `ref_…`): answer the transactions that come after it in the list, i.e. created before it. Pass `pagination.next_starting_after` of the previous page; `page` is then ignored.',
  }),
  /** The `pagination.as_of` of the first page: later pages then ignore transactions created since. */
  as_of: z.iso
    .datetime({ offset: true })
    .transform((value) => new Date(value))
    .optional()
    .openapi({
      description: "The first page's `pagination.as_of`: later numbered pages leave out what was created since",
    }),
  status: z
    .string()
    .transform((value) => value.split(',').map((s) => s.trim()))
    .refine(
      (values) => values.every((s) => (PAYMENT_STATUSES as readonly string[]).includes(s)),
      `status must be one or more of: ${PAYMENT_STATUSES.join(', ')}`,
    )
    .optional()
    .openapi({ description: 'One or more statuses, comma-separated (`completed,refunded`)' }),
  method: z.enum(METHODS).optional().openapi({ description: 'Only this `payment_method`' }),
  /** One ISO 4217 currency (README.md#dashboard dashboard filter). */
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/, 'currency must be an ISO 4217 code, e.g. RWF')
    .optional()
    .openapi({ description: 'Only this currency (ISO 4217)' }),
  /**
   * Search (README.md#dashboard): part of the id (payment or refund), the description or the customer (phone, wallet,
   * e-mail), case-insensitive.
   */
  q: trimmedText(100)
    .optional()
    .openapi({ description: 'Part of an id (payment or refund), the description or the customer, any case' }),
  checkout_session: z.string().min(1).max(64).optional().openapi({
    description: 'Only the attempts (payments) of this checkout session (`cs_…`) and their refunds',
    example: 'cs_4Nn6Pq8Rs0Tu2Vw4Xy6Za8Bc',
  }),
  date: z
    .string()
    .transform((value, ctx) => {
      const parsed = parseDateFilter(value);
      if (parsed.ok) return parsed.range;
      ctx.addIssue({ code: 'custom', message: parsed.message });
      return z.NEVER;
    })
    .optional()
    .openapi({ description: 'A UTC day `YYYY-MM-DD` or a range `YYYY-MM-DD..YYYY-MM-DD`, both ends included' }),
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
 * days), and one `currency` when asked.
 */
export const analyticsQuery = z
  .strictObject({
    environment,
    currency: currencyFilter.openapi({
      description:
        'One currency (ISO 4217, upper case): its payments alone, so counts and the success rate are of that currency. Default: all, volumes per currency',
    }),
    from: day('from').optional().openapi({ description: 'First UTC day `YYYY-MM-DD` (default 30 days before `to`)' }),
    to: day('to').optional().openapi({ description: 'Last UTC day `YYYY-MM-DD`, included (default today)' }),
  })
  .refine((q) => !q.from || !q.to || q.from <= q.to, { message: 'from must not be after to', path: ['from'] });

/**
 * `PUT /v1/developer/profile` (docs/api.md#profile): only name, business_name, country, phone, time_zone (an IANA
 * zone name) and the setting refuse_when_provider_down.
 */
export const profileBody = z.strictObject({
  name: trimmedText(200).optional().openapi({ description: 'Your name' }),
  business_name: z
    .string()
    .trim()
    .max(200)
    .nullable()
    .optional()
    .openapi({ description: 'Your business; null clears it' }),
  country: countryCode('country must be an ISO 3166-1 alpha-2 code, e.g. RW')
    .nullable()
    .optional()
    .openapi({ description: 'ISO 3166-1 alpha-2 code (`RW`); null clears it' }),
  phone: z
    .string()
    .max(32)
    .refine((value) => parseMsisdn(value) !== undefined, 'phone must be a valid international (E.164) number')
    .nullable()
    .optional()
    .openapi({ description: 'Your phone in E.164 form; null clears it' }),
  time_zone: z
    .string()
    .refine(isIanaTimeZone, 'time_zone must be an IANA time zone name, e.g. Africa/Kigali')
    .nullable()
    .optional()
    .openapi({ description: "IANA time zone the dashboard shows times in (`Africa/Kigali`); null: the browser's" }),
  refuse_when_provider_down: z.boolean().optional().openapi({
    description:
      'True: `POST /v1/payments` to an operator that is `down` answers 503 `provider_unavailable` with `Retry-After` and creates nothing; false (the default): it is accepted and waits (docs/availability.md#api-create)',
  }),
});

/** Fields of the profile that exist but cannot be changed through `PUT` (docs/api.md#profile). */
export const IMMUTABLE_PROFILE_FIELDS = ['id', 'merchant_id', 'email', 'plan', 'has_live_access', 'created_at'];

/** `POST /v1/developer/keys/{environment}/roll` (docs/api.md#secret-keys): grace period of the old key in hours. */
export const rollKeyBody = z.strictObject({
  expires_in_hours: z
    .number()
    .int()
    .min(0)
    .max(720)
    .default(24)
    .openapi({ description: 'Hours the old key still works, 0 to 720 (0: it stops now)' }),
});

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
    .optional()
    .openapi({ description: 'Only entries of this action, e.g. `team.role_changed` or `password.changed`' }),
  actor: z
    .string()
    .regex(/^[A-Za-z0-9_]{1,64}$/, 'actor must be an id such as dev_… or key_…')
    .optional()
    .openapi({ description: 'Only entries by this actor: a person `dev_…` or a key `key_…`' }),
});
