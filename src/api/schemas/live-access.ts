/** Bodies of `POST /v1/developer/live-access/request` and `/respond` (docs/live-access.md#review). */
import { z } from '../../lib/zod';
import { trimmedText } from './fields';
import { BUSINESS_TYPES, USE_CASE_MIN_LENGTH } from '../../domain/live-access';

/**
 * The request (docs/live-access.md#review): `business_type` from the interface's list, `business_website` an http(s)
 * URL
 * with a domain name, `expected_monthly_volume` a non-negative integer (as the developer estimates
 * it; no unit is implied), `use_case` at least 20 characters, `compliance_acknowledged` exactly true.
 */
export const liveAccessRequestBody = z.strictObject({
  business_name: trimmedText(200).openapi({ description: 'The registered name of your business' }),
  business_type: z.enum(BUSINESS_TYPES).openapi({ description: 'What your business does' }),
  business_website: z
    .url({ protocol: /^https?$/, hostname: z.regexes.domain })
    .max(2048)
    .openapi({ description: 'Your website, http(s) with a domain name' }),
  expected_monthly_volume: z
    .number()
    .int()
    .min(0)
    .max(Number.MAX_SAFE_INTEGER)
    .openapi({ description: 'What you expect to collect a month, your estimate' }),
  use_case: z
    .string()
    .trim()
    .min(USE_CASE_MIN_LENGTH)
    .max(5000)
    .openapi({ description: 'What you will collect payments for, at least 20 characters' }),
  compliance_acknowledged: z
    .boolean()
    .refine((value) => value, {
      message: 'compliance_acknowledged must be true to acknowledge the compliance terms',
    })
    .openapi({ description: 'Must be true: you acknowledge the compliance terms' }),
});

/** The parsed request body. */
export type LiveAccessRequestBody = z.infer<typeof liveAccessRequestBody>;

/** An answer to the reviewers: 1 to 5000 characters. */
export const respondBody = z.strictObject({
  message: trimmedText(5000).openapi({ description: 'Your answer to the reviewer, 1 to 5000 characters' }),
});
