/**
 * A fake of MTN MoMo's Collection API (the documented subset the `momo` adapter uses): a real
 * node:http server on 127.0.0.1, usable by URL alone (a separately started service is pointed at
 * `fake.url`; callbacks go to each request's `X-Callback-Url`). Tests steer it through the
 * TypeScript API below or, from another process, through `POST /_fake/mode`, `POST /_fake/faults`,
 * `POST /_fake/requesttopay/{referenceId}` `{status, reason?}` and `GET /_fake/requesttopay`.
 *
 * Endpoints, headers and answers as MTN documents them:
 * - every call: a missing or wrong `Ocp-Apim-Subscription-Key` → 401 `{statusCode, message}` (the
 *   API gateway's answer);
 * - `POST /collection/token/`: HTTP Basic apiUser:apiKey, no body (a body → 400) →
 *   `{access_token, token_type: "access_token", expires_in}`; wrong credentials → 401 `{error}`;
 * - `POST /collection/v1_0/requesttopay`, `GET /collection/v1_0/requesttopay/{referenceId}`: a
 *   missing, unknown or expired Bearer token → 401; no `X-Target-Environment` → 400, an unknown one →
 *   500 NOT_ALLOWED_TARGET_ENVIRONMENT; an `X-Reference-Id` that is not a UUID v4 → 400, a repeated
 *   one → 409 RESOURCE_ALREADY_EXIST; a bad body (amount not a decimal string with the currency's
 *   decimals, another currency than the environment's → 400 INVALID_CURRENCY, texts empty or over 160
 *   characters or with an apostrophe, payer not MSISDN digits) → 400; accepted → 202 with no body;
 *   an unknown reference → 404 RESOURCE_NOT_FOUND; the status → 200 `{amount, currency,
 *   financialTransactionId (once SUCCESSFUL), externalId, payer, payerMessage, payeeNote, status, reason?}`.
 *
 * The payer's number decides, by its last six digits as in MTN's sandbox numbers
 * ({@link MOMO_FAKE_NUMBERS}, so `+250788123452` behaves as 46733123452); any other number succeeds
 * after `approvalDelayMs`. When a request settles, its result is sent (POST by default, or PUT:
 * MoMo says to allow both) to its `X-Callback-Url`, once, never or twice as the mode says.
 * Faults (`injectFaults`): the next N matching requests are handled (the fake acts), then answered
 * 500, never answered (a hang, until `close`), answered 200 with an undocumented body, or 404 by the
 * gateway. `decide` may also set a status MoMo does not document, for an undocumented answer.
 *
 * The Disbursement product, with its own API user, key and subscription key (a Collection token is refused there):
 * - `POST /disbursement/token/` as the Collection's;
 * - `POST /disbursement/v1_0/transfer` (same headers; body `{amount, currency, externalId, payee: {partyIdType:
 *   MSISDN, partyId}, payerMessage, payeeNote}`) → 202, 409 RESOURCE_ALREADY_EXIST for a repeated reference;
 *   `GET /disbursement/v1_0/transfer/{referenceId}` → 200 `{amount, currency, financialTransactionId, externalId,
 *   payee, payerMessage, payeeNote, status, reason?}`, 404 RESOURCE_NOT_FOUND;
 * - `GET /disbursement/v1_0/accountholder/msisdn/{msisdn}/active` → 200 `{result}` (false for the "not found"
 *   number and for {@link MomoFake.inactiveHolders});
 * - `GET /disbursement/v1_0/account/balance` → 200 `{availableBalance, currency}` of the target environment.
 * - `GET /collection/v1_0/account/balance` → the same for the Collection account: what SUCCESSFUL requests to pay
 *   brought in.
 * A transfer settles after `approvalDelayMs` by the payee's number as a request to pay does by the payer's (the
 * "not found" number fails PAYEE_NOT_FOUND), and fails NOT_ENOUGH_FUNDS when the balance is short; a successful one
 * debits the balance. `reverse` gives a paid transfer's money back to the balance and leaves its status SUCCESSFUL,
 * as MoMo documents no reversal status.
 *
 * Refunds, on the Disbursement product (MTN's `Refund` V1 and V2 and `GetRefundStatus`):
 * - `POST /disbursement/v1_0/refund` and `POST /disbursement/v2_0/refund` (same headers as a transfer; body `{amount,
 *   currency, externalId, payerMessage?, payeeNote?, referenceIdToRefund}`, `referenceIdToRefund` the UUID of a
 *   request to pay) → 202 with no body; 409 RESOURCE_ALREADY_EXIST for a repeated X-Reference-Id; 400 for a body MoMo
 *   cannot take (as a transfer's, and a missing or malformed `referenceIdToRefund`);
 * - `GET /disbursement/v1_0/refund/{referenceId}` → 200 `{amount, currency, financialTransactionId (once
 *   SUCCESSFUL), externalId, payee (the refunded payer), payerMessage, payeeNote, status, reason?}`; 404
 *   RESOURCE_NOT_FOUND.
 * A refund settles after `approvalDelayMs` (unless the mode holds refunds for `decideRefund`): SUCCESSFUL, paid from
 * the Disbursement balance, when the request to pay it names is SUCCESSFUL in the same environment and the amount fits
 * in what that request collected less the refunds made or under way; otherwise FAILED, with the reason the fake
 * chooses where MTN documents none (RESOURCE_NOT_FOUND for a request it does not know, NOT_ALLOWED for one not
 * collected or an amount above the rest, NOT_ENOUGH_FUNDS for a short balance).
 */
import { randomBytes, randomInt } from 'node:crypto';
import type http from 'node:http';
import { type FakeFaultKind, FaultQueue, SentLog } from './faults';
import { FakeTimers, postCallback, startFakeServer } from './server';

/** MTN's sandbox numbers (RequestToPay), by the last six digits that decide; any other number succeeds. */
export const MOMO_FAKE_NUMBERS = {
  /** 46733123450: FAILED, INTERNAL_PROCESSING_ERROR, after the approval delay. */
  failed: '123450',
  /** 46733123451: FAILED, APPROVAL_REJECTED. */
  rejected: '123451',
  /** 46733123452: FAILED, EXPIRED. */
  expired: '123452',
  /** 46733123453: PENDING for ever (the payer never answers); no callback. */
  ongoing: '123453',
  /** 46733123454: PENDING, then SUCCESSFUL after `delayedApprovalMs`. */
  delayed: '123454',
  /** 46733123455: FAILED, PAYER_NOT_FOUND. */
  notFound: '123455',
} as const;

/** MoMo's request-to-pay statuses. */
export type FakeStatus = 'PENDING' | 'SUCCESSFUL' | 'FAILED';

/** A failure reason as MoMo sends it: a string (today) or `{code, message}` (the swagger's form). */
export type FakeReason = string | { code: string; message?: string };

/** How the fake calls back: once per settlement, never, or twice (the same callback repeated). */
export type FakeCallbackMode = 'once' | 'off' | 'twice';

export type { FakeFaultKind } from './faults';

/** Start options; every one has a default. */
export interface MomoFakeOptions {
  apiUser?: string;
  apiKey?: string;
  subscriptionKey?: string;
  /** The Disbursement product's API user, key and subscription key. */
  disbursementApiUser?: string;
  disbursementApiKey?: string;
  disbursementSubscriptionKey?: string;
  /** The Disbursement account's opening balance in each target environment, in minor units (default 10^9). */
  disbursementBalance?: number;
  /**
   * The target environments served, with the one currency each takes (default: {@link DEFAULT_ENVIRONMENTS}).
   */
  environments?: Record<string, string>;
  /** Lifetime of issued tokens, in seconds (MoMo: 3600). */
  tokenLifetimeSeconds?: number;
  /** How long a request waits for the payer before it settles, in milliseconds (default 100). */
  approvalDelayMs?: number;
  /** When the "delayed" number succeeds, in milliseconds (default 1000). */
  delayedApprovalMs?: number;
  callbacks?: FakeCallbackMode;
  /** The callbacks' HTTP method (default POST). */
  callbackMethod?: 'POST' | 'PUT';
  /** Port to listen on (default: a free one). */
  port?: number;
}

/**
 * MTN's sandbox (EUR) and the production target environments MoMo's Open API names (docs/providers.md#markets), each
 * with the one currency it takes; written here on their own, not read from the service's markets table.
 */
export const DEFAULT_ENVIRONMENTS: Readonly<Record<string, string>> = {
  sandbox: 'EUR',
  mtnrwanda: 'RWF',
  mtnuganda: 'UGX',
  mtnghana: 'GHS',
  mtnzambia: 'ZMW',
  mtnivorycoast: 'XOF',
  mtncameroon: 'XAF',
  mtncongo: 'XAF',
  mtnbenin: 'XOF',
  mtnguineaconakry: 'GNF',
  mtnswaziland: 'SZL',
};

/** One request the fake got (the token endpoint's too). */
export interface FakeRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The raw body, and its JSON when it parsed. */
  raw: string;
  body: unknown;
}

/** A request-to-pay as the fake holds it; `amount` as sent (a decimal string in major units). */
export interface FakeRequestToPay {
  referenceId: string;
  environment: string;
  amount: string;
  currency: string;
  externalId: string;
  payer: { partyIdType: string; partyId: string };
  payerMessage: string;
  payeeNote: string;
  status: FakeStatus;
  reason: FakeReason | null;
  /** Set once SUCCESSFUL. */
  financialTransactionId: string | null;
  callbackUrl: string | null;
}

/** A Disbursement transfer as the fake holds it; `amount` as sent (a decimal string in major units). */
export interface FakeTransfer {
  referenceId: string;
  environment: string;
  amount: string;
  currency: string;
  externalId: string;
  payee: { partyIdType: string; partyId: string };
  payerMessage: string;
  payeeNote: string;
  status: FakeStatus;
  reason: FakeReason | null;
  financialTransactionId: string | null;
  callbackUrl: string | null;
  /** Set by `reverse`: the money went back to the balance. */
  reversed: boolean;
}

/** A Disbursement refund as the fake holds it; `amount` as sent (a decimal string in major units). */
export interface FakeRefund {
  referenceId: string;
  environment: string;
  amount: string;
  currency: string;
  externalId: string;
  payerMessage: string;
  payeeNote: string;
  /** The request to pay it refunds (lower case). */
  referenceIdToRefund: string;
  /** The payer of that request, who gets the money back; null when the fake has no such request. */
  payee: { partyIdType: string; partyId: string } | null;
  status: FakeStatus;
  reason: FakeReason | null;
  financialTransactionId: string | null;
  callbackUrl: string | null;
  /** The path it was sent to (V1 or V2). */
  path: string;
}

/** One callback the fake sent: where, how, its raw body and what the receiver answered. */
export interface SentCallback {
  url: string;
  method: string;
  body: string;
  status?: number;
  error?: string;
}

/** A running fake. */
export interface MomoFake {
  /** `http://127.0.0.1:{port}`: the adapter's `baseUrl`. */
  url: string;
  requests: FakeRequest[];
  transactions: ReadonlyMap<string, FakeRequestToPay>;
  callbacks: SentCallback[];
  /** Disbursement transfers, by lower-case reference. */
  transfers: ReadonlyMap<string, FakeTransfer>;
  /** Tokens issued so far (both products). */
  readonly tokensIssued: number;
  /** Numbers whose holder the account-holder lookup says is not active (add to it). */
  inactiveHolders: Set<string>;
  /**
   * The Collection account's balance in `environment`, in minor units: every SUCCESSFUL request to pay, plus what a
   * test moved by hand.
   */
  collectionBalance(environment: string): number;
  /** Moves the Collection account's balance by `minor` units (a fee MTN took, money it moved without a request). */
  adjustCollectionBalance(environment: string, minor: number): void;
  /** The Disbursement account's balance in `environment`, in minor units. */
  balance(environment: string): number;
  /** Settles (or re-opens) a transfer by hand and calls back as the mode says. */
  decideTransfer(referenceId: string, status: FakeStatus, reason?: FakeReason): void;
  /** Gives a SUCCESSFUL transfer's money back to the balance (MTN's reversal by hand); its status stays SUCCESSFUL. */
  reverse(referenceId: string): void;
  /** Disbursement refunds, by lower-case reference. */
  refunds: ReadonlyMap<string, FakeRefund>;
  /** Settles (or re-opens, with PENDING) a refund by hand; SUCCESSFUL pays it from the balance. */
  decideRefund(referenceId: string, status: FakeStatus, reason?: FakeReason): void;
  /** Changes how it calls back, and whether refunds settle by themselves (`auto`) or wait for `decideRefund`. */
  setMode(mode: { callbacks?: FakeCallbackMode; callbackMethod?: 'POST' | 'PUT'; refunds?: 'auto' | 'hold' }): void;
  /**
   * The next `count` requests whose path starts with one of `paths` (default: every API path but the token's) get
   * `kind`.
   */
  injectFaults(kind: FakeFaultKind, count: number, paths?: string[]): void;
  /** Expires every issued token now (the next API call with one answers 401). */
  expireTokens(): void;
  /** Settles (or re-opens, with PENDING) a request by hand and calls back as the mode says. */
  decide(referenceId: string, status: FakeStatus, reason?: FakeReason): void;
  /** Resolves once `count` callbacks were sent (answered or not); rejects after `timeoutMs`. */
  waitForCallbacks(count: number, timeoutMs?: number): Promise<SentCallback[]>;
  close(): Promise<void>;
}

/** Minor-unit exponent of the currencies the fake knows (others: 2). */
const DECIMALS: Readonly<Record<string, number>> = {
  RWF: 0,
  UGX: 0,
  EUR: 2,
  GHS: 2,
  ZMW: 2,
  XOF: 0,
  XAF: 0,
  GNF: 0,
  SZL: 2,
};

/** A UUID v4 (version nibble 4, RFC 4122 variant), as MoMo requires for X-Reference-Id. */
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

const TOKEN_PATH = '/collection/token/';
const REQUEST_TO_PAY_PATH = '/collection/v1_0/requesttopay';
const DISBURSEMENT_TOKEN_PATH = '/disbursement/token/';
const TRANSFER_PATH = '/disbursement/v1_0/transfer';
/** A placeholder party a refund's body is checked with (a refund names none). */
const REFUND_PARTY = { partyIdType: 'MSISDN', partyId: '250780000000' };
/** MoMo's refund calls, V1 and V2 (the same request). */
export const MOMO_REFUND_PATHS = ['/disbursement/v1_0/refund', '/disbursement/v2_0/refund'] as const;

/** The MoMo products the fake serves. */
type Product = 'collection' | 'disbursement';

interface Answer {
  status: number;
  body: unknown;
}

/** MoMo's error answer `{code, message}` (a `message` alone when MoMo gives no code). */
function error(status: number, message: string, code?: string): Answer {
  return { status, body: code ? { code, message } : { message } };
}

/** True when `amount` is a positive decimal string with at most `decimals` decimals. */
function isAmount(amount: unknown, decimals: number): amount is string {
  if (typeof amount !== 'string') return false;
  const match = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/.exec(amount);
  if (!match) return false;
  if ((match[2] ?? '').length > decimals) return false;
  return Number(amount) > 0;
}

/** True when `text` is a payerMessage/payeeNote MoMo takes: 1 to 160 characters, no apostrophe. */
function isText(text: unknown): text is string {
  return typeof text === 'string' && text.trim().length > 0 && text.length <= 160 && !/['\u2019]/.test(text);
}

/** Starts the fake on 127.0.0.1 (see the module's comment). */
export async function startMomoFake(options: MomoFakeOptions = {}): Promise<MomoFake> {
  const apiUser = options.apiUser ?? '0b6bd5f4-5b1e-4c9f-9d3e-2d1c8f0a7e11';
  const apiKey = options.apiKey ?? 'momo-api-key';
  const subscriptionKey = options.subscriptionKey ?? 'momo-subscription-key';
  const credentials: Record<Product, { apiUser: string; apiKey: string; subscriptionKey: string }> = {
    collection: { apiUser, apiKey, subscriptionKey },
    disbursement: {
      apiUser: options.disbursementApiUser ?? '7c1e2d3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f',
      apiKey: options.disbursementApiKey ?? 'momo-disbursement-api-key',
      subscriptionKey: options.disbursementSubscriptionKey ?? 'momo-disbursement-subscription-key',
    },
  };
  const environments = options.environments ?? DEFAULT_ENVIRONMENTS;
  const tokenLifetimeSeconds = options.tokenLifetimeSeconds ?? 3600;
  const approvalDelayMs = options.approvalDelayMs ?? 100;
  const delayedApprovalMs = options.delayedApprovalMs ?? 1_000;
  let callbackMode: FakeCallbackMode = options.callbacks ?? 'once';
  let callbackMethod: 'POST' | 'PUT' = options.callbackMethod ?? 'POST';

  const requests: FakeRequest[] = [];
  const transactions = new Map<string, FakeRequestToPay>();
  const transfers = new Map<string, FakeTransfer>();
  const refunds = new Map<string, FakeRefund>();
  let refundMode: 'auto' | 'hold' = 'auto';
  const collectionAdjustments = new Map<string, number>();
  const balances = new Map<string, number>(
    Object.keys(environments).map((environment) => [environment, options.disbursementBalance ?? 1_000_000_000]),
  );
  const inactiveHolders = new Set<string>();
  const tokens = new Map<string, { expiresAt: number; product: Product }>();
  const sentCallbacks = new SentLog<SentCallback>();
  const faults = new FaultQueue((path) => /^\/(collection|disbursement)\/token/.test(path));
  const timers = new FakeTimers();
  let tokensIssued = 0;

  const noteCallback = (sent: SentCallback) => sentCallbacks.note(sent);

  /**
   * The documented result body of a request to pay or a transfer (the status answer and the callback body), in
   * MoMo's order of fields: `payer` or `payee`, whichever it has.
   */
  function resultOf(item: FakeRequestToPay | FakeTransfer | FakeRefund): Record<string, unknown> {
    return {
      amount: item.amount,
      currency: item.currency,
      ...(item.financialTransactionId ? { financialTransactionId: item.financialTransactionId } : {}),
      externalId: item.externalId,
      ...('payer' in item ? { payer: item.payer } : { payee: item.payee }),
      payerMessage: item.payerMessage,
      payeeNote: item.payeeNote,
      status: item.status,
      ...(item.reason !== null ? { reason: item.reason } : {}),
    };
  }

  /** Sends `result`, the body of a settled request or transfer, to its X-Callback-Url, as the mode says. */
  function callBack(callbackUrl: string | null, result: Record<string, unknown>): void {
    if (callbackMode === 'off' || !callbackUrl) return;
    const url = callbackUrl;
    const method = callbackMethod;
    const raw = JSON.stringify(result);
    const send = () =>
      void postCallback(url, raw, method).then((came) => noteCallback({ url, method, body: raw, ...came }));
    send();
    if (callbackMode === 'twice') timers.later(50, send);
  }

  function decide(transaction: FakeRequestToPay, status: FakeStatus, reason?: FakeReason): void {
    transaction.status = status;
    transaction.reason = status === 'FAILED' ? (reason ?? null) : null;
    if (status === 'SUCCESSFUL') transaction.financialTransactionId ??= String(randomInt(100_000_000, 999_999_999));
    if (status !== 'PENDING') callBack(transaction.callbackUrl, resultOf(transaction));
  }

  /** What the payer's number does when the request is made. */
  function scheduleDecision(transaction: FakeRequestToPay): void {
    const suffix = transaction.payer.partyId.slice(-6);
    const failures: Record<string, string> = {
      [MOMO_FAKE_NUMBERS.failed]: 'INTERNAL_PROCESSING_ERROR',
      [MOMO_FAKE_NUMBERS.rejected]: 'APPROVAL_REJECTED',
      [MOMO_FAKE_NUMBERS.expired]: 'EXPIRED',
      [MOMO_FAKE_NUMBERS.notFound]: 'PAYER_NOT_FOUND',
    };
    if (suffix === MOMO_FAKE_NUMBERS.ongoing) return;
    const delay = suffix === MOMO_FAKE_NUMBERS.delayed ? delayedApprovalMs : approvalDelayMs;
    timers.later(delay, () => {
      if (transaction.status !== 'PENDING') return;
      const reason = failures[suffix];
      if (reason) decide(transaction, 'FAILED', reason);
      else decide(transaction, 'SUCCESSFUL');
    });
  }

  /** Checks the API gateway's subscription key of `product`. */
  function checkSubscription(headers: http.IncomingHttpHeaders, product: Product): Answer | undefined {
    const key = headers['ocp-apim-subscription-key'];
    if (typeof key !== 'string' || key === '') {
      return {
        status: 401,
        body: {
          statusCode: 401,
          message:
            'Access denied due to missing subscription key. Make sure to include subscription key when making requests to an API.',
        },
      };
    }
    if (key !== credentials[product].subscriptionKey) {
      return {
        status: 401,
        body: {
          statusCode: 401,
          message:
            'Access denied due to invalid subscription key. Make sure to provide a valid key for an active subscription.',
        },
      };
    }
    return undefined;
  }

  function issueToken(headers: http.IncomingHttpHeaders, raw: string, product: Product): Answer {
    if (raw.length > 0) return error(400, 'The token request takes no body.');
    const { apiUser: user, apiKey: key } = credentials[product];
    const expected = `Basic ${Buffer.from(`${user}:${key}`).toString('base64')}`;
    if (headers.authorization !== expected) return { status: 401, body: { error: 'login_failed' } };
    const token = randomBytes(24).toString('base64url');
    tokens.set(token, { expiresAt: Date.now() + tokenLifetimeSeconds * 1000, product });
    tokensIssued += 1;
    return { status: 200, body: { access_token: token, token_type: 'access_token', expires_in: tokenLifetimeSeconds } };
  }

  /** Checks the Bearer token (of `product`) and X-Target-Environment; the environment when they are right. */
  function authorise(headers: http.IncomingHttpHeaders, product: Product): { environment: string } | Answer {
    const match = /^Bearer (\S+)$/.exec(headers.authorization ?? '');
    const token = match ? tokens.get(match[1] as string) : undefined;
    if (token === undefined || token.expiresAt <= Date.now() || token.product !== product)
      return { status: 401, body: { statusCode: 401, message: 'Access token is missing, invalid or expired.' } };
    const environment = headers['x-target-environment'];
    if (typeof environment !== 'string' || environment === '') return error(400, 'X-Target-Environment is required.');
    if (!Object.prototype.hasOwnProperty.call(environments, environment))
      return error(500, 'Access to target environment is forbidden.', 'NOT_ALLOWED_TARGET_ENVIRONMENT');
    return { environment };
  }

  /** A request to pay or a transfer as MoMo takes it (the party is the payer's or the payee's), or MoMo's refusal. */
  interface MoneyRequest {
    referenceId: string;
    amount: string;
    currency: string;
    externalId: string;
    party: { partyIdType: string; partyId: string };
    payerMessage: string;
    payeeNote: string;
    callbackUrl: string | null;
  }

  /** Reads the headers and body of a request to pay (`payer`) or a transfer (`payee`) as MoMo checks them. */
  function readMoneyRequest(
    environment: string,
    headers: http.IncomingHttpHeaders,
    body: unknown,
    partyField: 'payer' | 'payee',
    existing: ReadonlyMap<string, unknown>,
  ): MoneyRequest | Answer {
    const referenceId = headers['x-reference-id'];
    if (typeof referenceId !== 'string' || !UUID_V4.test(referenceId))
      return error(400, 'X-Reference-Id must be a UUID version 4.');
    const callbackUrl = headers['x-callback-url'];
    if (callbackUrl !== undefined) {
      if (typeof callbackUrl !== 'string' || !/^https?:\/\//.test(callbackUrl))
        return error(400, 'X-Callback-Url is not a valid URL.');
    }
    const key = referenceId.toLowerCase();
    if (existing.has(key))
      return error(409, 'Duplicated reference id. Creation of resource failed.', 'RESOURCE_ALREADY_EXIST');
    const given = (body ?? {}) as Record<string, unknown>;
    const party = (given[partyField] ?? {}) as Record<string, unknown>;
    const currency = environments[environment] as string;
    if (given.currency !== currency)
      return error(400, `Currency not supported: ${environment} takes ${currency}.`, 'INVALID_CURRENCY');
    if (!isAmount(given.amount, DECIMALS[currency] ?? 2))
      return error(400, "amount must be a positive decimal string with the currency's decimals.");
    if (typeof given.externalId !== 'string' || given.externalId === '') return error(400, 'externalId is required.');
    if (
      party.partyIdType !== 'MSISDN' ||
      typeof party.partyId !== 'string' ||
      !/^[1-9][0-9]{5,14}$/.test(party.partyId)
    ) {
      return error(400, `${partyField} must be an MSISDN of digits, with its country code and no +.`);
    }
    if (!isText(given.payerMessage) || !isText(given.payeeNote))
      return error(400, 'payerMessage and payeeNote take 1 to 160 characters, without special characters.');
    return {
      referenceId: key,
      amount: given.amount,
      currency,
      externalId: given.externalId,
      party: { partyIdType: 'MSISDN', partyId: party.partyId },
      payerMessage: given.payerMessage,
      payeeNote: given.payeeNote,
      callbackUrl: typeof callbackUrl === 'string' ? callbackUrl : null,
    };
  }

  /** What a new request to pay or transfer holds besides its request: pending, no reason, no transaction id yet. */
  const fresh = { status: 'PENDING', reason: null, financialTransactionId: null } as const;

  function requestToPay(environment: string, headers: http.IncomingHttpHeaders, body: unknown): Answer {
    const read = readMoneyRequest(environment, headers, body, 'payer', transactions);
    if ('status' in read) return read;
    const { party, ...rest } = read;
    const transaction: FakeRequestToPay = { ...rest, ...fresh, environment, payer: party };
    transactions.set(read.referenceId, transaction);
    scheduleDecision(transaction);
    return { status: 202, body: undefined };
  }

  /** `transfer.amount` (a decimal string in major units) in minor units. */
  function minorOf(transfer: Pick<FakeTransfer, 'amount' | 'currency'>): number {
    const decimals = DECIMALS[transfer.currency] ?? 2;
    const [whole, fraction = ''] = transfer.amount.split('.');
    return Number(`${whole}${fraction.padEnd(decimals, '0')}`);
  }

  /** `GET /…/account/balance`: `minor` units of the environment's currency as MoMo writes them (major units). */
  function balanceAnswer(environment: string, minor: number): Answer {
    const currency = environments[environment] as string;
    const decimals = DECIMALS[currency] ?? 2;
    const sign = minor < 0 ? '-' : '';
    const units = Math.abs(minor);
    const availableBalance =
      decimals === 0
        ? `${sign}${units}`
        : `${sign}${Math.trunc(units / 10 ** decimals)}.${String(units % 10 ** decimals).padStart(decimals, '0')}`;
    return { status: 200, body: { availableBalance, currency } };
  }

  function decideTransfer(transfer: FakeTransfer, status: FakeStatus, reason?: FakeReason): void {
    const balance = balances.get(transfer.environment) ?? 0;
    if (status === 'SUCCESSFUL' && transfer.status !== 'SUCCESSFUL') {
      if (balance < minorOf(transfer)) return decideTransfer(transfer, 'FAILED', 'NOT_ENOUGH_FUNDS');
      balances.set(transfer.environment, balance - minorOf(transfer));
      transfer.financialTransactionId ??= String(randomInt(100_000_000, 999_999_999));
    }
    transfer.status = status;
    transfer.reason = status === 'FAILED' ? (reason ?? null) : null;
    if (status !== 'PENDING') callBack(transfer.callbackUrl, resultOf(transfer));
  }

  function transfer(environment: string, headers: http.IncomingHttpHeaders, body: unknown): Answer {
    const read = readMoneyRequest(environment, headers, body, 'payee', transfers);
    if ('status' in read) return read;
    const { party, ...rest } = read;
    const created: FakeTransfer = { ...rest, ...fresh, environment, payee: party, reversed: false };
    transfers.set(read.referenceId, created);
    const suffix = party.partyId.slice(-6);
    if (suffix !== MOMO_FAKE_NUMBERS.ongoing) {
      const failures: Record<string, string> = {
        [MOMO_FAKE_NUMBERS.failed]: 'INTERNAL_PROCESSING_ERROR',
        [MOMO_FAKE_NUMBERS.notFound]: 'PAYEE_NOT_FOUND',
      };
      timers.later(suffix === MOMO_FAKE_NUMBERS.delayed ? delayedApprovalMs : approvalDelayMs, () => {
        if (created.status !== 'PENDING') return;
        const reason = failures[suffix];
        decideTransfer(created, reason ? 'FAILED' : 'SUCCESSFUL', reason);
      });
    }
    return { status: 202, body: undefined };
  }

  /** Minor units of the request to pay `referenceId` already refunded or being refunded. */
  function refundedOf(referenceId: string): number {
    return [...refunds.values()]
      .filter((r) => r.referenceIdToRefund === referenceId && r.status !== 'FAILED')
      .reduce((sum, r) => sum + minorOf(r), 0);
  }

  function decideRefund(refund: FakeRefund, status: FakeStatus, reason?: FakeReason): void {
    const balance = balances.get(refund.environment) ?? 0;
    if (status === 'SUCCESSFUL' && refund.status !== 'SUCCESSFUL') {
      if (balance < minorOf(refund)) return decideRefund(refund, 'FAILED', 'NOT_ENOUGH_FUNDS');
      balances.set(refund.environment, balance - minorOf(refund));
      refund.financialTransactionId ??= String(randomInt(100_000_000, 999_999_999));
    }
    refund.status = status;
    refund.reason = status === 'FAILED' ? (reason ?? null) : null;
    if (status !== 'PENDING') callBack(refund.callbackUrl, resultOf(refund));
  }

  /** What MoMo makes of a refund once it processes it (see the module's comment). */
  function settleRefund(refund: FakeRefund): void {
    if (refund.status !== 'PENDING') return;
    const original = transactions.get(refund.referenceIdToRefund);
    if (!original || original.environment !== refund.environment)
      return decideRefund(refund, 'FAILED', 'RESOURCE_NOT_FOUND');
    if (original.status !== 'SUCCESSFUL') return decideRefund(refund, 'FAILED', 'NOT_ALLOWED');
    const others = refundedOf(refund.referenceIdToRefund) - minorOf(refund);
    if (others + minorOf(refund) > minorOf(original)) return decideRefund(refund, 'FAILED', 'NOT_ALLOWED');
    decideRefund(refund, 'SUCCESSFUL');
  }

  function refund(environment: string, path: string, headers: http.IncomingHttpHeaders, body: unknown): Answer {
    const referenceIdToRefund = ((body ?? {}) as Record<string, unknown>).referenceIdToRefund;
    if (typeof referenceIdToRefund !== 'string' || !UUID_V4.test(referenceIdToRefund))
      return error(400, 'referenceIdToRefund must be the UUID of the request to pay refunded.');
    const original = transactions.get(referenceIdToRefund.toLowerCase());
    // A refund names no party: the money goes back to the refunded request's payer (checked as a transfer's payee).
    const given: Record<string, unknown> = { ...(body as Record<string, unknown>), payee: REFUND_PARTY };
    // The texts are optional in a refund: MoMo's own sample sends them, a missing one is taken.
    given.payerMessage ??= 'Refund';
    given.payeeNote ??= 'Refund';
    const read = readMoneyRequest(environment, headers, given, 'payee', refunds);
    if ('status' in read) return read;
    const { party: _party, ...rest } = read;
    const created: FakeRefund = {
      ...rest,
      ...fresh,
      environment,
      payee: original?.payer ?? null,
      referenceIdToRefund: referenceIdToRefund.toLowerCase(),
      path,
    };
    refunds.set(read.referenceId, created);
    if (refundMode === 'auto') timers.later(approvalDelayMs, () => settleRefund(created));
    return { status: 202, body: undefined };
  }

  function refundStatus(environment: string, referenceId: string): Answer {
    const found = refunds.get(referenceId.toLowerCase());
    if (!found || found.environment !== environment)
      return error(404, 'Requested resource was not found.', 'RESOURCE_NOT_FOUND');
    return { status: 200, body: resultOf(found) };
  }

  function transferStatus(environment: string, referenceId: string): Answer {
    const found = transfers.get(referenceId.toLowerCase());
    if (!found || found.environment !== environment)
      return error(404, 'Requested resource was not found.', 'RESOURCE_NOT_FOUND');
    return { status: 200, body: resultOf(found) };
  }

  /** The Disbursement product's calls once the subscription key and token are checked. */
  function disbursement(
    method: string,
    path: string,
    environment: string,
    headers: http.IncomingHttpHeaders,
    body: unknown,
  ): Answer {
    if (method === 'POST' && path === TRANSFER_PATH) return transfer(environment, headers, body);
    if (method === 'POST' && (MOMO_REFUND_PATHS as readonly string[]).includes(path))
      return refund(environment, path, headers, body);
    const refundOf = method === 'GET' ? /^\/disbursement\/v1_0\/refund\/([^/]+)$/.exec(path) : null;
    if (refundOf) return refundStatus(environment, decodeURIComponent(refundOf[1] as string));
    const statusOf = method === 'GET' ? /^\/disbursement\/v1_0\/transfer\/([^/]+)$/.exec(path) : null;
    if (statusOf) return transferStatus(environment, decodeURIComponent(statusOf[1] as string));
    const holder =
      method === 'GET' ? /^\/disbursement\/v1_0\/accountholder\/msisdn\/([^/]+)\/active$/.exec(path) : null;
    if (holder) {
      const msisdn = decodeURIComponent(holder[1] as string);
      if (!/^[1-9][0-9]{5,14}$/.test(msisdn)) return error(400, 'accountHolderId is not a valid MSISDN.');
      const active = !msisdn.endsWith(MOMO_FAKE_NUMBERS.notFound) && !inactiveHolders.has(msisdn);
      return { status: 200, body: { result: active } };
    }
    if (method === 'GET' && path === '/disbursement/v1_0/account/balance')
      return balanceAnswer(environment, balances.get(environment) ?? 0);
    return { status: 404, body: { statusCode: 404, message: 'Resource not found' } };
  }

  function status(environment: string, referenceId: string): Answer {
    const transaction = transactions.get(referenceId.toLowerCase());
    if (!transaction || transaction.environment !== environment)
      return error(404, 'Requested resource was not found.', 'RESOURCE_NOT_FOUND');
    return { status: 200, body: resultOf(transaction) };
  }

  /** The control API for other processes (`/_fake/...`). */
  function control(method: string, path: string, body: unknown): Answer {
    const given = (body ?? {}) as Record<string, unknown>;
    if (method === 'POST' && path === '/_fake/mode') {
      fake.setMode(given as { callbacks?: FakeCallbackMode; callbackMethod?: 'POST' | 'PUT' });
      return { status: 204, body: undefined };
    }
    if (method === 'POST' && path === '/_fake/faults') {
      fake.injectFaults(given.kind as FakeFaultKind, Number(given.count ?? 1), given.paths as string[] | undefined);
      return { status: 204, body: undefined };
    }
    if (method === 'GET' && path === '/_fake/requesttopay') return { status: 200, body: [...transactions.values()] };
    const decided = /^\/_fake\/requesttopay\/([^/]+)$/.exec(path);
    if (method === 'POST' && decided) {
      const reference = decodeURIComponent(decided[1] as string);
      if (!transactions.has(reference.toLowerCase())) return error(404, 'no such request to pay', 'RESOURCE_NOT_FOUND');
      fake.decide(reference, given.status as FakeStatus, given.reason as FakeReason | undefined);
      return { status: 204, body: undefined };
    }
    return { status: 404, body: { error: 'no such control' } };
  }

  function route(method: string, path: string, headers: http.IncomingHttpHeaders, raw: string, body: unknown): Answer {
    if (path.startsWith('/_fake/')) return control(method, path, body);
    if (path.startsWith('/disbursement/')) {
      const refused = checkSubscription(headers, 'disbursement');
      if (refused) return refused;
      if (method === 'POST' && (path === DISBURSEMENT_TOKEN_PATH || path === '/disbursement/token'))
        return issueToken(headers, raw, 'disbursement');
      const auth = authorise(headers, 'disbursement');
      if (!('environment' in auth)) return auth;
      return disbursement(method, path, auth.environment, headers, body);
    }
    const isToken = method === 'POST' && (path === TOKEN_PATH || path === '/collection/token');
    const isRequestToPay = method === 'POST' && path === REQUEST_TO_PAY_PATH;
    const isBalance = method === 'GET' && path === '/collection/v1_0/account/balance';
    const statusOf = method === 'GET' ? /^\/collection\/v1_0\/requesttopay\/([^/]+)$/.exec(path) : null;
    if (!isToken && !isRequestToPay && !statusOf && !isBalance)
      return { status: 404, body: { statusCode: 404, message: 'Resource not found' } };
    const refused = checkSubscription(headers, 'collection');
    if (refused) return refused;
    if (isToken) return issueToken(headers, raw, 'collection');
    const auth = authorise(headers, 'collection');
    if (!('environment' in auth)) return auth;
    if (isRequestToPay) return requestToPay(auth.environment, headers, body);
    if (isBalance) return balanceAnswer(auth.environment, fake.collectionBalance(auth.environment));
    return status(auth.environment, decodeURIComponent((statusOf as RegExpExecArray)[1] as string));
  }

  const server = await startFakeServer({
    port: options.port,
    faults,
    timers,
    replacements: {
      error500: error(500, 'Internal server error', 'INTERNAL_PROCESSING_ERROR'),
      undocumented: { result: 'OK', note: 'not a MoMo answer' },
    },
    handle({ method, path, headers, raw, body }) {
      requests.push({ method, path, headers, raw, body });
      return route(method, path, headers, raw, body);
    },
  });

  const fake: MomoFake = {
    url: server.url,
    requests,
    transactions,
    transfers,
    inactiveHolders,
    callbacks: sentCallbacks.sent,
    get tokensIssued() {
      return tokensIssued;
    },
    refunds,
    decideRefund(referenceId, status, reason) {
      const found = refunds.get(referenceId.toLowerCase());
      if (!found) throw new Error(`the fake has no refund ${referenceId}`);
      decideRefund(found, status, reason);
    },
    setMode(mode) {
      if (mode.callbacks) callbackMode = mode.callbacks;
      if (mode.callbackMethod) callbackMethod = mode.callbackMethod;
      if (mode.refunds) refundMode = mode.refunds;
    },
    injectFaults(kind, count, paths) {
      faults.inject(kind, count, paths);
    },
    collectionBalance(environment) {
      const collected = [...transactions.values()]
        .filter((t) => t.environment === environment && t.status === 'SUCCESSFUL')
        .reduce((sum, t) => sum + minorOf(t), 0);
      return collected + (collectionAdjustments.get(environment) ?? 0);
    },
    adjustCollectionBalance(environment, minor) {
      collectionAdjustments.set(environment, (collectionAdjustments.get(environment) ?? 0) + minor);
    },
    balance(environment) {
      return balances.get(environment) ?? 0;
    },
    decideTransfer(referenceId, status, reason) {
      const found = transfers.get(referenceId.toLowerCase());
      if (!found) throw new Error(`the fake has no transfer ${referenceId}`);
      decideTransfer(found, status, reason);
    },
    reverse(referenceId) {
      const found = transfers.get(referenceId.toLowerCase());
      if (!found || found.status !== 'SUCCESSFUL' || found.reversed)
        throw new Error(`the fake has no paid, unreversed transfer ${referenceId}`);
      found.reversed = true;
      balances.set(found.environment, (balances.get(found.environment) ?? 0) + minorOf(found));
    },
    expireTokens() {
      for (const token of tokens.values()) token.expiresAt = 0;
    },
    decide(referenceId, status, reason) {
      const transaction = transactions.get(referenceId.toLowerCase());
      if (!transaction) throw new Error(`the fake has no request to pay ${referenceId}`);
      decide(transaction, status, reason);
    },
    waitForCallbacks(count, timeoutMs = 5_000) {
      return sentCallbacks.waitFor(count, timeoutMs);
    },
    close: () => server.close(),
  };
  return fake;
}
