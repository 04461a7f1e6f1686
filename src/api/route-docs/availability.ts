/**
 * The route docs of one feature (src/api/openapi.ts builds the document from every feature's): operators'
 * availability.
 */
import { z } from '../../lib/zod';
import { availabilityQuery } from '../schemas/availability';
import * as out from '../../views';
import { ok, DASHBOARD_CREDENTIALS, DEVELOPER, type RouteDoc } from './shared';

const example = {
  provider: 'momo',
  country: 'RW',
  operation: 'collection' as const,
  status: 'degraded' as const,
  since: '2026-11-29T09:41:30.000Z',
  success_rate: 0.62,
  p50_seconds: 21.4,
  p95_seconds: 74.0,
  window_attempts: 50,
  reason: null,
};

/** Operators' availability. */
export const availabilityRouteDocs: RouteDoc[] = [
  {
    operationId: 'listAvailability',
    method: 'get',
    path: '/v1/availability',
    tag: 'Availability',
    summary: "Operators' availability",
    description: `Each provider, country and operation your environment serves, measured from the service's own traffic across merchants (docs/availability.md): \`status\` (\`operational\`, \`degraded\`, \`down\`), since when, the success rate and the p50 and p95 seconds to final over the most recent 50 decided attempts within 10 minutes. Only the provider's own failures count against it, never your payers' declines. Any API key, restricted keys included. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: availabilityQuery,
    success: {
      status: 200,
      description: 'Every served provider, country and operation',
      schema: out.envelope(
        z.object({
          availability: z
            .array(out.availability)
            .openapi({ description: 'One row per provider, country and operation' }),
        }),
      ),
      example: ok('Availability retrieved', { availability: [example] }),
    },
  },
  {
    operationId: 'retrieveStatusPage',
    method: 'get',
    path: '/status',
    tag: 'Availability',
    summary: 'The public status page',
    description:
      "An HTML page for anyone, without a key (docs/availability.md#status-page): every provider, country and operation of the live environment with today's status, the last 90 days as daily bars (the worst status of each day) and the changes of those days with their reasons. No script; cached for 30 s.",
    success: {
      status: 200,
      description: 'The page',
      schema: z.string(),
      contentType: 'text/html',
      example: '<!doctype html>…',
    },
    errors: [503],
  },
];
