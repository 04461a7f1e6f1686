/**
 * Payment links (docs/payment-links.md): `/v1/payment_links` for a secret key, a restricted key with `checkout:write`
 * (reading needs `checkout:read`) or a dashboard session token, answered in the envelope; and `/l/{id}`, the link's
 * public address, which opens a checkout session for whoever follows it (303 to its page) or shows a closed page.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Config } from '../../config';
import { DomainError } from '../../domain/errors';
import {
  changePaymentLink,
  createPaymentLink,
  getPaymentLink,
  listPaymentLinks,
  openPaymentLink,
  paymentLinkQr,
} from '../../services/payment-link-service';
import type { CheckoutServiceDeps } from '../../services/checkout-service';
import { toCheckoutSessionView } from '../../views/checkout';
import { LINK_PAGE_STATUS, PAGE_LOCALES, type LinkPageKind, type PageLocale } from '../../views/link-page';
import { toPaymentLinkView } from '../../views/payment-link';
import { sendClosedLinkPage } from '../../page/routes';
import { respond } from '../envelope';
import { principalOf, sessionOrSecretKey } from '../middleware/auth';
import { idempotency, idempotencySeed } from '../middleware/idempotency';
import { jsonBody } from '../middleware/json-body';
import { linkOpenRateLimit } from '../middleware/rate-limit';
import { cursorPageOf } from '../pagination';
import { apiRouter } from '../router';
import {
  createPaymentLinkBody,
  listPaymentLinksQuery,
  paymentLinkPngQuery,
  paymentLinkQuery,
  updatePaymentLinkBody,
} from '../schemas/payment-links';
import { parseOrThrow } from '../schemas/validate';

/** What the link routes need: the checkout service's dependencies and the link-opening limit. */
export type PaymentLinkRouteDeps = CheckoutServiceDeps & {
  config: CheckoutServiceDeps['config'] &
    Pick<Config, 'JWT_SECRET' | 'LINK_OPEN_RATE_LIMIT_PER_MINUTE' | 'RATE_LIMIT_MULTIPLIER'>;
};

/** Payment link routes under `/v1/payment_links` (there is no DELETE: a link is never deleted, 405). */
export function paymentLinkRoutes(deps: PaymentLinkRouteDeps): Router {
  const router = apiRouter('/v1/payment_links');
  const auth = sessionOrSecretKey(deps.db, deps.config.JWT_SECRET);
  const baseUrl = deps.config.PUBLIC_BASE_URL ?? '';
  const view = (link: Parameters<typeof toPaymentLinkView>[0]) => toPaymentLinkView(link, baseUrl);
  const id = (ctx: Context) => ctx.params.id as string;

  /**
   * Create (docs/payment-links.md#api) → 201 envelope with the link. Errors: 400 `validation_error` naming the field
   * (both or neither of `amount` and `amount_range`, `amount_range.max` below `min`, a currency mobile money does not
   * hold, an `after_completion.url` not https in live); 401; 403; 409 `idempotency_key_reused`.
   */
  router.post('/', auth, jsonBody(), idempotency(deps.db, deps.config.IDEMPOTENCY_LEASE_MS), async (ctx) => {
    const body = parseOrThrow(createPaymentLinkBody, ctx.request.body);
    const link = await createPaymentLink(
      deps,
      principalOf(ctx),
      {
        ...(body.amount === undefined ? {} : { amount: body.amount }),
        ...(body.amount_range === undefined ? {} : { amountRange: body.amount_range }),
        currency: body.currency,
        description: body.description,
        ...(body.completed_limit === undefined ? {} : { completedLimit: body.completed_limit }),
        ...(body.after_completion === undefined ? {} : { afterCompletion: body.after_completion }),
        ...(body.collect === undefined ? {} : { collect: body.collect }),
        ...(body.active === undefined ? {} : { active: body.active }),
      },
      idempotencySeed(ctx),
    );
    respond(ctx, 201, 'Payment link created', view(link));
  });

  /** List → 200 envelope `{payment_links, pagination: {limit, has_more, next_starting_after}}`, newest first. */
  router.get('/', auth, async (ctx) => {
    const query = parseOrThrow(listPaymentLinksQuery, ctx.query);
    const page = await listPaymentLinks(
      deps,
      principalOf(ctx),
      {
        ...(query.active === undefined ? {} : { active: query.active === 'true' }),
        ...(query.starting_after === undefined ? {} : { startingAfter: query.starting_after }),
      },
      query.limit,
    );
    respond(ctx, 200, 'Payment links retrieved', cursorPageOf('payment_links', query.limit, page, page.links, view));
  });

  /** Show → 200 envelope with the link; 404 for unknown and foreign ids alike. */
  router.get('/:id', auth, async (ctx) => {
    parseOrThrow(paymentLinkQuery, ctx.query);
    respond(ctx, 200, 'Payment link retrieved', view(await getPaymentLink(deps, principalOf(ctx), id(ctx))));
  });

  /**
   * Change `active`, `completed_limit`, `after_completion` or `description` → 200 envelope with the link. Errors: 400
   * naming the field (nothing changed); 404.
   */
  router.patch('/:id', auth, jsonBody(), async (ctx) => {
    const body = parseOrThrow(updatePaymentLinkBody, ctx.request.body);
    const link = await changePaymentLink(deps, principalOf(ctx), id(ctx), {
      ...(body.active === undefined ? {} : { active: body.active }),
      ...(body.completed_limit === undefined ? {} : { completedLimit: body.completed_limit }),
      ...(body.after_completion === undefined ? {} : { afterCompletion: body.after_completion }),
      ...(body.description === undefined ? {} : { description: body.description }),
    });
    respond(ctx, 200, 'Payment link updated', view(link));
  });

  /** The link's address as a QR code, SVG (`image/svg+xml`); 404 for unknown and foreign ids alike. */
  router.get('/:id/qr.svg', auth, async (ctx) => {
    parseOrThrow(paymentLinkQuery, ctx.query);
    const svg = await paymentLinkQr(deps, principalOf(ctx), id(ctx), { type: 'svg' });
    ctx.set('Content-Disposition', `attachment; filename="${id(ctx)}.svg"`);
    ctx.type = 'image/svg+xml';
    ctx.body = svg;
  });

  /**
   * The link's address as a QR code, a square PNG of exactly `size` × `size` pixels (128–1,024, default 512; outside:
   * 400 naming `size`); 404 for unknown and foreign ids alike.
   */
  router.get('/:id/qr.png', auth, async (ctx) => {
    const query = parseOrThrow(paymentLinkPngQuery, ctx.query);
    const png = await paymentLinkQr(deps, principalOf(ctx), id(ctx), { type: 'png', size: query.size });
    ctx.set('Content-Disposition', `attachment; filename="${id(ctx)}.png"`);
    ctx.type = 'image/png';
    ctx.body = png;
  });

  return router;
}

/** The payer's page language from Accept-Language (`en` when none of ours is asked). */
function pageLocale(ctx: Context): PageLocale {
  const chosen = ctx.acceptsLanguages(...PAGE_LOCALES);
  return typeof chosen === 'string' && (PAGE_LOCALES as readonly string[]).includes(chosen)
    ? (chosen as PageLocale)
    : 'en';
}

/**
 * Answers the page `kind` (docs/payment-links.md#closed) with the hosted page's look, catalogues and security headers
 * (docs/hosted-page.md#security): never cached, framed or sent a referrer.
 */
function linkPage(ctx: Context, kind: LinkPageKind, locale: PageLocale): void {
  sendClosedLinkPage(ctx, kind, locale, LINK_PAGE_STATUS[kind]);
  ctx.set('Content-Language', locale);
}

/** `GET /l/{id}`: a payment link's public address (no key; the link id is all it takes). */
export function linkPageRoutes(deps: PaymentLinkRouteDeps): Router {
  const router = apiRouter('/l');
  const limit = linkOpenRateLimit(deps.config);

  /**
   * Opens the link (docs/payment-links.md#opening): 303 to a new checkout session's page (`{PUBLIC_BASE_URL}/pay/
   * {cs_id}`, 1 h); a plain page in the payer's language otherwise: 404 unknown link, 410 inactive or at its limit,
   * 429 past LINK_OPEN_RATE_LIMIT_PER_MINUTE openings a minute from the client's address (with `Retry-After`).
   * Errors: 503 `service_unavailable` (envelope) when the session could not be confirmed in time.
   */
  router.get('/:id', async (ctx) => {
    const locale = pageLocale(ctx);
    try {
      await limit(ctx);
    } catch (error) {
      if (error instanceof DomainError && error.code === 'rate_limited') return linkPage(ctx, 'busy', locale);
      throw error;
    }
    const opened = await openPaymentLink(deps, ctx.params.id as string, locale);
    if (!opened.open) return linkPage(ctx, opened.reason, locale);
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.redirect(toCheckoutSessionView(opened.session, deps.config.PUBLIC_BASE_URL ?? '').url);
    ctx.status = 303;
  });

  return router;
}
