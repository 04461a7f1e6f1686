/**
 * Branding (docs/branding.md): `GET|PUT /v1/developer/branding` and `DELETE /v1/developer/branding/logo` for a session
 * token (an owner's or admin's to change it) or a secret key (docs/api.md#credentials, docs/security.md#roles); and the
 * logo the hosted page shows, `GET /v1/checkout/sessions/{id}/logo`, without a key: the session id is the capability,
 * and it reaches that merchant's logo and nothing else.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Config } from '../../config';
import type { Db } from '../../db/knex';
import {
  changeBranding,
  checkoutSessionLogo,
  getBranding,
  getLogo,
  removeLogo,
  type BrandingInput,
  type StoredLogo,
} from '../../services/branding-service';
import { toBrandingView } from '../../views/branding';
import { respond } from '../envelope';
import { principalOf, sessionOrSecretKey } from '../middleware/auth';
import { jsonBody } from '../middleware/json-body';
import { logoUpload, type UploadedLogo } from '../middleware/logo-upload';
import { checkoutPageRateLimit } from '../middleware/rate-limit';
import { apiRouter } from '../router';
import { brandingBody } from '../schemas/branding';
import { environmentOnlyQuery } from '../schemas/developer';
import { parseOrThrow } from '../schemas/validate';
import { emptyBody } from '../schemas/webhooks';

/** What the branding routes need. */
export interface BrandingRouteDeps {
  db: Db;
  config: Pick<Config, 'JWT_SECRET' | 'RATE_LIMIT_MULTIPLIER'>;
}

/** How long browsers and caches may keep a logo before asking again (seconds); the page's URL changes with the logo. */
const LOGO_MAX_AGE_SECONDS = 3600;

/**
 * The Content-Security-Policy of a served logo: an image needs nothing but its own inline styles, so an SVG opened
 * on its own (not through `<img>`, where no script ever runs) runs no script, loads nothing and cannot be framed.
 */
const LOGO_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox; frame-ancestors 'none'";

/**
 * Answers `logo`'s bytes with its own Content-Type, `nosniff`, {@link LOGO_CSP}, `cacheControl` and an ETag (its
 * sha256); 304 without a body to a matching `If-None-Match`.
 */
function sendLogo(ctx: Context, logo: StoredLogo, cacheControl: string): void {
  ctx.set('Content-Type', logo.contentType);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Content-Security-Policy', LOGO_CSP);
  ctx.set('Cache-Control', cacheControl);
  ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
  ctx.set('Content-Disposition', 'inline; filename="logo"');
  ctx.set('ETag', `"${logo.sha256}"`);
  ctx.status = 200;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.body = logo.bytes;
}

/** The change a JSON or multipart body asks for: the text fields, and the multipart `logo`'s bytes. */
function brandingInputOf(ctx: Context): BrandingInput {
  const body = parseOrThrow(brandingBody, { ...(ctx.request.body as object | undefined) });
  const file = ctx.request.file as UploadedLogo | undefined;
  return {
    ...(body.display_name !== undefined ? { displayName: body.display_name } : {}),
    ...(body.brand_color !== undefined ? { brandColor: body.brand_color?.toLowerCase() ?? null } : {}),
    ...(file ? { logo: file.buffer } : {}),
  };
}

/** Branding routes: the merchant's under `/v1/developer`, the page's logo under `/v1/checkout/sessions`. */
export function brandingRoutes(deps: BrandingRouteDeps): Router[] {
  const developer = apiRouter('/v1/developer');
  const page = apiRouter('/v1/checkout/sessions');
  const either = sessionOrSecretKey(deps.db, deps.config.JWT_SECRET);
  const upload = logoUpload();
  const json = jsonBody();

  /** Read (docs/branding.md#api) → 200 envelope with the branding; every field null before the first change. */
  developer.get('/branding', either, async (ctx) => {
    parseOrThrow(environmentOnlyQuery, ctx.query);
    respond(ctx, 200, 'Branding retrieved', toBrandingView(await getBranding(deps, principalOf(ctx))));
  });

  /**
   * Change (docs/branding.md#api): JSON `{display_name?, brand_color?}` (null clears), or a multipart form with the
   * same text fields and the file `logo` (PNG, JPEG or SVG by its bytes, at most 512 kB; an SVG is sanitised) → 200
   * envelope with the branding. Errors: 400 `validation_error` naming `display_name` or `brand_color`, 400
   * `unsupported_file_type` naming `logo`, 413 `file_too_large` naming `logo`, 403 for a developer's or viewer's
   * session; nothing is stored then.
   */
  developer.put(
    '/branding',
    either,
    (ctx, next) => (ctx.is('multipart/form-data') ? upload(ctx, next) : json(ctx, next)),
    async (ctx) => {
      parseOrThrow(environmentOnlyQuery, ctx.query);
      const branding = await changeBranding(deps, principalOf(ctx), brandingInputOf(ctx), ctx.ip);
      respond(ctx, 200, 'Branding updated', toBrandingView(branding));
    },
  );

  /**
   * The logo as stored (docs/branding.md#api), for the dashboard's preview → 200 with the image and the headers of the
   * page's logo, kept by no shared cache. Errors: 404 without a logo.
   */
  developer.get('/branding/logo', either, async (ctx) => {
    parseOrThrow(environmentOnlyQuery, ctx.query);
    sendLogo(ctx, await getLogo(deps, principalOf(ctx)), 'private, no-cache');
  });

  /** Remove the logo (docs/branding.md#api), no body → 200 envelope with the branding. Errors: 403; 404 without one. */
  developer.delete('/branding/logo', either, json, async (ctx) => {
    parseOrThrow(environmentOnlyQuery, ctx.query);
    parseOrThrow(emptyBody, ctx.request.body);
    respond(ctx, 200, 'Logo removed', toBrandingView(await removeLogo(deps, principalOf(ctx), ctx.ip)));
  });

  /**
   * The logo of session `id`'s merchant (docs/branding.md#page), without a key → 200 with the image, its own
   * Content-Type, `X-Content-Type-Options: nosniff`, a CSP that runs no script, an ETag (its sha256) and an hour's
   * caching; 304 to a matching `If-None-Match`. Errors: 404 for an unknown session and a merchant without a logo alike;
   * 429 `rate_limited` past the page's limit (docs/limits.md#checkout-page-limits).
   */
  page.get('/:id/logo', checkoutPageRateLimit(deps), async (ctx) => {
    const logo = await checkoutSessionLogo(deps, ctx.params.id as string);
    sendLogo(ctx, logo, `public, max-age=${LOGO_MAX_AGE_SECONDS}`);
  });

  return [developer, page];
}
