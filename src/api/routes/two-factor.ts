/**
 * Two-factor sign-in of the signed-in person (docs/security.md#two-factor) under `/v1/developer/2fa`, session token
 * only: status, enrolment, confirmation with the first code, step-up confirmation and turning it off.
 */
import type Router from '@koa/router';
import {
  confirmTwoFactor,
  enrollTwoFactor,
  turnOffTwoFactor,
  twoFactorStatus,
  verifyTwoFactor,
  type TwoFactorDeps,
} from '../../services/two-factor-service';
import { respond } from '../envelope';
import { principalOf, sessionRouter } from '../middleware/auth';
import { jsonBody } from '../middleware/json-body';
import { environmentOnlyQuery } from '../schemas/developer';
import { confirmCodeBody, verifyCodeBody } from '../schemas/security';
import { parseOrThrow } from '../schemas/validate';

/** Two-factor routes. */
export function twoFactorRoutes(deps: TwoFactorDeps): Router {
  const router = sessionRouter('/v1/developer/2fa', deps);

  /** Status → 200 envelope `{enabled, recovery_codes_left}`. */
  router.get('/', async (ctx) => {
    parseOrThrow(environmentOnlyQuery, ctx.query);
    respond(ctx, 200, 'Two-factor status', await twoFactorStatus(deps, principalOf(ctx)));
  });

  /**
   * Enrol → 201 envelope `{secret, otpauth_uri}` (base32 secret and the URI for the QR code); nothing is on until
   * it is confirmed. Errors: 409 `conflict` when two-factor is already on.
   */
  router.post('/enroll', jsonBody(), async (ctx) => {
    respond(ctx, 201, 'Scan the code, then confirm it', await enrollTwoFactor(deps, principalOf(ctx)));
  });

  /**
   * Confirm `{code}` → 200 envelope `{recovery_codes, token, expires_at}`: two-factor is on, the ten recovery
   * codes are shown this once, other sessions end. Errors: 400; 401 wrong code; 409 nothing to confirm; 429.
   */
  router.post('/confirm', jsonBody(), async (ctx) => {
    const body = parseOrThrow(confirmCodeBody, ctx.request.body);
    respond(ctx, 200, 'Two-factor sign-in is on', await confirmTwoFactor(deps, principalOf(ctx), body.code, ctx.ip));
  });

  /**
   * Step-up (docs/security.md#step-up): `{code | recovery_code}` → 200 envelope `{token, expires_at}`, a session
   * confirmed now. Errors: 400; 401 wrong or replayed code; 409 two-factor off; 429.
   */
  router.post('/verify', jsonBody(), async (ctx) => {
    const body = parseOrThrow(verifyCodeBody, ctx.request.body);
    const factor = body.code !== undefined ? { code: body.code } : { recovery_code: body.recovery_code as string };
    respond(ctx, 200, 'Code confirmed', await verifyTwoFactor(deps, principalOf(ctx), factor, ctx.ip));
  });

  /**
   * Turn off → 200 envelope `{token, expires_at}` (other sessions end). Needs a code from the last 5 minutes.
   * Errors: 403 `forbidden` without one; 409 when it is off.
   */
  router.delete('/', jsonBody(), async (ctx) => {
    respond(ctx, 200, 'Two-factor sign-in is off', await turnOffTwoFactor(deps, principalOf(ctx), ctx.ip));
  });

  return router;
}
