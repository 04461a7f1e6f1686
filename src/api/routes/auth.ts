/** `POST /v1/auth/register` and `POST /v1/auth/login` (docs/api.md#sessions). */
import type Router from '@koa/router';
import { apiRouter } from '../router';
import { login, registerDeveloper, type AuthDeps } from '../../services/auth-service';
import { respond } from '../envelope';
import { jsonBody } from '../middleware/json-body';
import { loginBody, registerBody } from '../schemas/auth';
import { parseOrThrow } from '../schemas/validate';

/** Auth routes under `/v1/auth`. */
export function authRoutes(deps: AuthDeps): Router {
  const router = apiRouter('/v1/auth');

  /**
   * Register: `{email, password (≥ 10 chars), name, business_name?}` → 201 envelope
   * `{developer, token, expires_at, api_key: {id, environment, secret, last4}}` (the secret is shown once).
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

  /** Login: `{email, password}` → 200 envelope `{token, expires_at}`; 401 `unauthorized` otherwise. */
  router.post('/login', jsonBody(), async (ctx) => {
    const body = parseOrThrow(loginBody, ctx.request.body);
    const session = await login(deps, body);
    respond(ctx, 200, 'Logged in', session);
  });

  return router;
}
