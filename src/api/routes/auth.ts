/**
 * `POST /v1/auth/register`, `POST /v1/auth/login` (docs/api.md#sessions), the second step of a two-factor
 * sign-in, switching merchant (docs/security.md#two-factor, docs/security.md#team-members) and accepting an
 * invitation (docs/security.md#invitations).
 */
import type Router from '@koa/router';
import { apiRouter } from '../router';
import {
  login,
  loginWithSecondFactor,
  registerDeveloper,
  sessionOf,
  switchMerchant,
  type AuthDeps,
} from '../../services/auth-service';
import { acceptInvitation, type TeamDeps } from '../../services/team-service';
import { DomainError } from '../../domain/errors';
import { looksLikeApiKey } from '../../lib/secret-keys';
import { respond } from '../envelope';
import { jsonBody } from '../middleware/json-body';
import { originOf, principalOf, sessionToken } from '../middleware/auth';
import { registerBody } from '../schemas/auth';
import { acceptInvitationBody, loginSecondFactorBody, loginWithMerchantBody, switchBody } from '../schemas/security';
import { parseOrThrow } from '../schemas/validate';

/** Auth routes under `/v1/auth`. */
export function authRoutes(deps: AuthDeps & TeamDeps): Router {
  const router = apiRouter('/v1/auth');

  /**
   * Register: `{email, password (≥ 10 chars), name, business_name?}` → 201 envelope
   * `{developer, token, expires_at, api_key: {id, environment, secret, last4}}` (the secret is shown once).
   * The developer becomes the owner of its new merchant (docs/security.md#team-members).
   * Errors: 400 `validation_error`, 409 `conflict` for a registered e-mail.
   */
  router.post('/register', jsonBody(), async (ctx) => {
    const body = parseOrThrow(registerBody, ctx.request.body);
    const result = await registerDeveloper(deps, body);
    respond(ctx, 201, 'Developer registered', {
      developer: result.developer,
      token: result.session.token,
      expires_at: result.session.expires_at,
      api_key: result.apiKey,
    });
  });

  /**
   * Login: `{email, password, merchant_id?}` → 200 envelope `{token, expires_at}`, or with two-factor on
   * `{two_factor_required: true, challenge}` (docs/security.md#two-factor). Errors: 401 `unauthorized` for a
   * wrong e-mail or password; 403 `forbidden` for a merchant the person is not a member of.
   */
  router.post('/login', jsonBody(), async (ctx) => {
    const body = parseOrThrow(loginWithMerchantBody, ctx.request.body);
    const answer = await login(deps, body, { ip: ctx.ip, origin: originOf(ctx) });
    respond(ctx, 200, 'two_factor_required' in answer ? 'Two-factor code required' : 'Logged in', answer);
  });

  /**
   * Second step of a two-factor sign-in (docs/security.md#two-factor): `{challenge, code | recovery_code}` →
   * 200 envelope `{token, expires_at}`. Errors: 400, 401 `unauthorized` (wrong, replayed or expired code, or
   * an expired challenge), 429 `rate_limited` after too many wrong codes.
   */
  router.post('/login/2fa', jsonBody(), async (ctx) => {
    const body = parseOrThrow(loginSecondFactorBody, ctx.request.body);
    const input =
      body.code !== undefined
        ? { challenge: body.challenge, code: body.code }
        : { challenge: body.challenge, recovery_code: body.recovery_code as string };
    respond(ctx, 200, 'Logged in', await loginWithSecondFactor(deps, input, { ip: ctx.ip, origin: originOf(ctx) }));
  });

  /**
   * Switch merchant (docs/security.md#team-members), session token only: `{merchant_id}` → 200 envelope
   * `{token, expires_at}` for that merchant. Errors: 400, 403 `forbidden` when the person is not a member.
   */
  router.post('/switch', sessionToken(deps.db, deps.config.JWT_SECRET), jsonBody(), async (ctx) => {
    const body = parseOrThrow(switchBody, ctx.request.body);
    respond(ctx, 200, 'Switched merchant', await switchMerchant(deps, principalOf(ctx), body.merchant_id));
  });

  /**
   * Accept an invitation (docs/security.md#invitations): with a session token the signed-in person joins (their
   * e-mail must be the invited one), without one `{name, password}` registers a new person under the invited
   * e-mail → 201 envelope `{member, token, expires_at}`. Errors: 400; 401 for an invalid session token; 403
   * `forbidden` for another e-mail; 404 for an unknown link; 409 `conflict` for a used or expired link or an
   * e-mail already registered.
   */
  router.post('/invitations/:token/accept', jsonBody(), async (ctx) => {
    const body = parseOrThrow(acceptInvitationBody, ctx.request.body ?? {});
    const bearer = /^Bearer ([^\s]+)$/.exec(ctx.get('authorization'))?.[1];
    let who: { personId: string } | { name?: string; password?: string } = body;
    if (bearer) {
      const session = looksLikeApiKey(bearer) ? undefined : await sessionOf(deps.db, deps.config.JWT_SECRET, bearer);
      if (!session) throw new DomainError('unauthorized', 'the session token is invalid or expired; log in again');
      who = { personId: session.personId };
    }
    const token = String(ctx.params.token);
    respond(ctx, 201, 'Invitation accepted', await acceptInvitation(deps, token, who, ctx.ip, originOf(ctx)));
  });

  return router;
}
