/**
 * The hosted payment page's screens (docs/hosted-page.md#what-the-payer-sees), rendered on the server to HTML with
 * `hono/jsx` (every text and attribute escaped by the renderer): the form, the wait screen, the receipt, the failure
 * with "Try again", and the plain expired and not-found pages. Each screen works without JavaScript: forms post to
 * the page, the wait screen refreshes itself; the page's one script (./assets/pay.js) follows the payment live instead.
 */
import type { Child } from 'hono/jsx';
import type { ProviderCode } from '../domain/catalogue';
import type { Environment } from '../domain/environment';
import type { Currency } from '../domain/money';
import { COLLECT_FIELDS, type AmountRange, type CollectField } from '../domain/payment-link';
import { brandCss, logoPath, type PageBrand } from './brand';
import { LOCALE_NAMES, PAGE_LOCALES, type PageLocale, type Translator } from './i18n';
import type { MessageKey } from './messages/en';
import { exampleNumber, sandboxNumbers, ussdFallback, type MobileMoneyMarket, type PageOperator } from './mobile-money';

/** The sandbox's test cards (docs/payments.md#card-payments). */
export const SANDBOX_CARDS = { success: '4242 4242 4242 4242', declined: '4000 0000 0000 0002' } as const;

/** Where the page's script and stylesheet are served, and what the page links (set by the routes). */
export interface PageAssets {
  /** The script's path, versioned by its content (`/pay/assets/pay-<hash>.js`). */
  script: string;
  /** The page's stylesheet text, inlined (its hash is in the CSP). */
  css: string;
}

/** What every screen knows: the language, the merchant's brand, the environment and the session's page path. */
export interface ScreenContext {
  t: Translator;
  /** The payer's explicit language choice (`?lang=`), carried on links and forms; undefined when not chosen. */
  chosenLocale: PageLocale | undefined;
  brand: PageBrand;
  environment: Environment;
  assets: PageAssets;
}

/**
 * A session as the screens show it. `amount` is in minor units: null on a payment link's session whose payer chooses
 * it within `amountRange` (minor units, inclusive) and has not yet; once an attempt chose it, that attempt's amount.
 */
export interface ScreenSession {
  id: string;
  amount: number | null;
  amountRange: AmountRange | null;
  currency: Currency;
  description: string;
  /** The fields the form asks of the payer (docs/payment-links.md#collect). */
  collect: readonly CollectField[];
  /** Where the receipt goes on to; null: the receipt stays, with `completionMessage` when the merchant wrote one. */
  successUrl: string | null;
  completionMessage: string | null;
  cancelUrl: string | null;
}

/** A field of the form a refused attempt names. */
export type FormField = 'amount' | CollectField | 'phone' | 'operator';

/** A rendered screen: its HTTP status, its HTML, and the inline styles' text (for the CSP's hashes). */
export interface RenderedScreen {
  status: number;
  html: string;
  inlineStyles: string[];
  /** True when the screen loads Stripe.js (live card): the CSP then allows Stripe's origins. */
  stripe: boolean;
}

/** The card form's mode: none, the sandbox card form, or Stripe's Payment Element with its publishable key. */
export type CardMode = { kind: 'none' } | { kind: 'sandbox' } | { kind: 'live'; publishableKey: string };

/** The page path of session `id` with the payer's language choice. */
export function pagePath(id: string, chosen: PageLocale | undefined, suffix = ''): string {
  return `/pay/${encodeURIComponent(id)}${suffix}${chosen ? `?lang=${chosen}` : ''}`;
}

function Layout(props: {
  ctx: ScreenContext;
  title: string;
  /** Without JavaScript, a `<meta http-equiv="refresh">` of this content (the script follows live instead). */
  refresh?: string;
  languageLinks?: (locale: PageLocale) => string;
  children: Child;
}) {
  const { ctx } = props;
  const logo = logoPath(ctx.brand);
  const refresh = props.refresh;
  return (
    <html lang={ctx.t.locale}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>{props.title}</title>
        <style dangerouslySetInnerHTML={{ __html: inlineStyle(ctx) }} />
        {refresh ? (
          <noscript>
            <meta http-equiv="refresh" content={refresh} />
          </noscript>
        ) : null}
        <script src={ctx.assets.script} defer />
      </head>
      <body>
        {ctx.environment === 'sandbox' ? <p class="sandbox">{ctx.t.t('sandbox_banner')}</p> : null}
        {ctx.brand.displayName ? (
          <header class="brand">
            {logo ? <img src={logo} alt="" height="40" /> : null}
            <span>{ctx.brand.displayName}</span>
          </header>
        ) : null}
        <main>{props.children}</main>
        {props.languageLinks ? (
          <nav class="languages" aria-label={ctx.t.t('language_label')}>
            {PAGE_LOCALES.map((locale) =>
              locale === ctx.t.locale ? (
                <span aria-current="true" lang={locale}>
                  {LOCALE_NAMES[locale]}
                </span>
              ) : (
                <a href={props.languageLinks?.(locale)} lang={locale} hreflang={locale}>
                  {LOCALE_NAMES[locale]}
                </a>
              ),
            )}
          </nav>
        ) : null}
      </body>
    </html>
  );
}

/** The page's stylesheet and the brand's colours, the one inline style of every screen. */
export function inlineStyle(ctx: Pick<ScreenContext, 'brand' | 'assets'>): string {
  return ctx.assets.css + brandCss(ctx.brand);
}

function render(ctx: ScreenContext, status: number, element: Child, stripe = false): RenderedScreen {
  return { status, html: `<!doctype html>${String(element)}`, inlineStyles: [inlineStyle(ctx)], stripe };
}

/** The range a payer chooses the amount in, in the locale's format (`RWF 500 to RWF 50,000`). */
function rangeText(t: Translator, session: ScreenSession, range: AmountRange): string {
  return t.t('amount_range', { min: t.money(range.min, session.currency), max: t.money(range.max, session.currency) });
}

function Summary(props: { ctx: ScreenContext; session: ScreenSession }) {
  const { t } = props.ctx;
  const range = props.session.amountRange;
  return (
    <section class="summary" aria-labelledby="summary-title">
      <h1 id="summary-title">{t.t('pay_to', { merchant: props.ctx.brand.displayName })}</h1>
      <p class="amount">
        <span class="visually-hidden">{t.t('amount_label')}: </span>
        {range ? rangeText(t, props.session, range) : t.money(props.session.amount ?? 0, props.session.currency)}
      </p>
      <p class="description">
        <span class="visually-hidden">{t.t('description_label')}: </span>
        {props.session.description}
      </p>
    </section>
  );
}

/** What the form screen shows beyond the session. */
export interface FormOptions {
  market: MobileMoneyMarket | undefined;
  card: CardMode;
  /** The number to fill in (as typed before, or the session's `customer_phone`), and the operator chosen. */
  phone?: string;
  /** The chosen amount, the name and the email as typed before (a link's session). */
  amount?: string;
  name?: string;
  email?: string;
  operator?: string;
  /** The operator the prefix table predicts for `phone`, shown under the field. */
  predicted?: PageOperator;
  /** A message of a refused attempt, shown above the form. */
  error?: MessageKey;
  errorField?: FormField;
  /**
   * The operators of the market that are not `operational` for this session's merchant and environment
   * (docs/hosted-page.md#operator-status): each is named in a warning above the button, before any prompt.
   */
  operatorStatuses?: Partial<Record<ProviderCode, 'degraded' | 'down'>>;
  /** The operator a refused attempt found `down` (the error `error_operator_down` names it). */
  downOperator?: PageOperator;
}

/**
 * The warnings of the operators that are not `operational` (docs/hosted-page.md#operator-status): only the chosen or
 * predicted operator's when one is known, else every one of the market's; the script shows the one it predicts.
 */
function OperatorNotices(props: { ctx: ScreenContext; market: MobileMoneyMarket; options: FormOptions }) {
  const { t } = props.ctx;
  const statuses = props.options.operatorStatuses ?? {};
  const known = props.market.operators.find((o) => o.code === props.options.operator) ?? props.options.predicted;
  const notices = props.market.operators.flatMap((operator) => {
    const status = statuses[operator.code];
    return status ? [{ operator, status }] : [];
  });
  if (notices.length === 0) return null;
  return (
    <>
      {notices.map(({ operator, status }) => (
        <p
          class={`notice notice-${status}`}
          role="status"
          data-operator-notice={operator.code}
          hidden={known !== undefined && known.code !== operator.code}
        >
          {t.t(status === 'down' ? 'operator_down' : 'operator_degraded', { operator: operator.name })}
        </p>
      ))}
    </>
  );
}

/**
 * The other ways to pay after a refusal because the payer's operator is down: the card form below, else a number on
 * another operator that is not down; nothing when there is neither.
 */
function otherMethodHint(options: FormOptions): MessageKey | undefined {
  if (options.card.kind !== 'none') return 'other_method_card';
  const others = options.market?.operators.filter(
    (o) => o.code !== options.downOperator?.code && options.operatorStatuses?.[o.code] !== 'down',
  );
  return others && others.length > 0 ? 'other_method_operator' : undefined;
}

/** One labelled, required text field of the form, with its hint and, when the refused attempt names it, its error. */
function TextField(props: {
  field: FormField;
  label: string;
  type: 'text' | 'email';
  inputmode?: 'decimal' | 'email';
  autocomplete: string;
  maxlength: number;
  value: string | undefined;
  hint?: string;
  /** The plain-word error shown under the field; undefined while it is not in error. */
  error: string | undefined;
}) {
  const id = props.field;
  const described = [props.error ? `${id}-error` : '', props.hint ? `${id}-hint` : ''].filter(Boolean).join(' ');
  return (
    <>
      <label for={id}>{props.label}</label>
      <input
        id={id}
        name={id}
        type={props.type}
        inputmode={props.inputmode}
        autocomplete={props.autocomplete}
        required
        maxlength={props.maxlength}
        value={props.value ?? ''}
        aria-describedby={described || undefined}
        aria-invalid={props.error ? 'true' : undefined}
      />
      {props.hint ? (
        <p id={`${id}-hint`} class="hint">
          {props.hint}
        </p>
      ) : null}
      {props.error ? (
        <p id={`${id}-error`} class="error" role="alert">
          {props.error}
        </p>
      ) : null}
    </>
  );
}

/**
 * How the form asks for each field a payment link collects (docs/payment-links.md#collect): the input's type, its
 * autofill name, its most characters (what the attempt's body takes), and its label and error.
 */
const COLLECT_INPUTS: Record<
  CollectField,
  {
    type: 'text' | 'email';
    inputmode?: 'email';
    autocomplete: string;
    maxlength: number;
    label: MessageKey;
    error: MessageKey;
  }
> = {
  name: { type: 'text', autocomplete: 'name', maxlength: 200, label: 'name_label', error: 'error_name' },
  email: {
    type: 'email',
    inputmode: 'email',
    autocomplete: 'email',
    maxlength: 254,
    label: 'email_label',
    error: 'error_email',
  },
};

/** The amount field of a session whose payer chooses it, and the fields it collects, each required and labelled. */
function PayerFields(props: { ctx: ScreenContext; session: ScreenSession; options: FormOptions }) {
  const { t } = props.ctx;
  const { session, options } = props;
  const range = session.amountRange;
  const errorOf = (field: FormField, message: () => string) => (options.errorField === field ? message() : undefined);
  return (
    <>
      {range ? (
        <TextField
          field="amount"
          label={t.t('amount_input_label', { currency: session.currency })}
          type="text"
          inputmode="decimal"
          autocomplete="transaction-amount"
          maxlength={24}
          value={options.amount}
          hint={rangeText(t, session, range)}
          error={errorOf('amount', () =>
            t.t('error_amount', {
              min: t.money(range.min, session.currency),
              max: t.money(range.max, session.currency),
              example: t.money(range.min, session.currency),
            }),
          )}
        />
      ) : null}
      {COLLECT_FIELDS.filter((field) => session.collect.includes(field)).map((field) => {
        const input = COLLECT_INPUTS[field];
        return (
          <TextField
            field={field}
            label={t.t(input.label)}
            type={input.type}
            inputmode={input.inputmode}
            autocomplete={input.autocomplete}
            maxlength={input.maxlength}
            value={options[field]}
            error={errorOf(field, () => t.t(input.error))}
          />
        );
      })}
    </>
  );
}

function MobileMoneyForm(props: {
  ctx: ScreenContext;
  session: ScreenSession;
  market: MobileMoneyMarket;
  options: FormOptions;
  submit: string;
}) {
  const { t } = props.ctx;
  const { market, options } = props;
  const example = exampleNumber(market);
  const invalid = options.errorField === 'phone';
  return (
    <form
      method="post"
      action={pagePath(props.session.id, undefined)}
      class="pay"
      data-calling-code={market.callingCode}
    >
      {props.ctx.chosenLocale ? <input type="hidden" name="lang" value={props.ctx.chosenLocale} /> : null}
      <input type="hidden" name="payment_method" value="mobile_money" />
      <PayerFields ctx={props.ctx} session={props.session} options={options} />
      <label for="phone">{t.t('phone_label')}</label>
      <input
        id="phone"
        name="phone"
        type="tel"
        inputmode="tel"
        autocomplete="tel"
        required
        maxlength={32}
        value={options.phone ?? ''}
        aria-describedby={invalid ? 'phone-error phone-hint' : 'phone-hint'}
        aria-invalid={invalid ? 'true' : undefined}
      />
      <p id="phone-hint" class="hint">
        {t.t('phone_hint', { example })}
      </p>
      {invalid ? (
        <p id="phone-error" class="error" role="alert">
          {t.t('error_phone', { example })}
        </p>
      ) : null}
      <label for="operator">{t.t('operator_label')}</label>
      <select id="operator" name="operator" aria-describedby="operator-note">
        <option value="">{t.t('operator_auto')}</option>
        {market.operators.map((operator) => (
          <option
            value={operator.code}
            selected={options.operator === operator.code}
            data-prefixes={operator.prefixes.join(' ')}
            data-note={t.t('operator_predicted', { operator: operator.name })}
          >
            {operator.name}
          </option>
        ))}
      </select>
      <p id="operator-note" class="hint" aria-live="polite">
        {options.predicted ? t.t('operator_predicted', { operator: options.predicted.name }) : ''}
      </p>
      {options.errorField === 'operator' ? (
        <p class="error" role="alert">
          {t.t('error_operator')}
        </p>
      ) : null}
      <OperatorNotices ctx={props.ctx} market={market} options={options} />
      <button type="submit">{props.submit}</button>
    </form>
  );
}

function CardForm(props: { ctx: ScreenContext; session: ScreenSession; mode: CardMode; submit: string }) {
  const { t } = props.ctx;
  const attempts = `/v1/checkout/sessions/${encodeURIComponent(props.session.id)}/attempts`;
  if (props.mode.kind === 'none') return null;
  return (
    <section class="card" aria-labelledby="card-title">
      <h2 id="card-title">{t.t('method_card')}</h2>
      <noscript>
        <p>{t.t('card_needs_script')}</p>
      </noscript>
      {props.mode.kind === 'sandbox' ? (
        <form
          class="card-form"
          hidden
          data-card="sandbox"
          data-attempts={attempts}
          data-result={pagePath(props.session.id, props.ctx.chosenLocale, '/attempts/')}
          data-error={t.t('error_card')}
        >
          <label for="card-number">{t.t('card_number')}</label>
          <input id="card-number" name="card_number" inputmode="numeric" autocomplete="cc-number" required />
          <div class="row">
            <span>
              <label for="card-month">{t.t('card_expiry_month')}</label>
              <input id="card-month" name="exp_month" inputmode="numeric" autocomplete="cc-exp-month" required />
            </span>
            <span>
              <label for="card-year">{t.t('card_expiry_year')}</label>
              <input id="card-year" name="exp_year" inputmode="numeric" autocomplete="cc-exp-year" required />
            </span>
          </div>
          <label for="card-cvc">{t.t('card_cvc')}</label>
          <input id="card-cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" required />
          <p class="error" role="alert" data-card-error hidden />
          <button type="submit">{props.submit}</button>
        </form>
      ) : (
        <form
          class="card-form"
          hidden
          data-card="live"
          data-key={props.mode.publishableKey}
          data-attempts={attempts}
          data-result={pagePath(props.session.id, props.ctx.chosenLocale, '/attempts/')}
          data-error={t.t('error_card')}
        >
          <div id="payment-element" />
          <p class="error" role="alert" data-card-error hidden />
          <button type="submit">{props.submit}</button>
        </form>
      )}
    </section>
  );
}

function SandboxNumbers(props: { ctx: ScreenContext; market: MobileMoneyMarket | undefined; card: CardMode }) {
  if (props.ctx.environment !== 'sandbox') return null;
  const { t } = props.ctx;
  return (
    <div class="sandbox-numbers">
      {props.market ? <p>{t.t('sandbox_numbers', sandboxNumbers(props.market))}</p> : null}
      {props.card.kind === 'sandbox' ? <p>{t.t('sandbox_cards', SANDBOX_CARDS)}</p> : null}
    </div>
  );
}

function CancelLink(props: { ctx: ScreenContext; session: ScreenSession }) {
  if (!props.session.cancelUrl) return null;
  return (
    <p class="cancel">
      <a href={props.session.cancelUrl}>{props.ctx.t.t('cancel_link', { merchant: props.ctx.brand.displayName })}</a>
    </p>
  );
}

/** The methods of the form, or the screen's "Try again" part after a failure. */
function Methods(props: { ctx: ScreenContext; session: ScreenSession; options: FormOptions }) {
  const { t } = props.ctx;
  // A payer who chooses the amount sees it in the field: the button says only "Pay", never a zero.
  const submit =
    props.session.amountRange || props.session.amount === null
      ? t.t('pay_button_chosen')
      : t.t('pay_button', { amount: t.money(props.session.amount, props.session.currency) });
  const both = props.options.market !== undefined && props.options.card.kind !== 'none';
  return (
    <>
      <SandboxNumbers ctx={props.ctx} market={props.options.market} card={props.options.card} />
      {props.options.error && !props.options.errorField ? (
        <p class="error" role="alert">
          {t.t(props.options.error, {
            merchant: props.ctx.brand.displayName,
            operator: props.options.downOperator?.name ?? '',
          })}
          {props.options.downOperator && otherMethodHint(props.options) ? (
            <> {t.t(otherMethodHint(props.options) as MessageKey)}</>
          ) : null}
        </p>
      ) : null}
      {both ? <h2>{t.t('choose_method')}</h2> : null}
      {props.options.market ? (
        <section aria-labelledby="mm-title">
          <h2 id="mm-title" class={both ? undefined : 'visually-hidden'}>
            {t.t('method_mobile_money')}
          </h2>
          <MobileMoneyForm
            ctx={props.ctx}
            session={props.session}
            market={props.options.market}
            options={props.options}
            submit={submit}
          />
        </section>
      ) : null}
      <CardForm ctx={props.ctx} session={props.session} mode={props.options.card} submit={submit} />
    </>
  );
}

/** The form: the summary, the sandbox's numbers, the mobile-money form and the card form. 200, or `status`. */
export function formScreen(
  ctx: ScreenContext,
  session: ScreenSession,
  options: FormOptions,
  status = 200,
): RenderedScreen {
  const links = (locale: PageLocale) => pagePath(session.id, locale);
  return render(
    ctx,
    status,
    <Layout ctx={ctx} title={ctx.t.t('page_title', { merchant: ctx.brand.displayName })} languageLinks={links}>
      <Summary ctx={ctx} session={session} />
      <Methods ctx={ctx} session={session} options={options} />
      <CancelLink ctx={ctx} session={session} />
    </Layout>,
    options.card.kind === 'live',
  );
}

/** The attempt the wait screen follows. */
export interface WaitingAttempt {
  payment: string;
  operator: PageOperator | undefined;
  /** The number asked, written nationally. */
  phone: string;
  country: string;
  /** The attempt's amount in minor units (a chosen one); undefined: the session's. */
  amount?: number;
  /**
   * The provider's own payment page, when the payment's `next_action` is a `redirect` (Orange Money's web payment,
   * Wave's `wave_launch_url`): the payer pays there instead of on a phone prompt; offered only when it is https.
   */
  redirectUrl?: string;
}

/**
 * The wait screen: approve on the phone and the operator's fallback, or, for a payment paid on the provider's own page
 * (`redirectUrl`), the link to it; and the live status (the script follows the
 * session's events, else polls `/public`; without JavaScript the page refreshes itself every 3 s).
 */
export function waitScreen(ctx: ScreenContext, session: ScreenSession, attempt: WaitingAttempt): RenderedScreen {
  const { t } = ctx;
  const amount = t.money(attempt.amount ?? session.amount ?? 0, session.currency);
  const fallback = attempt.operator ? ussdFallback(attempt.operator.code, attempt.country) : { kind: 'retry' as const };
  const here = pagePath(session.id, ctx.chosenLocale, `/attempts/${encodeURIComponent(attempt.payment)}`);
  const operator = attempt.operator?.name ?? t.t('method_mobile_money');
  // Paid on the provider's own page (next_action redirect): a link there, and no phone prompt to fall back from.
  // Only an https page of the provider is offered as a link.
  const redirect =
    attempt.redirectUrl !== undefined && /^https:\/\//.test(attempt.redirectUrl) ? attempt.redirectUrl : undefined;
  const title = redirect === undefined ? t.t('wait_title') : t.t('wait_redirect_title', { operator });
  return render(
    ctx,
    200,
    <Layout ctx={ctx} title={title} refresh={`3;url=${here}`}>
      <section
        class="wait"
        aria-labelledby="wait-title"
        data-wait={session.id}
        data-events={`/v1/checkout/sessions/${encodeURIComponent(session.id)}/events`}
        data-public={`/v1/checkout/sessions/${encodeURIComponent(session.id)}/public`}
        data-here={here}
      >
        <h1 id="wait-title">{title}</h1>
        <p class="amount">{amount}</p>
        <p>
          {redirect === undefined
            ? t.t('wait_body', { operator, phone: attempt.phone, amount })
            : t.t('wait_open_body', { operator, amount })}
        </p>
        {redirect === undefined ? null : (
          <p>
            <a class="button" href={redirect} rel="noreferrer">
              {t.t('wait_redirect_button', { operator })}
            </a>
          </p>
        )}
        <p class="spinner" aria-hidden="true" />
        <p role="status">{t.t('wait_keep_open')}</p>
        {redirect === undefined ? <h2>{t.t('wait_no_prompt')}</h2> : null}
        {redirect === undefined ? (
          <p>
            {fallback.kind === 'approvals'
              ? t.t('ussd_approvals', { code: fallback.code, menu: fallback.menu })
              : t.t('ussd_retry')}
          </p>
        ) : null}
      </section>
    </Layout>,
  );
}

/** The receipt's payment. */
export interface ReceiptPayment {
  id: string;
  /** When it completed, ISO 8601. */
  completedAt: string;
  providerReceiptNumber: string | null;
  /** The IANA time zone the payer's country keeps (the receipt's time is written in it). */
  timeZone: string;
}

/**
 * The receipt (200): merchant, amount (the one paid), time, payment id, the provider's receipt number. With a
 * `success_url`, the script goes on to it after 5 s unless the payer touches the page first (so nobody loses the
 * receipt mid-read); without JavaScript the payer follows the link. Without one, the receipt stays, with the
 * merchant's completion message when there is one (docs/hosted-page.md#receipt).
 */
export function receiptScreen(ctx: ScreenContext, session: ScreenSession, payment: ReceiptPayment): RenderedScreen {
  const { t } = ctx;
  const merchant = ctx.brand.displayName;
  return render(
    ctx,
    200,
    <Layout ctx={ctx} title={t.t('success_title')}>
      <section class="receipt" aria-labelledby="receipt-title" data-redirect={session.successUrl ?? undefined}>
        <h1 id="receipt-title">{t.t('success_title')}</h1>
        <dl>
          <dt>{t.t('receipt_merchant')}</dt>
          <dd>{merchant}</dd>
          <dt>{t.t('receipt_amount')}</dt>
          <dd class="amount">{t.money(session.amount ?? 0, session.currency)}</dd>
          <dt>{t.t('description_label')}</dt>
          <dd>{session.description}</dd>
          <dt>{t.t('receipt_time')}</dt>
          <dd>{t.dateTime(payment.completedAt, payment.timeZone)}</dd>
          <dt>{t.t('receipt_payment')}</dt>
          <dd class="reference">{payment.id}</dd>
          {payment.providerReceiptNumber ? (
            <>
              <dt>{t.t('receipt_provider')}</dt>
              <dd class="reference">{payment.providerReceiptNumber}</dd>
            </>
          ) : null}
        </dl>
        {session.successUrl ? (
          <>
            <p role="status" data-redirect-notice hidden>
              {t.t('redirect_notice', { merchant })}
            </p>
            <p>
              <a class="button" href={session.successUrl}>
                {t.t('redirect_now', { merchant })}
              </a>
            </p>
          </>
        ) : session.completionMessage ? (
          <p class="completion-message">{session.completionMessage}</p>
        ) : null}
      </section>
    </Layout>,
  );
}

/** The plain-word reason of a failure code (docs/payments.md#errors); an unknown one is "could not be completed". */
export function failureMessage(code: string | null): MessageKey {
  switch (code) {
    case 'declined':
      return 'failure_declined';
    case 'insufficient_funds':
      return 'failure_insufficient_funds';
    case 'expired':
      return 'failure_expired';
    case 'wrong_pin':
      return 'failure_wrong_pin';
    case 'provider_error':
      return 'failure_provider_error';
    case 'card_declined':
      return 'failure_card_declined';
    default:
      return 'failure_other';
  }
}

/**
 * A failed attempt (200): the reason in plain words, and "Try again" with the same number filled in (another number,
 * operator or method too), or, when the session takes no more attempts, whom to contact.
 */
export function failureScreen(
  ctx: ScreenContext,
  session: ScreenSession,
  failure: { code: string | null; canRetry: boolean },
  options: FormOptions,
): RenderedScreen {
  const { t } = ctx;
  const links = (locale: PageLocale) => pagePath(session.id, locale);
  return render(
    ctx,
    200,
    <Layout ctx={ctx} title={t.t('failure_title')} languageLinks={links}>
      <section class="failure" aria-labelledby="failure-title">
        <h1 id="failure-title">{t.t('failure_title')}</h1>
        <p>{t.t(failureMessage(failure.code))}</p>
        <p>{t.t('no_money_taken')}</p>
      </section>
      <Summary ctx={ctx} session={session} />
      {failure.canRetry ? (
        <section aria-labelledby="retry-title">
          <h2 id="retry-title">{t.t('try_again')}</h2>
          <p>{t.t('try_again_hint')}</p>
          <Methods ctx={ctx} session={session} options={options} />
        </section>
      ) : (
        <p>{t.t('attempts_exhausted', { merchant: ctx.brand.displayName })}</p>
      )}
      <CancelLink ctx={ctx} session={session} />
    </Layout>,
    failure.canRetry && options.card.kind === 'live',
  );
}

/** A page that only tells: HTTP `status`, the message `title` as its title and heading, and `body` below it. */
function noticeScreen(ctx: ScreenContext, status: number, title: MessageKey, body: string): RenderedScreen {
  const { t } = ctx;
  return render(
    ctx,
    status,
    <Layout ctx={ctx} title={t.t(title)}>
      <h1>{t.t(title)}</h1>
      <p>{body}</p>
    </Layout>,
  );
}

/** The expired session's page (410). */
export function expiredScreen(ctx: ScreenContext): RenderedScreen {
  return noticeScreen(ctx, 410, 'expired_title', ctx.t.t('expired_body', { merchant: ctx.brand.displayName }));
}

/** The page of an unknown session (404): no merchant, in the payer's language. */
export function notFoundScreen(ctx: ScreenContext): RenderedScreen {
  return noticeScreen(ctx, 404, 'not_found_title', ctx.t.t('not_found_body'));
}

/** Why a payment link's address shows no payment page (docs/payment-links.md#closed). */
export type ClosedLinkKind = 'unknown' | 'inactive' | 'exhausted' | 'busy';

const CLOSED_LINK_TEXT: Readonly<Record<ClosedLinkKind, MessageKey>> = {
  unknown: 'link_unknown',
  inactive: 'link_inactive',
  exhausted: 'link_exhausted',
  busy: 'link_busy',
};

/** The page of a payment link that opens no session (`status`: 404 unknown, 410 closed, 429 busy), naming nobody. */
export function closedLinkScreen(ctx: ScreenContext, kind: ClosedLinkKind, status: number): RenderedScreen {
  return noticeScreen(ctx, status, 'link_title', ctx.t.t(CLOSED_LINK_TEXT[kind]));
}
