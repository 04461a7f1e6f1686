/** Bodies of `POST /v1/developer/live-access/request` and `/respond` (docs/live-access.md#review). */
import { z } from '../../lib/zod';
import { BUSINESS_TYPES, USE_CASE_MIN_LENGTH } from '../../domain/live-access';

/**
 * The request (docs/live-access.md#review): `business_type` from the interface's list, `business_website` an http(s)
 * URL
 * with a domain name, `expected_monthly_volume` a non-negative integer (as the developer estimates
 * it; no unit is implied), `use_case` at least 20 characters, `compliance_acknowledged` exactly true.
 */
export const liveAccessRequestBody = z.strictObject({
  business_name: z.string().trim().min(1).max(200),
  business_type: z.enum(BUSINESS_TYPES),
  business_website: z.url({ protocol: /^https?$/, hostname: z.regexes.domain }).max(2048),
  expected_monthly_volume: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  use_case: z.string().trim().min(USE_CASE_MIN_LENGTH).max(5000),
  compliance_acknowledged: z.boolean().refine((value) => value, {
    message: 'compliance_acknowledged must be true to acknowledge the compliance terms',
  }),
});

/** The parsed request body. */
export type LiveAccessRequestBody = z.infer<typeof liveAccessRequestBody>;

/** An answer to the reviewers: 1 to 5000 characters. */
export const respondBody = z.strictObject({
  message: z.string().trim().min(1).max(5000),
});
