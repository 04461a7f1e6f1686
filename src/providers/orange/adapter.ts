/**
 * The live `orange` adapter: Orange Money's Web Payment API (docs/providers.md#orange-money-orange), over HTTP with
 * {@link providerHttp} (time-outs, unknown answers kept apart) and an access-token cache (./client.ts).
 *
 * Orange's calls (Orange Developer, "Orange Money Web Payment": getting started and API reference), under
 * `/orange-money-webpay/{market}/v1` where `market` is the merchant account's country (`sn`, `ci`, `cm`) or `dev`:
 * - `POST …/webpayment` with `Authorization: Bearer`, body `{merchant_key, currency, order_id, amount, return_url,
 *   cancel_url, notif_url, lang, reference}` (`amount` a whole number of the currency, `currency` `OUV` in `dev`) →
 *   201 `{status: 201, message: "OK", pay_token, payment_url, notif_token}`: the page the customer pays on;
 * - `POST …/transactionstatus` `{order_id, amount, pay_token}` → 201 `{status, order_id, txnid}` (statuses in
 *   ./statuses.ts);
 * - Orange POSTs `{status, notif_token, txnid}` to `notif_url` once the payment is decided (./callback.ts).
 *
 * Decisions:
 * - The provider reference is the payment id (the `order_id`), known before Orange answers; Orange's `pay_token`,
 *   `notif_token` and `payment_url` are kept in the shared request log (./page.ts), first answer wins, so every retry
 *   and every process hands the customer the same page, and the status is asked about the page they got.
 * - Nothing is charged until the customer pays on the page, which only our answer gives them: when a web payment's
 *   answer is lost (time-out, 5xx, undocumented body) the payment has no page, and the retry makes one; the page that
 *   was made and never shown lapses at Orange (EXPIRED).
 * - `next_action` is `redirect` to `payment_url`: Orange's page takes the customer's number and their Orange Money
 *   code. The number the payment was created with chooses Orange and its country; the page may take another.
 * - No cancel (a page cannot be withdrawn; it lapses), no refunds: the Web Payment API offers neither (409).
 * - A refused token request or a 401 twice is a fault of our credentials, retried like an unknown answer (a payment is
 *   never failed for our configuration).
 */
import { CURRENCY_EXPONENTS } from '../../domain/money';
import { documentedAnswer, ProviderUnknownAnswer, type FetchLike, type ProviderHttpResponse } from '../http';
import {
  ProviderRefusal,
  ProviderUnsupported,
  type InitiateRequest,
  type PaymentProvider,
  type ProviderRequestLog,
} from '../provider';
import { callbackUrlWithQuery } from '../callback-url';
import { orangeCallbackUrl, parseOrangeCallback } from './callback';
import { createOrangeClient, orangeErrorOf } from './client';
import { descriptor } from './descriptor';
import { keepOrangePage, orangePageOf, type OrangePage } from './page';
import { ORANGE_MARKETS, type OrangeMarket, type OrangeSettings } from './settings';
import { outcomeOf, statusAnswer, webPaymentAnswer } from './statuses';

export { OrangeAuthenticationError } from './client';

/** What the adapter needs besides its settings. */
export interface OrangeDeps {
  /** HMAC key of the per-payment notification tokens (PROVIDER_CALLBACK_SECRET), at least 32 characters. */
  callbackSecret: string;
  /** Where each payment's page is kept, shared by every process. */
  requestLog: ProviderRequestLog;
  /** The HTTP client (default: global fetch). */
  fetch?: FetchLike;
  /** The token cache's clock (default: now). */
  now?: () => Date;
}

/** The calling code of each country's market, the country of a customer's number. */
const CALLING_CODES: Readonly<Record<Exclude<OrangeMarket, 'dev'>, string>> = { sn: '221', ci: '225', cm: '237' };

/** The Web Payment calls' path under the base URL for `market`. */
export function orangeWebPayPath(market: OrangeMarket, call: 'webpayment' | 'transactionstatus'): string {
  return `/orange-money-webpay/${market}/v1/${call}`;
}

/**
 * The live Orange Money adapter (see the module's comment). Three-valued answers: values, {@link ProviderRefusal} (a
 * refused web payment, an unknown payment, a bad notification), and any other error for an unknown answer (time-out,
 * 5xx, undocumented body, {@link OrangeAuthenticationError}).
 * @param settings base URL, credentials, merchant key, market, return URL, page name and language, time-out (ms)
 * @param deps the callback secret, the request log, the HTTP client, the clock
 * @throws Error when `deps.callbackSecret` is shorter than 32 characters
 */
export function createOrangeProvider(settings: OrangeSettings, deps: OrangeDeps): PaymentProvider {
  if (deps.callbackSecret.length < 32)
    throw new Error('the Orange Money adapter needs a callback secret of at least 32 characters');
  const { requestLog, callbackSecret: secret } = deps;
  const client = createOrangeClient(settings, deps.fetch ?? fetch, deps.now ?? (() => new Date()));
  const webPaymentPath = orangeWebPayPath(settings.market, 'webpayment');
  const statusPath = orangeWebPayPath(settings.market, 'transactionstatus');

  /** The answer that sends the customer to `page`. */
  const pending = (paymentId: string, page: OrangePage) => ({
    providerReference: paymentId,
    outcome: { status: 'pending' as const },
    nextAction: { type: 'redirect' as const, url: page.paymentUrl },
  });

  /** Refuses what this account cannot collect, before anything is sent. @throws ProviderRefusal */
  function checkCollectable(request: InitiateRequest): void {
    const market = settings.market;
    const currencies = market === 'dev' ? descriptor.generic.currencies : [ORANGE_MARKETS[market]];
    if (!(currencies as readonly string[]).includes(request.currency))
      throw new ProviderRefusal(
        `this Orange Money account (${market}) collects ${currencies.join(' or ')}, not ${request.currency}`,
        'provider_error',
      );
    if (market !== 'dev' && !request.customer.startsWith(`+${CALLING_CODES[market]}`))
      throw new ProviderRefusal(
        `this Orange Money account (${market}) collects from numbers of its country (+${CALLING_CODES[market]}) only`,
        'declined',
      );
    if (request.callbackUrl === null)
      throw new ProviderRefusal(
        'Orange Money needs a notification URL: PROVIDER_CALLBACK_BASE_URL is not set',
        'provider_error',
      );
  }

  /** What a web payment's answer other than 201 means. @throws ProviderRefusal or ProviderUnknownAnswer */
  function refusedOrUnknown(path: string, response: ProviderHttpResponse): never {
    const error = orangeErrorOf(response);
    if (response.status >= 400 && response.status < 500 && error !== undefined)
      throw new ProviderRefusal(`Orange Money refused the payment page (HTTP ${response.status}, ${error})`);
    throw new ProviderUnknownAnswer(`POST ${path}: undocumented answer (HTTP ${response.status})`, response.status);
  }

  return {
    code: descriptor.code,
    supports: descriptor.live,

    async initiate(request) {
      checkCollectable(request);
      const made = await orangePageOf(requestLog, request.paymentId);
      if (made) return pending(request.paymentId, made);
      const amount = request.amount / 10 ** CURRENCY_EXPONENTS[request.currency];
      const back = callbackUrlWithQuery(settings.returnUrl, { payment: request.paymentId });
      const response = await client.call(webPaymentPath, {
        merchant_key: settings.merchantKey,
        currency: settings.market === 'dev' ? ORANGE_MARKETS.dev : request.currency,
        order_id: request.paymentId,
        amount,
        return_url: back,
        cancel_url: back,
        notif_url: orangeCallbackUrl(request.callbackUrl as string, request.paymentId, secret),
        lang: settings.lang,
        reference: settings.reference,
      });
      if (response.status !== 201 && response.status !== 200) refusedOrUnknown(webPaymentPath, response);
      const answer = documentedAnswer(webPaymentAnswer, response.json, `POST ${webPaymentPath}`);
      const page = await keepOrangePage(requestLog, request.paymentId, {
        payToken: answer.pay_token,
        notifToken: answer.notif_token,
        paymentUrl: answer.payment_url,
        amount,
      });
      return pending(request.paymentId, page);
    },

    async fetchStatus(providerReference) {
      const page = await orangePageOf(requestLog, providerReference);
      if (!page) throw new ProviderRefusal(`no Orange Money payment page was made for ${providerReference}`);
      const response = await client.call(statusPath, {
        order_id: providerReference,
        amount: page.amount,
        pay_token: page.payToken,
      });
      if (response.status !== 201 && response.status !== 200)
        throw new ProviderUnknownAnswer(
          `POST ${statusPath}: undocumented answer (HTTP ${response.status})`,
          response.status,
        );
      const answer = documentedAnswer(statusAnswer, response.json, `POST ${statusPath}`);
      return { providerReference, outcome: outcomeOf(answer.status, answer.txnid) };
    },

    async cancel() {
      // A payment page cannot be withdrawn: it lapses when the customer does not pay.
      throw new ProviderUnsupported('orange', 'cancel');
    },

    async refund() {
      throw new ProviderUnsupported('orange', 'refund');
    },

    async fetchRefund() {
      throw new ProviderUnsupported('orange', 'refund');
    },

    parseCallback: (request) => parseOrangeCallback(request, secret, requestLog),
  };
}
