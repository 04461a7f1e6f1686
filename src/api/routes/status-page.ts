/**
 * `GET /status` (docs/availability.md#status-page): the public status page of the live environment, no sign-in.
 * Server-rendered HTML with no script and one inline style allowed by its hash.
 */
import { createHash } from 'node:crypto';
import type Router from '@koa/router';
import type { Db } from '../../db/knex';
import { statusPageOf } from '../../services/provider-health-service';
import { STATUS_PAGE_STYLE, statusPageHtml } from '../../views/status-page';
import { apiRouter } from '../router';

/** The page's Content-Security-Policy: nothing but its own style block. */
export const STATUS_PAGE_CSP = `default-src 'none'; style-src 'sha256-${createHash('sha256')
  .update(STATUS_PAGE_STYLE)
  .digest('base64')}'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`;

/** How long one rendering of the page serves every request of this process, in milliseconds. */
export const STATUS_PAGE_CACHE_MS = 10_000;

/** The status page's route. */
export function statusPageRoutes(deps: { db: Db }): Router {
  const router = apiRouter();
  // A page anyone may ask for as often as they like costs PostgreSQL at most one read per process every 10 s.
  let rendered: { at: number; html: Promise<string> } | undefined;
  const page = (now: number): Promise<string> => {
    if (!rendered || now - rendered.at >= STATUS_PAGE_CACHE_MS) {
      const html = statusPageOf(deps.db, now).then((read) => statusPageHtml(read, now));
      rendered = { at: now, html };
      html.catch(() => {
        if (rendered?.html === html) rendered = undefined;
      });
    }
    return rendered.html;
  };

  /**
   * Status page → 200 HTML: every live provider, country and operation with today's status, the worst status of each
   * of the last 90 days as bars, and the changes of those days; one rendering serves this process for 10 s, and
   * browsers and proxies may keep it 30 s, the measurement's interval. Errors: 503 envelope when PostgreSQL cannot be
   * reached.
   */
  router.get('/status', async (ctx) => {
    const html = await page(Date.now());
    ctx.set('Content-Security-Policy', STATUS_PAGE_CSP);
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Cache-Control', 'public, max-age=30');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = html;
  });

  return router;
}
