/** Query of `GET /v1/availability` (docs/availability.md#api): only a session token's `environment`; 400 otherwise. */
import { z } from '../../lib/zod';

/** `GET /v1/availability`. */
export const availabilityQuery = z.strictObject({
  environment: z
    .enum(['sandbox', 'live'])
    .optional()
    .openapi({ description: "Which environment's providers (a session token; an API key is bound to its own)" }),
});
