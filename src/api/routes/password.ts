/**
 * `POST /v1/developer/password` (docs/security.md#password): the signed-in person changes their password, session
 * token only; every other session of theirs ends.
 */
import type Router from '@koa/router';
import { changePassword, type AuthDeps } from '../../services/auth-service';
import { respond } from '../envelope';
import { originOf, principalOf, sessionRouter } from '../middleware/auth';
import { jsonBody } from '../middleware/json-body';
import { changePasswordBody } from '../schemas/auth';
import { parseOrThrow } from '../schemas/validate';

/** The password route. */
export function passwordRoutes(deps: AuthDeps): Router {
  const router = sessionRouter('/v1/developer/password', deps);

  /**
   * Change password: `{current_password, new_password}` → 200 envelope `{token, expires_at}`, a new session; every
   * session token of the person signed before, this one included, is refused from now on. Errors: 400
   * `validation_error` for a wrong current password or a new one that is too short, too long or unchanged; 403
   * `forbidden` with two-factor on and no code confirmed in the last 5 minutes (docs/security.md#step-up).
   */
  router.post('/', jsonBody(), async (ctx) => {
    const body = parseOrThrow(changePasswordBody, ctx.request.body);
    const session = await changePassword(deps, principalOf(ctx), body, { ip: ctx.ip, origin: originOf(ctx) });
    respond(ctx, 200, 'Password changed', session);
  });

  return router;
}
