/**
 * `/v1/developer/live-access/*` (docs/live-access.md#review, docs/api.md#secret-keys): file a request, read
 * its status, answer a reviewer, and reveal the first live key once. Session token only (docs/api.md#credentials).
 */
import type Router from '@koa/router';
import {
  getLiveAccessStatus,
  requestLiveAccess,
  respondToReviewer,
  revealLiveKey,
  type LiveAccessServiceDeps,
} from '../../services/live-access-service';
import { respond } from '../envelope';
import { principalOf, sessionRouter } from '../middleware/auth';
import { jsonBody } from '../middleware/json-body';
import { liveAccessRequestBody, respondBody } from '../schemas/live-access';
import { parseOrThrow } from '../schemas/validate';

/** Live access routes under `/v1/developer/live-access`. */
export function liveAccessRoutes(deps: LiveAccessServiceDeps): Router {
  const router = sessionRouter('/v1/developer/live-access', deps);

  /**
   * File a request: body of {@link liveAccessRequestBody} → 201 envelope with the request status
   * (docs/live-access.md#review), the
   * request `under_review`. Errors: 400 `validation_error` (naming the field) or `documents_missing`
   * (naming each missing document), 401, 409 `conflict` (a request is open, or access is granted).
   */
  router.post('/request', jsonBody(), async (ctx) => {
    const body = parseOrThrow(liveAccessRequestBody, ctx.request.body);
    respond(ctx, 201, 'Live access requested', await requestLiveAccess(deps, principalOf(ctx), body, ctx.ip));
  });

  /** Status: 200 envelope `{status, has_live_access, live_access_request?}` (docs/live-access.md#review). */
  router.get('/status', async (ctx) => {
    respond(ctx, 200, 'Live access status retrieved', await getLiveAccessStatus(deps, principalOf(ctx)));
  });

  /**
   * Answer the reviewers: `{message}` → 200 envelope with the request status (docs/live-access.md#review), back
   * `under_review`; 202
   * when the review has not recorded it within 5 s (it will). Errors: 400, 401, 409 `conflict`
   * when no request waits for information.
   */
  router.post('/respond', jsonBody(), async (ctx) => {
    const { message } = parseOrThrow(respondBody, ctx.request.body);
    const result = await respondToReviewer(deps, principalOf(ctx), message, ctx.ip);
    respond(
      ctx,
      result.applied ? 200 : 202,
      result.applied ? 'Response received; the review resumed' : 'Response received; the review resumes shortly',
      result.status,
    );
  });

  /**
   * Reveal the first live key (docs/api.md#secret-keys), once: 200 envelope `{id, object, environment: live, secret,
   * last4, created_at}`. Takes no body; one sent is parsed like every JSON body (docs/api.md#errors), so a
   * malformed one is 400 as anywhere. Errors: 400, 401, 404 `not_found` before approval, 409 `conflict` once revealed.
   */
  router.post('/live-key', jsonBody(), async (ctx) => {
    respond(ctx, 200, 'Live key revealed; it is not shown again', await revealLiveKey(deps, principalOf(ctx), ctx.ip));
  });

  return router;
}
