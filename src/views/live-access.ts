/**
 * The API's form of the live access status (docs/live-access.md#review), as `GET /v1/developer/live-access/status`
 * answers it.
 */
import { z } from '../lib/zod';
import { overallStatus, type LiveAccessRequestStatus } from '../domain/live-access';
import { timestamp } from './timestamp';

/** The live access status (docs/live-access.md#review): `live_access_request` is present once a request exists. */
export const liveAccessStatus = z.object({
  status: z.enum(['none', 'pending', 'approved', 'rejected']),
  has_live_access: z.boolean(),
  live_access_request: z
    .object({
      id: z.string(),
      status: z.enum(['under_review', 'more_info_required', 'approved', 'rejected']),
      requested_at: timestamp,
      decided_at: timestamp.optional(),
      reviewer_message: z.string().optional(),
    })
    .optional(),
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
