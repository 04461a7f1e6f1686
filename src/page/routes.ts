/**
 * The hosted payment page at `/pay/{cs_id}` (docs/hosted-page.md), served by the API process beside the API and the
 * dashboard, never by the API's routers (no key, no envelope: HTML for people):
 * - `GET /pay/{id}`: the form; the wait screen while an attempt is in flight; the receipt once complete; 410 expired;
 *   404 for an unknown id, in the payer's language.
 * - `POST /pay/{id}` (a form, `application/x-www-form-urlencoded`: `phone`, `operator`, `lang`, and on a payment link's
 *   session `amount` in major units as typed, `name`, `email`): starts a mobile-money attempt and answers 303 to the
 *   attempt's page, so it works with JavaScript off; a bad field answers the form again (400) naming it.
 * - `GET /pay/{id}/attempts/{payment}`: one attempt's wait screen (refreshing itself without JavaScript), receipt or
 *   failure with "Try again".
 * - `GET /pay/assets/pay-{hash}.js`: the page's one script, cached for a year under its content hash.
 * Every answer carries the page's security headers (docs/hosted-page.md#security).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type Koa from 'koa';
import { koaBody } from 'koa-body';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { GENERIC_CATALOGUE } from '../domain/catalogue';
import { MAX_CHECKOUT_ATTEMPTS, attemptInFlight, type CheckoutSessionSnapshot } from '../domain/checkout-table';
import { DomainError } from '../domain/errors';
import { MARKETS } from '../domain/markets';
import { startCheckoutAttempt, type CheckoutServiceDeps } from '../services/checkout-service';
import { readAttemptPayment, readPageSession } from '../services/checkout-page-service';
import { availabilityOf } from '../services/provider-health-service';
import { defaultBrand, type PageBrand } from './brand';
import { isPageLocale, pageLocale, translator, type PageLocale } from './i18n';
import { mobileMoneyMarket, predictOperator, type MobileMoneyMarket } from './mobile-money';
import { contentSecurityPolicy } from './security';
import {
  closedLinkScreen,
  expiredScreen,
  failureScreen,
  formScreen,
  notFoundScreen,
  pagePath,
  receiptScreen,
  waitScreen,
  type CardMode,
  type ClosedLinkKind,
  type FormField,
  type FormOptions,
  type PageAssets,
  type RenderedScreen,
  type ScreenContext,
  type ScreenSession,
} from './views';
import type { PaymentSnapshot } from '../domain/payment';
import { parseTypedAmount } from '../domain/money';
import { chosenAmountProblem } from '../domain/payment-link';
import { z } from '../lib/zod';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';

/** Where the page lives on this server. */
export const PAY_PATH = '/pay';

/** What the page needs: the checkout service's dependencies and Stripe's publishable key for live cards. */
export type HostedPageDeps = CheckoutServiceDeps & {
  config: CheckoutServiceDeps['config'] & Pick<Config, 'CHECKOUT_STRIPE_PUBLISHABLE_KEY'>;
};

const ASSET_DIR = path.join(__dirname, 'assets');
const SCRIPT = fs.readFileSync(path.join(ASSET_DIR, 'pay.js'));
const SCRIPT_PATH = `${PAY_PATH}/assets/pay-${crypto.createHash('sha256').update(SCRIPT).digest('hex').slice(0, 16)}.js`;
const ASSETS: PageAssets = {
  script: SCRIPT_PATH,
  css: fs.readFileSync(path.join(ASSET_DIR, 'pay.css'), 'utf8').trim(),
};

/** Each market's IANA time zone (docs/providers.md#markets), in which the receipt writes its time; UTC elsewhere. */
const TIME_ZONES: Readonly<Record<string, string>> = Object.fromEntries(
  MARKETS.map((market) => [market.country, market.timeZone]),
);

/** How long a "Try again" waits for the session to hear of its previous attempt's end, in milliseconds. */
const RETRY_SETTLE_MS = 4_000;

/** The security headers of every answer of the page (docs/hosted-page.md#security). */
function securityHeaders(ctx: Koa.Context, csp: string): void {
  ctx.set('Content-Security-Policy', csp);
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Content-Type-Options', 'nosniff');
}

function send(ctx: Koa.Context, screen: RenderedScreen): void {
  securityHeaders(ctx, contentSecurityPolicy({ inlineStyles: screen.inlineStyles, stripe: screen.stripe }));
  // A page of one payer's payment: never kept by a shared cache, nor shown again from the browser's.
  ctx.set('Cache-Control', 'no-store');
  ctx.status = screen.status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = screen.html;
}

function plain(ctx: Koa.Context, status: number, text: string): void {
  securityHeaders(ctx, contentSecurityPolicy({ inlineStyles: [], stripe: false }));
  ctx.set('Cache-Control', 'no-store');
  ctx.status = status;
  ctx.type = 'text/plain; charset=utf-8';
  ctx.body = text;
}

function redirect(ctx: Koa.Context, location: string): void {
  securityHeaders(ctx, contentSecurityPolicy({ inlineStyles: [], stripe: false }));
  ctx.set('Cache-Control', 'no-store');
  ctx.status = 303;
  ctx.set('Location', location);
  ctx.body = '';
}

const formParser = koaBody({
  json: false,
  urlencoded: true,
  text: false,
  multipart: false,
  formLimit: '4kb',
  onError(error) {
    const status = (error as { status?: number }).status;
    throw new DomainError('invalid_request', 'the form could not be read', undefined, status === 413 ? 413 : 400);
  },
});

/**
 * The card form the page offers for `session` (docs/hosted-page.md#card): none where the payer must choose the
 * amount or give fields (a payment link's session, which takes mobile money only).
 */
function cardMode(deps: HostedPageDeps, session: CheckoutSessionSnapshot): CardMode {
  if (session.amountRange || session.collect.length > 0) return { kind: 'none' };
  const taken = GENERIC_CATALOGUE.card.find((offering) => offering.currencies.includes(session.currency));
  if (!taken || !deps.providers.get(session.environment, taken.provider)) return { kind: 'none' };
  if (session.environment === 'sandbox') return { kind: 'sandbox' };
  const key = deps.config.CHECKOUT_STRIPE_PUBLISHABLE_KEY;
  return key ? { kind: 'live', publishableKey: key } : { kind: 'none' };
}

/** A number in E.164 as its country writes it nationally. */
function nationally(e164: string | null, country: string | undefined): string {
  if (!e164) return '';
  return parsePhoneNumberFromString(e164, country as CountryCode)?.formatNational() ?? e164;
}

/** The page's view of one session for one request. */
class SessionPage {
  readonly market: MobileMoneyMarket | undefined;
  readonly card: CardMode;
  readonly screen: ScreenContext;
  readonly view: ScreenSession;

  constructor(
    readonly deps: HostedPageDeps,
    readonly session: CheckoutSessionSnapshot,
    brand: PageBrand,
    chosen: PageLocale | undefined,
    acceptLanguage: string | undefined,
    /** The market's operators that are not `operational` for the session (docs/hosted-page.md#operator-status). */
    readonly operatorStatuses: FormOptions['operatorStatuses'] = {},
  ) {
    this.market = mobileMoneyMarket(session.currency, session.customerPhone);
    this.card = cardMode(deps, session);
    this.screen = {
      t: translator(pageLocale({ chosen, session: session.locale, acceptLanguage })),
      chosenLocale: chosen,
      brand,
      environment: session.environment,
      assets: ASSETS,
    };
    this.view = session;
  }

  /** The form's options with `phone` (as typed, or the session's suggested number) and its predicted operator. */
  options(extra: Partial<FormOptions> = {}): FormOptions {
    const phone = extra.phone ?? nationally(this.session.customerPhone, this.market?.country);
    return {
      market: this.market,
      card: this.card,
      operatorStatuses: this.operatorStatuses,
      ...extra,
      phone,
      predicted: this.market && phone ? predictOperator(this.market, phone) : undefined,
    };
  }

  form(extra: Partial<FormOptions> = {}, status = 200): RenderedScreen {
    return formScreen(this.screen, this.view, this.options(extra), status);
  }

  /** The wait screen of the attempt `paymentId` (its payment, once stored). */
  wait(paymentId: string, payment: PaymentSnapshot | undefined): RenderedScreen {
    const country = this.market?.country ?? '';
    return waitScreen(this.screen, this.view, {
      payment: paymentId,
      operator: this.market?.operators.find((o) => o.code === payment?.provider),
      phone: nationally(payment?.customerPhone ?? null, country),
      country,
      amount: this.session.attempts.find((a) => a.payment === paymentId)?.amount,
      ...(payment?.nextAction?.type === 'redirect' ? { redirectUrl: payment.nextAction.url } : {}),
    });
  }

  /** The receipt of the completed session. */
  async receipt(): Promise<RenderedScreen> {
    const payment = this.session.payment
      ? await readAttemptPayment(this.deps, this.session, this.session.payment)
      : undefined;
    return receiptScreen(this.screen, this.view, {
      id: this.session.payment ?? '',
      completedAt: this.session.completedAt ?? payment?.updatedAt ?? this.session.updatedAt,
      providerReceiptNumber: payment?.providerReceiptNumber ?? null,
      timeZone: TIME_ZONES[this.market?.country ?? ''] ?? 'UTC',
    });
  }

  /** The screen of a session that is not open: its receipt, or the expired page. */
  async ended(): Promise<RenderedScreen | undefined> {
    if (this.session.status === 'complete') return this.receipt();
    if (this.session.status === 'expired') return expiredScreen(this.screen);
    return undefined;
  }
}

/**
 * The operators of `session`'s market that its merchant and environment see `degraded` or `down` for collections
 * (docs/hosted-page.md#operator-status): the merchant's own sandbox statuses win there.
 */
async function operatorStatusesOf(
  deps: HostedPageDeps,
  session: CheckoutSessionSnapshot,
): Promise<NonNullable<FormOptions['operatorStatuses']>> {
  const market = mobileMoneyMarket(session.currency, session.customerPhone);
  if (!market) return {};
  const rows = await availabilityOf(deps.db, session.environment, session.merchantId);
  const statuses: NonNullable<FormOptions['operatorStatuses']> = {};
  for (const row of rows)
    if (row.country === market.country && row.operation === 'collection' && row.status !== 'operational')
      statuses[row.provider] = row.status;
  return statuses;
}

/** The form's fields in the order a refused attempt names the first bad one. */
const FORM_FIELDS: readonly FormField[] = ['amount', 'name', 'email', 'phone', 'operator'];

/** The same email check as the API's attempts (docs/payment-links.md#collect). */
const EMAIL = z.email().max(254);

/** What a link's session takes of the payer beyond the number: the chosen amount (minor units), name and email. */
type PayerTerms = { amount?: number; name?: string; email?: string };

/**
 * The form's chosen amount (major units as typed → minor units, within the session's range), name and email, checked
 * as the API checks them (docs/payment-links.md#amounts, docs/payment-links.md#collect); only the ones the session
 * takes are sent on.
 * @returns the terms, or the first field that is missing or wrong
 */
function payerTerms(
  session: CheckoutSessionSnapshot,
  typed: { amount: string; name: string; email: string },
): { ok: true; terms: PayerTerms } | { ok: false; field: FormField } {
  const terms: PayerTerms = {};
  if (session.amountRange) {
    const minor = parseTypedAmount(typed.amount, session.currency);
    if (minor === undefined || chosenAmountProblem(minor, session.amountRange)) return { ok: false, field: 'amount' };
    terms.amount = minor;
  }
  if (session.collect.includes('name')) {
    const name = typed.name.trim();
    if (!name || name.length > 200) return { ok: false, field: 'name' };
    terms.name = name;
  }
  if (session.collect.includes('email')) {
    const email = EMAIL.safeParse(typed.email.trim());
    if (!email.success) return { ok: false, field: 'email' };
    terms.email = email.data;
  }
  return { ok: true, terms };
}

/** The language a request asks for by `?lang=` (or the form's `lang`). */
function chosenLocale(value: unknown): PageLocale | undefined {
  return isPageLocale(value) ? value : undefined;
}

/**
 * The page of a payment link's address that opens no session (docs/payment-links.md#closed), in `locale`, with the
 * page's look and security headers; `status` 404, 410 or 429.
 */
export function sendClosedLinkPage(ctx: Koa.Context, kind: ClosedLinkKind, locale: PageLocale, status: number): void {
  send(
    ctx,
    closedLinkScreen(
      { t: translator(locale), chosenLocale: undefined, brand: defaultBrand(''), environment: 'live', assets: ASSETS },
      kind,
      status,
    ),
  );
}

function notFound(ctx: Koa.Context, chosen: PageLocale | undefined): RenderedScreen {
  return notFoundScreen({
    t: translator(pageLocale({ chosen, acceptLanguage: ctx.get('accept-language') })),
    chosenLocale: chosen,
    brand: defaultBrand(''),
    environment: 'live',
    assets: ASSETS,
  });
}

/**
 * The page's middleware: answers every path under `/pay/`, passes any other on. A fault of the database or of the
 * session's workflow answers 503 in plain words; the payer retries.
 * @param brandOf the brand of a session's merchant (default: its business name); the branding settings plug in here
 */
export function hostedPage(
  deps: HostedPageDeps,
  brandOf: (session: CheckoutSessionSnapshot, merchantName: string) => Promise<PageBrand> = async (_s, name) =>
    defaultBrand(name),
  limitAttempt: (ctx: Koa.Context, sessionId: string) => Promise<void> = async () => undefined,
): Koa.Middleware {
  const pageOf = async (ctx: Koa.Context, id: string, chosen: PageLocale | undefined) => {
    const read = await readPageSession(deps, id);
    if (!read) return undefined;
    const [brand, statuses] = await Promise.all([
      brandOf(read.session, read.merchantName),
      read.session.status === 'open' ? operatorStatusesOf(deps, read.session) : {},
    ]);
    return new SessionPage(deps, read.session, brand, chosen, ctx.get('accept-language'), statuses);
  };

  /** `GET /pay/{id}`. */
  const showSession = async (ctx: Koa.Context, id: string) => {
    const chosen = chosenLocale(ctx.query.lang);
    const page = await pageOf(ctx, id, chosen);
    if (!page) return send(ctx, notFound(ctx, chosen));
    const ended = await page.ended();
    if (ended) return send(ctx, ended);
    const inFlight = attemptInFlight(page.session);
    if (inFlight)
      return send(ctx, page.wait(inFlight.payment, await readAttemptPayment(deps, page.session, inFlight.payment)));
    send(ctx, page.form());
  };

  /** `GET /pay/{id}/attempts/{payment}`. */
  const showAttempt = async (ctx: Koa.Context, id: string, paymentId: string) => {
    const chosen = chosenLocale(ctx.query.lang);
    const page = await pageOf(ctx, id, chosen);
    if (!page || !page.session.attempts.some((a) => a.payment === paymentId)) return send(ctx, notFound(ctx, chosen));
    if (page.session.status === 'complete') return send(ctx, await page.receipt());
    const payment = await readAttemptPayment(deps, page.session, paymentId);
    if (!payment || payment.status === 'pending' || payment.status === 'processing' || payment.status === 'completed')
      return send(ctx, page.wait(paymentId, payment));
    if (page.session.status === 'expired') return send(ctx, expiredScreen(page.screen));
    const canRetry = page.session.attempts.length < MAX_CHECKOUT_ATTEMPTS;
    send(
      ctx,
      failureScreen(
        page.screen,
        page.view,
        { code: payment.failureCode, canRetry },
        page.options({ phone: nationally(payment.customerPhone, page.market?.country) }),
      ),
    );
  };

  /** `POST /pay/{id}`: a mobile-money attempt from the form. */
  const startAttempt = async (ctx: Koa.Context, id: string) => {
    // A form of another site posting here would act only by the capability it already holds; refused all the same.
    if (ctx.get('sec-fetch-site') === 'cross-site') return plain(ctx, 403, 'Forms of other sites are refused.');
    await formParser(ctx, async () => undefined);
    const form = (ctx.request.body ?? {}) as Record<string, unknown>;
    const field = (name: string) => (typeof form[name] === 'string' ? (form[name] as string) : '');
    const chosen = chosenLocale(form.lang);
    const page = await pageOf(ctx, id, chosen);
    if (!page) return send(ctx, notFound(ctx, chosen));
    const back = pagePath(id, chosen);
    if (page.session.status !== 'open') return redirect(ctx, back);
    const phone = field('phone').trim().slice(0, 32);
    const operator = field('operator');
    const typed = { phone, operator, amount: field('amount').slice(0, 24), name: field('name'), email: field('email') };
    const market = page.market;
    if (!market) return send(ctx, page.form({ ...typed, error: 'error_unavailable' }, 400));
    const terms = payerTerms(page.session, typed);
    if (!terms.ok) return send(ctx, page.form({ ...typed, errorField: terms.field }, 400));
    if (!phone) return send(ctx, page.form({ ...typed, errorField: 'phone' }, 400));
    const named = market.operators.find((o) => o.code === operator);
    if (operator && !named) return send(ctx, page.form({ ...typed, operator: '', errorField: 'operator' }, 400));
    try {
      const { payment } = await attemptOnceSettled(page, { phoneNumber: phone, operator: named?.code, ...terms.terms });
      redirect(ctx, pagePath(id, chosen, `/attempts/${encodeURIComponent(payment.id)}`));
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      switch (error.code) {
        case 'validation_error': {
          const named = FORM_FIELDS.find((f) =>
            error.details?.some((d) => d.field === (f === 'phone' ? 'phone_number' : f)),
          );
          return send(ctx, page.form({ ...typed, errorField: named ?? 'phone' }, 400));
        }
        case 'checkout_session_attempt_in_progress':
        case 'checkout_session_not_open':
        case 'not_found':
          return redirect(ctx, back);
        case 'checkout_session_attempts_exhausted':
          return send(ctx, page.form({ ...typed, error: 'attempts_exhausted' }, 409));
        case 'provider_unavailable': {
          // The payer's operator is down: nothing was sent (docs/hosted-page.md#operator-status).
          const down = market.operators.find((o) => o.code === (named?.code ?? predictOperator(market, phone)?.code));
          if (error.retryAfterSeconds === undefined || !down)
            return send(ctx, page.form({ ...typed, error: 'error_unavailable' }, 503));
          ctx.set('Retry-After', String(error.retryAfterSeconds));
          return send(ctx, page.form({ ...typed, error: 'error_operator_down', downOperator: down }, 503));
        }
        default:
          return send(ctx, page.form({ ...typed, error: 'error_unavailable' }, 503));
      }
    }
  };

  /**
   * Starts the attempt; when the session has not yet heard that its previous attempt ended (its payment is final,
   * the session's run records it a moment later), waits for that up to RETRY_SETTLE_MS instead of refusing "Try again".
   */
  const attemptOnceSettled = async (
    page: SessionPage,
    input: { phoneNumber: string; operator?: PaymentSnapshot['provider'] } & PayerTerms,
  ) => {
    const deadline = Date.now() + RETRY_SETTLE_MS;
    for (;;) {
      try {
        return await startCheckoutAttempt(deps, page.session.id, { paymentMethod: 'mobile_money', ...input });
      } catch (error) {
        const settling =
          error instanceof DomainError &&
          error.code === 'checkout_session_attempt_in_progress' &&
          Date.now() < deadline &&
          (await previousAttemptEnded(page.session.id));
        if (!settling) throw error;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  };

  /** True when the session's attempt in flight has a final payment (the session will hear of it in a moment). */
  const previousAttemptEnded = async (id: string): Promise<boolean> => {
    const read = await readPageSession(deps, id);
    const inFlight = read ? attemptInFlight(read.session) : undefined;
    if (!read || !inFlight) return true;
    const payment = await readAttemptPayment(deps, read.session, inFlight.payment);
    return payment !== undefined && (payment.status === 'failed' || payment.status === 'cancelled');
  };

  return async (ctx, next) => {
    if (ctx.path !== PAY_PATH && !ctx.path.startsWith(`${PAY_PATH}/`)) return next();
    const parts = ctx.path.slice(PAY_PATH.length + 1).split('/');
    const reading = ctx.method === 'GET' || ctx.method === 'HEAD';
    try {
      if (ctx.path === SCRIPT_PATH && reading) {
        securityHeaders(ctx, contentSecurityPolicy({ inlineStyles: [], stripe: false }));
        ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
        ctx.type = 'text/javascript; charset=utf-8';
        ctx.body = SCRIPT;
        return;
      }
      const [id, attempts, paymentId, ...rest] = parts;
      const idOk = id !== undefined && /^[A-Za-z0-9_]{1,64}$/.test(id);
      if (idOk && parts.length === 1) {
        if (reading) return await showSession(ctx, id);
        if (ctx.method === 'POST') {
          // The form's attempt counts against the session's page limit, as the page API's attempt does.
          await limitAttempt(ctx, id);
          return await startAttempt(ctx, id);
        }
        ctx.set('Allow', 'GET, HEAD, POST');
        return plain(ctx, 405, `${ctx.method} is not allowed here.`);
      }
      if (idOk && attempts === 'attempts' && paymentId && /^[A-Za-z0-9_]{1,64}$/.test(paymentId) && !rest.length) {
        if (reading) return await showAttempt(ctx, id, paymentId);
        ctx.set('Allow', 'GET, HEAD');
        return plain(ctx, 405, `${ctx.method} is not allowed here.`);
      }
      send(ctx, notFound(ctx, chosenLocale(ctx.query.lang)));
    } catch (error) {
      if (error instanceof DomainError && error.code === 'invalid_request')
        return plain(ctx, error.status ?? 400, 'The form could not be read.');
      if (error instanceof DomainError && error.code === 'rate_limited')
        return plain(ctx, 429, translator(pageLocale({ acceptLanguage: ctx.get('accept-language') })).t('error_busy'));
      (ctx.state.log as Logger | undefined)?.error({ err: error }, 'hosted payment page failed');
      plain(ctx, 503, translator(pageLocale({ acceptLanguage: ctx.get('accept-language') })).t('error_unavailable'));
    }
  };
}
