/**
 * Serves the merchant dashboard (README.md#dashboard), the web app built from `web/` into DASHBOARD_DIR, at
 * `/dashboard`: its files as they are (hashed assets cached for a year; source maps never), and `index.html` for every
 * other path below it, so a bookmarked screen (`/dashboard/sandbox/payments/pay_…`) opens the app,
 * which routes it. The app talks only to the public `/v1` API. Not part of the API: no route of
 * {@link createRouters}, no rate limit (those count `/v1` only).
 */
import fs from 'node:fs';
import path from 'node:path';
import type Koa from 'koa';
import serve from 'koa-static';
import { DomainError } from '../domain/errors';

/** Where the dashboard lives on this server. */
export const DASHBOARD_PATH = '/dashboard';

/** The icon browsers ask every origin for; answered with the dashboard's `favicon.svg` (`web/public/`). */
export const FAVICON_PATH = '/favicon.ico';

/** What the browser may load on the dashboard's pages: only this server, never framed. */
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'";

function securityHeaders(ctx: Koa.Context): void {
  ctx.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'same-origin');
}

/**
 * The middleware answering `GET`/`HEAD` under `/dashboard` from `dir` (the built app), and `/favicon.ico` with the
 * app's `favicon.svg` (`image/svg+xml`) once built; other paths pass through. `/dashboard` redirects to
 * `/dashboard/`. Errors: 404 `not_found` for a missing asset or when the app is not built (the message says how to
 * build it), 405 for other methods.
 */
export function dashboard(dir: string): Koa.Middleware {
  const files = serve(dir, { index: false, maxage: 0 });
  const indexFile = path.join(dir, 'index.html');
  const icon = path.join(dir, 'favicon.svg');
  return async (ctx, next) => {
    // Browsers ask every page's origin for `/favicon.ico` (the API's /docs too): our icon, from the dashboard's build.
    if (ctx.path === FAVICON_PATH && (ctx.method === 'GET' || ctx.method === 'HEAD') && fs.existsSync(icon)) {
      ctx.type = 'image/svg+xml';
      ctx.set('Cache-Control', 'public, max-age=86400');
      ctx.body = fs.createReadStream(icon);
      return;
    }
    if (ctx.path !== DASHBOARD_PATH && !ctx.path.startsWith(`${DASHBOARD_PATH}/`)) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('Allow', 'GET, HEAD');
      throw new DomainError('method_not_allowed', `${ctx.method} is not allowed on the dashboard`);
    }
    if (ctx.path === DASHBOARD_PATH) {
      ctx.redirect(`${DASHBOARD_PATH}/`);
      return;
    }
    if (!fs.existsSync(indexFile)) {
      throw new DomainError('not_found', 'the dashboard is not built: run `npm start`, or `npx vite build` in web/');
    }
    securityHeaders(ctx);
    const inside = ctx.path.slice(DASHBOARD_PATH.length);
    // Source maps stay with whoever built the app: they would publish the whole source (README.md#dashboard).
    if (inside.endsWith('.map')) throw new DomainError('not_found', `no dashboard file ${inside}`);
    // A file of the build (`/assets/index-3f9a.js`): served as it is; its hashed name never changes content.
    if (/\.[A-Za-z0-9]+$/.test(inside)) {
      const original = ctx.path;
      ctx.path = inside;
      await files(ctx, async () => undefined);
      ctx.path = original;
      if (ctx.body === undefined || ctx.body === null)
        throw new DomainError('not_found', `no dashboard file ${inside}`);
      if (inside.startsWith('/assets/')) ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
      return;
    }
    // Any screen: the app, which routes the path itself; never cached, so a new build is picked up.
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = fs.createReadStream(indexFile);
  };
}
