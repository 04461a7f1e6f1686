/**
 * The API's form of operators' availability (docs/availability.md#api): one row per provider, country and operation
 * the caller's environment serves. Seconds and a 0–1 fraction; times ISO 8601 UTC.
 */
import { z } from '../lib/zod';
import { HEALTH_OPERATIONS, type AvailabilityRow } from '../domain/provider-health';
import { nullableText } from './fields';

/** One row of `GET /v1/availability`. */
export const availability = z
  .object({
    provider: z.string().openapi({ description: 'The provider code (`momo`, `mobile_money_b`, `mpesa`, …)' }),
    country: z.string().openapi({ description: 'ISO 3166 alpha-2 country code' }),
    operation: z.enum(HEALTH_OPERATIONS).openapi({ description: 'What is measured: collections, payouts or refunds' }),
    status: z.enum(['operational', 'degraded', 'down']).openapi({ description: 'docs/availability.md#statuses' }),
    since: nullableText('When the status began; null when it never changed'),
    success_rate: z
      .number()
      .nullable()
      .openapi({ description: 'Share of the window’s decided attempts that succeeded (0–1); null without attempts' }),
    p50_seconds: z.number().nullable().openapi({ description: 'Median seconds from request to final in the window' }),
    p95_seconds: z.number().nullable().openapi({ description: '95th percentile seconds from request to final' }),
    window_attempts: z
      .number()
      .int()
      .openapi({ description: 'Decided attempts in the window (the most recent 50 within 10 minutes)' }),
    reason: nullableText("An operator's reason for a status it set; else null"),
  })
  .openapi('Availability');

/** The `data` of a `provider.status_changed` event (docs/availability.md#events). */
export const providerStatusChanged = z
  .object({
    provider: availability.shape.provider,
    country: availability.shape.country,
    operation: availability.shape.operation,
    status: availability.shape.status.openapi({ description: 'The status shown now (docs/availability.md#statuses)' }),
    previous_status: z
      .enum(['operational', 'degraded', 'down'])
      .openapi({ description: 'The status shown before the change' }),
    since: z.string().openapi({ description: 'When the status changed (ISO 8601, UTC)' }),
    reason: nullableText(
      "Why: the measured figures (share of provider failures, p95), or an operator's reason for a status set by hand",
    ),
    success_rate: availability.shape.success_rate,
    window_attempts: availability.shape.window_attempts,
  })
  .openapi('ProviderStatusChanged');

/** A row as answered. */
export type AvailabilityView = z.output<typeof availability>;

/** The view of one row. */
export function toAvailabilityView(row: AvailabilityRow): AvailabilityView {
  return {
    provider: row.provider,
    country: row.country,
    operation: row.operation,
    status: row.status,
    since: row.since,
    success_rate: row.successRate,
    p50_seconds: row.p50Seconds,
    p95_seconds: row.p95Seconds,
    window_attempts: row.windowAttempts,
    reason: row.reason,
  };
}

/** A merchant's own sandbox status of one provider, as its set answers it (docs/availability.md#sandbox-override). */
export const sandboxProviderStatus = providerStatusChanged
  .pick({ provider: true, country: true, operation: true, status: true, previous_status: true })
  .extend({
    reason: z.string().openapi({ description: 'Your reason' }),
    expires_at: z
      .string()
      .openapi({ description: 'When it lapses and your sandbox sees the pooled status again (ISO 8601, UTC)' }),
  })
  .openapi('SandboxProviderStatus');
