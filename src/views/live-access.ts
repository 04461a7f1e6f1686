/**
 * The API's form of the live access status (docs/live-access.md#review), as `GET /v1/developer/live-access/status`
 * answers it.
 */
import { z } from '../lib/zod';
import { overallStatus, type LiveAccessRequestStatus } from '../domain/live-access';
import { timestamp } from './timestamp';
import { optionalText } from './fields';

/** The live access status (docs/live-access.md#review): `live_access_request` is present once a request exists. */
export const liveAccessStatus = z.object({
  status: z
    .enum(['none', 'pending', 'approved', 'rejected'])
    .openapi({ description: '`none` before any request, then `pending`, `approved` or `rejected`' }),
  has_live_access: z.boolean().openapi({ description: 'Whether live access was granted' }),
  live_access_request: z
    .object({
      id: z.string().openapi({ description: "The request's id, `req_…`" }),
      status: z
        .enum(['under_review', 'more_info_required', 'approved', 'rejected'])
        .openapi({ description: 'Where the review stands' }),
      requested_at: timestamp.openapi({ description: 'When you sent it (ISO 8601, UTC)' }),
      decided_at: timestamp.optional().openapi({ description: 'When the reviewers decided (ISO 8601, UTC)' }),
      reviewer_message: optionalText('What the reviewer wrote to you'),
    })
    .optional()
    .openapi({ description: 'Your latest request; absent before the first' }),
});

/** The live access status as answered. */
export type LiveAccessStatusView = z.output<typeof liveAccessStatus>;

/**
 * The live access status of a merchant with or without live access, from its latest request (or none); the request's
 * `decided_at` and `reviewer_message` only once it has them.
 */
export function toLiveAccessStatusView(
  hasLiveAccess: boolean,
  latest:
    | {
        id: string;
        status: LiveAccessRequestStatus;
        requestedAt: string;
        decidedAt: string | null;
        reviewerMessage: string | null;
      }
    | undefined,
): LiveAccessStatusView {
  const view: LiveAccessStatusView = { status: overallStatus(latest?.status), has_live_access: hasLiveAccess };
  if (latest) {
    const request: NonNullable<LiveAccessStatusView['live_access_request']> = {
      id: latest.id,
      status: latest.status,
      requested_at: latest.requestedAt,
    };
    if (latest.decidedAt !== null) request.decided_at = latest.decidedAt;
    if (latest.reviewerMessage !== null) request.reviewer_message = latest.reviewerMessage;
    view.live_access_request = request;
  }
  return view;
}
