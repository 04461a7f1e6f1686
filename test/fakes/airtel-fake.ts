/**
 * A fake of Airtel Money's collections API (the documented subset the `mobile_money_b` adapter
 * uses): a real node:http server on 127.0.0.1, usable by URL alone (a separately started service
 * is pointed at `fake.url`; Airtel calls back the `callbackUrl` given at start, as it calls the URL
 * registered on its portal). Tests steer it through the TypeScript API below or, from another
 * process, through `POST /_fake/mode`, `POST /_fake/faults` and `POST /_fake/transactions/{id}`.
 *
 * Endpoints, headers and answers as Airtel documents them:
 * - `POST /auth/oauth2/token` `{client_id, client_secret, grant_type: client_credentials}` →
 *   `{access_token, expires_in: "<seconds>", token_type: "bearer"}`; wrong credentials → 401;
 * - `POST /merchant/v1/payments/`, `GET /standard/v1/payments/{id}`, `POST /standard/v1/payments/refund`:
 *   a missing or expired Bearer token → 401; a missing `X-Country` → 400 ROUTER003, an unknown one
 *   → 400 ROUTER006; a missing `X-Currency` → 400 ROUTER119, another than the country's → 400 ROUTER112;
 *   a repeated transaction id → 400 ESB000041; an unknown id → 404 ESB000045; an MSISDN with its
 *   country code → 400 ESB000033; an amount with more decimals than the currency → 400 ESB000008.
 *
 * The customer's number decides (last three digits of the national number, {@link AIRTEL_FAKE_NUMBERS}):
 * the push is accepted (`TIP`), then after `approvalDelayMs` it is decided and called back.
 * Faults (`injectFaults`): the next N matching requests are handled (the fake acts), then answered
 * 500, never answered (a hang, until `close`), or answered with an undocumented body.
 *
 * Disbursements (B2C), with the same token and headers:
 * - `POST /standard/v2/disbursements/` (and v1) `{payee: {msisdn}, reference (4 to 64 letters and digits), pin,
 *   transaction: {amount, id, type}}`: the `pin` must decrypt (RSA PKCS#1 v1.5, the fake's own key pair, whose
 *   public half is `pinPublicKey`) to the wallet's PIN, else 400 ROUTER115; a repeated id → 400 ESB000041
 *   DP00900001017; otherwise the disbursement is made at once → 200 `{data: {transaction: {reference_id,
 *   airtel_money_id, id, status: TS}}, status: {response_code: DP00900001001, result_code: ESB000010}}`, or refused
 *   (TF) for an invalid number (DP00900001012) or a balance too short (DP00900001007);
 * - `GET /standard/v1/disbursements/{id}` (and v2) → `{data: {transaction: {id, status, message, airtel_money_id}},
 *   status}`, 404 ESB000045 DP00900001015 for an unknown id.
 * The payee's number decides as {@link AIRTEL_FAKE_PAYEES} says; `reverse` turns a paid disbursement `TR` and gives
 * its money back to the balance.
 *
 * The account's balance per country (collections in, refunds and disbursements out; `setBalance` sets it):
 * `GET /standard/v1/users/balance` with the same token and headers → 200 `{data: {balance: "<major units>", currency,
 * account_status: "Active"}, status: {code: "200", message: "SUCCESS", result_code: ESB000010, response_code:
 * DP02200000001, success: true}}`; faults apply to it as to every path.
 */
import { constants, createHmac, generateKeyPairSync, privateDecrypt, randomBytes, type KeyObject } from 'node:crypto';
import type http from 'node:http';
import { type FakeFaultKind, FaultQueue, SentLog } from './faults';
import { FakeTimers, postCallback, startFakeServer } from './server';

/** What the fake's customers do, by the last three digits of their national number (any other number approves). */
export const AIRTEL_FAKE_NUMBERS = {
  /** `TF` DP00800001007: not enough balance. */
  insufficientFunds: '101',
  /** `TF` DP00800001008: the customer refused the prompt. */
  rejected: '102',
  /** `TF` DP00800001002: wrong PIN. */
  wrongPin: '103',
  /** `TF` DP00800001029: the transaction expired. */
  expired: '104',
  /** Stays `TIP` (the customer never answers); no callback. */
  neverAnswers: '105',
  /** Becomes `TA` (ambiguous) and stays so; no callback. */
  ambiguous: '106',
  /** The push itself is refused: 400 DP00800001010 (payer barred or not registered). */
  refusedAtInitiation: '107',
} as const;

/** What the fake's disbursement payees do, by the last three digits of their national number (others are paid). */
export const AIRTEL_FAKE_PAYEES = {
  /** Refused at once, `TF` DP00900001012: invalid mobile number. */
  invalidNumber: '201',
  /** Answered DP00900001000 (ambiguous) though made; `TIP`, then paid after `approvalDelayMs`. */
  ambiguous: '206',
  /** Answered DP00900001006 (in process); stays `TIP`. */
  processing: '205',
} as const;

/** The Airtel transaction statuses the fake gives. */
export type FakeTransactionStatus = 'TS' | 'TF' | 'TIP' | 'TA' | 'TR';

/** How the fake calls back: once per decision, never, or twice (the same callback repeated). */
export type FakeCallbackMode = 'once' | 'off' | 'twice';

export type { FakeFaultKind } from './faults';

/** Start options; every one has a default. */
export interface AirtelFakeOptions {
  clientId?: string;
  clientSecret?: string;
  /** Lifetime of issued tokens, in seconds (Airtel: 180). */
  tokenLifetimeSeconds?: number;
  /** Where callbacks go (Airtel: the URL registered on its portal); null for none. */
  callbackUrl?: string | null;
  /** With callback authentication on: the private key the `hash` is made with. */
  callbackPrivateKey?: string | null;
  callbacks?: FakeCallbackMode;
  /** How long a push waits for the customer before it is decided, in milliseconds (default 100). */
  approvalDelayMs?: number;
  /** Port to listen on (default: a free one). */
  port?: number;
  /** The disbursement wallet's PIN (default `1234`). */
  disbursementPin?: string;
  /** The account's opening balance in each country, in minor units (default 10^9). */
  disbursementBalance?: number;
}

/** One request the fake got (the token endpoint's too). */
export interface FakeRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The raw body, and its JSON when it parsed. */
  raw: string;
  body: unknown;
}

/** A collection request as the fake holds it; `amount` as sent (major units). */
export interface FakeTransaction {
  id: string;
  country: string;
  currency: string;
  msisdn: string;
  amount: number;
  reference: string;
  status: FakeTransactionStatus;
  /** Set once collected (`TS`), as Airtel generates it only then. */
  airtelMoneyId: string | null;
  message: string;
  responseCode: string;
  /** The refund's own airtel_money_id once reversed. */
  refundId: string | null;
}

/** A disbursement as the fake holds it; `amount` as sent (major units). */
export interface FakeDisbursement {
  id: string;
  country: string;
  currency: string;
  msisdn: string;
  amount: number;
  status: FakeTransactionStatus;
  airtelMoneyId: string | null;
  message: string;
  responseCode: string;
}

/** One callback the fake sent: its raw body and what the receiver answered. */
export interface SentCallback {
  url: string;
  body: string;
  status?: number;
  error?: string;
}

/** A running fake. */
export interface AirtelFake {
  /** `http://127.0.0.1:{port}`: the adapter's `baseUrl`. */
  url: string;
  requests: FakeRequest[];
  transactions: ReadonlyMap<string, FakeTransaction>;
  callbacks: SentCallback[];
  /** Tokens issued so far. */
  readonly tokensIssued: number;
  /** Disbursements, by transaction id. */
  disbursements: ReadonlyMap<string, FakeDisbursement>;
  /** The public key the disbursement PIN is encrypted with: base64 DER (SPKI), as Airtel's portal gives it. */
  pinPublicKey: string;
  /** The account's balance in `country`, in minor units (what the balance enquiry answers). */
  balance(country: string): number;
  /** Sets the account's balance in `country`, in minor units (a drift our books do not know of). */
  setBalance(country: string, minor: number): void;
  /** Turns a paid disbursement `TR` (reversed) and gives its money back to the balance. */
  reverse(id: string): void;
  /** Decides a disbursement still `TIP` by hand (`TS` debits the balance). */
  decideDisbursement(id: string, status: 'TS' | 'TF'): void;
  /** Changes how it calls back, and where. */
  setMode(mode: { callbacks?: FakeCallbackMode; callbackUrl?: string | null }): void;
  /**
   * The next `count` requests whose path starts with one of `paths` (default: every API path but the token's) get
   * `kind`.
   */
  injectFaults(kind: FakeFaultKind, count: number, paths?: string[]): void;
  /** Expires every issued token now (the next API call with one answers 401). */
  expireTokens(): void;
  /** Decides a transaction by hand (`TS` gives it an airtel_money_id) and calls back as the mode says. */
  decide(id: string, status: Exclude<FakeTransactionStatus, 'TR'>): void;
  /** Resolves once `count` callbacks were sent (answered or not); rejects after `timeoutMs`. */
  waitForCallbacks(count: number, timeoutMs?: number): Promise<SentCallback[]>;
  close(): Promise<void>;
}

/**
 * Wallet currency (Airtel's `X-Currency` for the `X-Country`), national number length and the currency's decimals of
 * each country the fake serves: the countries Airtel Money's API serves (docs/providers.md#markets), written here on
 * their own rather than read from the service's table, so a row the service gets wrong is refused as Airtel would.
 */
const COUNTRIES: Readonly<Record<string, { currency: string; msisdnLength: number; decimals: number }>> = {
  RW: { currency: 'RWF', msisdnLength: 9, decimals: 0 },
  UG: { currency: 'UGX', msisdnLength: 9, decimals: 0 },
  KE: { currency: 'KES', msisdnLength: 9, decimals: 2 },
  TZ: { currency: 'TZS', msisdnLength: 9, decimals: 2 },
  ZM: { currency: 'ZMW', msisdnLength: 9, decimals: 2 },
  CG: { currency: 'XAF', msisdnLength: 9, decimals: 0 },
  MW: { currency: 'MWK', msisdnLength: 9, decimals: 2 },
  CD: { currency: 'CDF', msisdnLength: 9, decimals: 2 },
  NE: { currency: 'XOF', msisdnLength: 8, decimals: 0 },
  TD: { currency: 'XAF', msisdnLength: 8, decimals: 0 },
  GA: { currency: 'XAF', msisdnLength: 8, decimals: 0 },
  MG: { currency: 'MGA', msisdnLength: 9, decimals: 2 },
  SC: { currency: 'SCR', msisdnLength: 7, decimals: 2 },
  NG: { currency: 'NGN', msisdnLength: 10, decimals: 2 },
};

/** The decisions behind {@link AIRTEL_FAKE_NUMBERS}. */
const FAILURES: Readonly<Record<string, { responseCode: string; message: string }>> = {
  [AIRTEL_FAKE_NUMBERS.insufficientFunds]: {
    responseCode: 'DP00800001007',
    message: 'User wallet does not have enough money to cover the payable amount.',
  },
  [AIRTEL_FAKE_NUMBERS.rejected]: { responseCode: 'DP00800001008', message: 'The transaction was refused.' },
  [AIRTEL_FAKE_NUMBERS.wrongPin]: { responseCode: 'DP00800001002', message: 'Incorrect pin has been entered.' },
  [AIRTEL_FAKE_NUMBERS.expired]: { responseCode: 'DP00800001029', message: 'Transaction has been expired.' },
};

interface Answer {
  status: number;
  body: unknown;
}

/** Airtel's `status` block. */
function statusBlock(
  code: number,
  message: string,
  resultCode: string,
  responseCode?: string,
): Record<string, unknown> {
  return {
    code: String(code),
    message,
    result_code: resultCode,
    ...(responseCode ? { response_code: responseCode } : {}),
    success: code < 300,
  };
}

/** An error answer `{status: {...}}`. */
function error(code: number, message: string, resultCode: string, responseCode?: string): Answer {
  return { status: code, body: { status: statusBlock(code, message, resultCode, responseCode) } };
}

/**
 * The hash Airtel puts in an authenticated callback: Base64 HMAC-SHA256 of the `transaction` object's JSON, keyed with
 * the private key.
 */
function callbackHash(transaction: unknown, privateKey: string): string {
  return createHmac('sha256', privateKey).update(JSON.stringify(transaction)).digest('base64');
}

/** True when `amount` is a positive number with at most `decimals` decimals. */
function isAmount(amount: unknown, decimals: number): amount is number {
  if (typeof amount !== 'number' || !Number.isFinite(amount) || amount <= 0) return false;
  const [, fraction = ''] = String(amount).split('.');
  return !String(amount).includes('e') && fraction.length <= decimals;
}

/**
 * `ciphertext` (base64) decrypted with `key` and PKCS#1 v1.5 type 2 padding removed by hand (Node refuses that
 * padding for private decryption since CVE-2023-46809); undefined when it is not such a ciphertext.
 */
function decryptPkcs1(ciphertext: string, key: KeyObject): string | undefined {
  let block: Buffer;
  try {
    block = privateDecrypt({ key, padding: constants.RSA_NO_PADDING }, Buffer.from(ciphertext, 'base64'));
  } catch {
    return undefined;
  }
  const end = block.indexOf(0, 2);
  if (block[0] !== 0 || block[1] !== 2 || end < 10) return undefined;
  return block.subarray(end + 1).toString('utf8');
}

/** Starts the fake on 127.0.0.1 (see the module's comment). */
export async function startAirtelFake(options: AirtelFakeOptions = {}): Promise<AirtelFake> {
  const clientId = options.clientId ?? 'airtel-client-id';
  const clientSecret = options.clientSecret ?? 'airtel-client-secret';
  const tokenLifetimeSeconds = options.tokenLifetimeSeconds ?? 180;
  const approvalDelayMs = options.approvalDelayMs ?? 100;
  let callbackUrl = options.callbackUrl ?? null;
  let callbackMode: FakeCallbackMode = options.callbacks ?? 'once';
  const privateKey = options.callbackPrivateKey ?? null;

  const requests: FakeRequest[] = [];
  const transactions = new Map<string, FakeTransaction>();
  const disbursements = new Map<string, FakeDisbursement>();
  const pin = options.disbursementPin ?? '1234';
  const pinKeys = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const balances = new Map<string, number>(
    Object.keys(COUNTRIES).map((country) => [country, options.disbursementBalance ?? 1_000_000_000]),
  );
  const tokens = new Map<string, number>();
  const sentCallbacks = new SentLog<SentCallback>();
  const faults = new FaultQueue((path) => path === '/auth/oauth2/token');
  const timers = new FakeTimers();
  let tokensIssued = 0;

  const noteCallback = (sent: SentCallback) => sentCallbacks.note(sent);

  /** `amount` (major units) of `country`'s currency in minor units. */
  function minorOf(amount: number, country: string): number {
    return Math.round(amount * 10 ** (COUNTRIES[country] as (typeof COUNTRIES)[string]).decimals);
  }

  /** Sends the callback of `transaction`'s decision, as the mode says. */
  function callBack(transaction: FakeTransaction): void {
    if (callbackMode === 'off' || !callbackUrl) return;
    const body: Record<string, unknown> = {
      transaction: {
        id: transaction.id,
        message: transaction.message,
        status_code: transaction.status,
        ...(transaction.airtelMoneyId ? { airtel_money_id: transaction.airtelMoneyId } : {}),
      },
    };
    if (privateKey) body.hash = callbackHash(body.transaction, privateKey);
    const raw = JSON.stringify(body);
    const url = callbackUrl;
    const send = () => void postCallback(url, raw).then((came) => noteCallback({ url, body: raw, ...came }));
    send();
    if (callbackMode === 'twice') timers.later(50, send);
  }

  function decide(
    transaction: FakeTransaction,
    status: Exclude<FakeTransactionStatus, 'TR'>,
    failure?: { responseCode: string; message: string },
  ): void {
    if (status === 'TS' && transaction.status !== 'TS')
      balances.set(
        transaction.country,
        (balances.get(transaction.country) ?? 0) + minorOf(transaction.amount, transaction.country),
      );
    transaction.status = status;
    if (status === 'TS') {
      transaction.airtelMoneyId ??= `MP${Date.now().toString(36).toUpperCase()}.${randomBytes(3).toString('hex').toUpperCase()}`;
      transaction.responseCode = 'DP00800001001';
      transaction.message = `Paid ${transaction.currency} ${transaction.amount} to FAKE MERCHANT, Trans ID ${transaction.airtelMoneyId}.`;
    } else if (status === 'TF') {
      transaction.responseCode = failure?.responseCode ?? 'DP00800001008';
      transaction.message = failure?.message ?? 'The transaction was refused.';
    } else if (status === 'TA') {
      transaction.responseCode = 'DP00800001000';
      transaction.message = 'Transaction is still processing and is in ambiguous state.';
    } else {
      transaction.responseCode = 'DP00800001006';
      transaction.message = 'Transaction in pending state. Please check after sometime.';
    }
    if (status === 'TS' || status === 'TF') callBack(transaction);
  }

  /** The transaction `id` if it was made in `country`. */
  function find(id: string, country: string): FakeTransaction | undefined {
    const transaction = transactions.get(id);
    return transaction && transaction.country === country ? transaction : undefined;
  }

  function issueToken(body: unknown): Answer {
    const given = (body ?? {}) as Record<string, unknown>;
    if (
      given.client_id !== clientId ||
      given.client_secret !== clientSecret ||
      given.grant_type !== 'client_credentials'
    ) {
      return { status: 401, body: { error: 'invalid_client', error_description: 'Client authentication failed' } };
    }
    const token = randomBytes(18).toString('base64url');
    tokens.set(token, Date.now() + tokenLifetimeSeconds * 1000);
    tokensIssued += 1;
    return {
      status: 200,
      body: { access_token: token, expires_in: String(tokenLifetimeSeconds), token_type: 'bearer' },
    };
  }

  /** Checks the Bearer token and the X-Country / X-Currency headers; the country when they are right. */
  function authorise(headers: http.IncomingHttpHeaders): { country: string } | Answer {
    const match = /^Bearer (\S+)$/.exec(headers.authorization ?? '');
    const expiresAt = match ? tokens.get(match[1] as string) : undefined;
    if (expiresAt === undefined || expiresAt <= Date.now())
      return {
        status: 401,
        body: { error: 'invalid_token', error_description: 'Access token is missing, invalid or expired' },
      };
    const country = headers['x-country'];
    if (typeof country !== 'string' || country === '')
      return error(400, 'Mandatory parameters are missing either in the header or body.', 'ROUTER003');
    const served = COUNTRIES[country];
    if (!served) return error(400, 'Invalid country code provided.', 'ROUTER006');
    const currency = headers['x-currency'];
    if (typeof currency !== 'string' || currency === '') return error(400, 'Invalid/Missing Currency.', 'ROUTER119');
    if (currency !== served.currency) return error(400, 'Invalid currency provided.', 'ROUTER112');
    return { country };
  }

  function initiate(country: string, body: unknown): Answer {
    const served = COUNTRIES[country] as (typeof COUNTRIES)[string];
    const given = (body ?? {}) as {
      reference?: unknown;
      subscriber?: Record<string, unknown>;
      transaction?: Record<string, unknown>;
    };
    const subscriber = given.subscriber ?? {};
    const tx = given.transaction ?? {};
    if (
      typeof given.reference !== 'string' ||
      typeof subscriber.msisdn !== 'string' ||
      typeof tx.id !== 'string' ||
      tx.id.length === 0
    ) {
      return error(400, 'Mandatory parameters are missing either in the header or body.', 'ROUTER003');
    }
    if ((subscriber.country ?? country) !== country || (tx.country ?? country) !== country)
      return error(400, 'Invalid country code provided.', 'ROUTER006');
    if (
      (subscriber.currency ?? served.currency) !== served.currency ||
      (tx.currency ?? served.currency) !== served.currency
    )
      return error(400, 'Invalid currency provided.', 'ROUTER112');
    if (!new RegExp(`^[0-9]{${served.msisdnLength}}$`).test(subscriber.msisdn)) {
      return error(400, `Invalid MSISDN Length. MSISDN Length should be ${served.msisdnLength}`, 'ESB000033');
    }
    if (!isAmount(tx.amount, served.decimals)) return error(400, 'Field validation.', 'ESB000008');
    if (transactions.has(tx.id))
      return error(400, 'Transaction with External Transaction ID already exists.', 'ESB000041');
    const suffix = subscriber.msisdn.slice(-3);
    if (suffix === AIRTEL_FAKE_NUMBERS.refusedAtInitiation) {
      return error(
        400,
        'Payee is already initiated for churn or barred or not registered on Airtel Money platform.',
        'ESB000011',
        'DP00800001010',
      );
    }
    const transaction: FakeTransaction = {
      id: tx.id,
      country,
      currency: served.currency,
      msisdn: subscriber.msisdn,
      amount: tx.amount,
      reference: given.reference,
      status: 'TIP',
      airtelMoneyId: null,
      message: 'Transaction in pending state. Please check after sometime.',
      responseCode: 'DP00800001006',
      refundId: null,
    };
    transactions.set(transaction.id, transaction);
    if (suffix !== AIRTEL_FAKE_NUMBERS.neverAnswers) {
      timers.later(approvalDelayMs, () => {
        if (transaction.status !== 'TIP') return;
        if (suffix === AIRTEL_FAKE_NUMBERS.ambiguous) decide(transaction, 'TA');
        else if (FAILURES[suffix]) decide(transaction, 'TF', FAILURES[suffix]);
        else decide(transaction, 'TS');
      });
    }
    return {
      status: 200,
      body: {
        data: { transaction: { id: transaction.id, status: 'SUCCESS' } },
        status: statusBlock(200, 'SUCCESS', 'ESB000010', 'DP00800001006'),
      },
    };
  }

  function enquire(country: string, id: string): Answer {
    const transaction = find(id, country);
    if (!transaction)
      return error(404, 'No Transaction Found With Provided Transaction Id.', 'ESB000045', 'DP00800001025');
    const failed = transaction.status === 'TF';
    return {
      status: 200,
      body: {
        data: {
          transaction: {
            ...(transaction.airtelMoneyId ? { airtel_money_id: transaction.airtelMoneyId } : {}),
            id: transaction.id,
            message: transaction.message,
            status: transaction.status,
          },
        },
        status: {
          code: '200',
          message: failed ? 'FAILED' : 'SUCCESS',
          result_code: 'ESB000010',
          response_code: transaction.responseCode,
          success: !failed,
        },
      },
    };
  }

  function refund(country: string, body: unknown): Answer {
    const airtelMoneyId = ((body ?? {}) as { transaction?: { airtel_money_id?: unknown } }).transaction
      ?.airtel_money_id;
    if (typeof airtelMoneyId !== 'string')
      return error(400, 'Mandatory parameters are missing either in the header or body.', 'ROUTER003');
    const transaction = [...transactions.values()].find(
      (t) => t.airtelMoneyId === airtelMoneyId && t.country === country,
    );
    if (!transaction)
      return error(404, 'No Transaction Found With Provided Transaction Id.', 'ESB000045', 'DP00800001025');
    if (transaction.status !== 'TS')
      return error(400, `Transaction cannot be refunded (${transaction.status}).`, 'ESB000011', 'DP00800001008');
    transaction.status = 'TR';
    balances.set(country, (balances.get(country) ?? 0) - minorOf(transaction.amount, country));
    transaction.refundId = `RF${randomBytes(5).toString('hex').toUpperCase()}`;
    transaction.message = 'Transaction Reversed';
    return {
      status: 200,
      body: {
        data: { transaction: { airtel_money_id: transaction.refundId, status: 'SUCCESS' } },
        status: statusBlock(200, 'SUCCESS', 'ESB000010', 'DP00800001001'),
      },
    };
  }

  /** The balance enquiry: what the account holds in `country`, in major units as Airtel writes them. */
  function accountBalance(country: string): Answer {
    const served = COUNTRIES[country] as (typeof COUNTRIES)[string];
    const minor = balances.get(country) ?? 0;
    const balance = served.decimals === 0 ? String(minor) : (minor / 10 ** served.decimals).toFixed(served.decimals);
    return {
      status: 200,
      body: {
        data: { balance, currency: served.currency, account_status: 'Active' },
        status: statusBlock(200, 'SUCCESS', 'ESB000010', 'DP02200000001'),
      },
    };
  }

  /** A disbursement's answer or enquiry body. */
  function disbursementBody(d: FakeDisbursement, withReference: boolean): Record<string, unknown> {
    const failed = d.status === 'TF';
    return {
      data: {
        transaction: {
          ...(withReference ? { reference_id: `CI${d.id.slice(-10)}` } : {}),
          ...(d.airtelMoneyId ? { airtel_money_id: d.airtelMoneyId } : {}),
          id: d.id,
          ...(withReference ? {} : { message: d.message }),
          status: d.status,
        },
      },
      status: { ...statusBlock(200, d.message, 'ESB000010', d.responseCode), success: !failed },
    };
  }

  /** Settles a disbursement: paid (debiting the balance, or refused when it is short) or refused. */
  function settleDisbursement(d: FakeDisbursement, status: 'TS' | 'TF', responseCode = 'DP00900001013'): void {
    const balance = balances.get(d.country) ?? 0;
    if (status === 'TS' && balance < minorOf(d.amount, d.country)) return settleDisbursement(d, 'TF', 'DP00900001007');
    d.status = status;
    if (status === 'TS') {
      balances.set(d.country, balance - minorOf(d.amount, d.country));
      d.airtelMoneyId = `disbursement-${randomBytes(6).toString('hex').toUpperCase()}`;
      d.responseCode = 'DP00900001001';
      d.message = `You have sent ${d.currency} ${d.amount} to ${d.msisdn}.`;
    } else {
      d.responseCode = responseCode;
      d.message =
        responseCode === 'DP00900001007'
          ? 'Not enough funds in account to complete the transaction.'
          : responseCode === 'DP00900001012'
            ? 'Mobile number entered is incorrect.'
            : 'The transaction was refused.';
    }
  }

  function disburse(country: string, body: unknown): Answer {
    const served = COUNTRIES[country] as (typeof COUNTRIES)[string];
    const given = (body ?? {}) as {
      payee?: Record<string, unknown>;
      reference?: unknown;
      pin?: unknown;
      transaction?: Record<string, unknown>;
    };
    const payee = given.payee ?? {};
    const tx = given.transaction ?? {};
    if (typeof payee.msisdn !== 'string' || typeof tx.id !== 'string' || tx.id === '' || typeof given.pin !== 'string')
      return error(400, 'Mandatory parameters are missing either in the header or body.', 'ROUTER003');
    if (typeof given.reference !== 'string' || !/^[0-9A-Za-z]{4,64}$/.test(given.reference))
      return error(400, 'Field validation: reference.', 'ESB000008');
    if (decryptPkcs1(given.pin, pinKeys.privateKey) !== pin)
      return error(400, 'Pin you have entered is incorrect.', 'ROUTER115');
    if (!new RegExp(`^[0-9]{${served.msisdnLength}}$`).test(payee.msisdn))
      return error(400, `Invalid MSISDN Length. MSISDN Length should be ${served.msisdnLength}`, 'ESB000033');
    if (!isAmount(tx.amount, served.decimals))
      return error(400, 'Amount entered is out of range.', 'ESB000008', 'DP00900001004');
    if (disbursements.has(tx.id)) return error(400, 'Duplicate Transaction Id.', 'ESB000041', 'DP00900001017');
    const d: FakeDisbursement = {
      id: tx.id,
      country,
      currency: served.currency,
      msisdn: payee.msisdn,
      amount: tx.amount,
      status: 'TIP',
      airtelMoneyId: null,
      message: 'Transaction is in process.',
      responseCode: 'DP00900001006',
    };
    disbursements.set(d.id, d);
    const suffix = payee.msisdn.slice(-3);
    if (suffix === AIRTEL_FAKE_PAYEES.processing) return { status: 200, body: disbursementBody(d, true) };
    if (suffix === AIRTEL_FAKE_PAYEES.ambiguous) {
      timers.later(approvalDelayMs, () => {
        if (d.status === 'TIP') settleDisbursement(d, 'TS');
      });
      const answer = disbursementBody(d, true);
      return {
        status: 200,
        body: {
          ...answer,
          status: statusBlock(
            200,
            'The transaction is still processing and is in ambiguous state.',
            'ESB000010',
            'DP00900001000',
          ),
        },
      };
    }
    if (suffix === AIRTEL_FAKE_PAYEES.invalidNumber) settleDisbursement(d, 'TF', 'DP00900001012');
    else settleDisbursement(d, 'TS');
    return { status: 200, body: disbursementBody(d, true) };
  }

  function enquireDisbursement(country: string, id: string): Answer {
    const d = disbursements.get(id);
    if (!d || d.country !== country) return error(404, 'Transaction Not Found.', 'ESB000045', 'DP00900001015');
    return { status: 200, body: disbursementBody(d, false) };
  }

  /** The control API for other processes (`/_fake/...`). */
  function control(method: string, path: string, body: unknown): Answer {
    const given = (body ?? {}) as Record<string, unknown>;
    if (method === 'POST' && path === '/_fake/mode') {
      fake.setMode(given as { callbacks?: FakeCallbackMode; callbackUrl?: string | null });
      return { status: 204, body: undefined };
    }
    if (method === 'POST' && path === '/_fake/faults') {
      fake.injectFaults(given.kind as FakeFaultKind, Number(given.count ?? 1), given.paths as string[] | undefined);
      return { status: 204, body: undefined };
    }
    const decided = /^\/_fake\/transactions\/([^/]+)$/.exec(path);
    if (method === 'POST' && decided) {
      fake.decide(decodeURIComponent(decided[1] as string), given.status as Exclude<FakeTransactionStatus, 'TR'>);
      return { status: 204, body: undefined };
    }
    return { status: 404, body: { error: 'no such control' } };
  }

  function route(method: string, path: string, headers: http.IncomingHttpHeaders, body: unknown): Answer {
    if (path.startsWith('/_fake/')) return control(method, path, body);
    if (method === 'POST' && path === '/auth/oauth2/token') return issueToken(body);
    const isPayment = method === 'POST' && (path === '/merchant/v1/payments/' || path === '/merchant/v1/payments');
    const isRefund = method === 'POST' && path === '/standard/v1/payments/refund';
    const enquiry = method === 'GET' ? /^\/standard\/v1\/payments\/([^/]+)$/.exec(path) : null;
    const isDisbursement = method === 'POST' && /^\/standard\/v[12]\/disbursements\/?$/.test(path);
    const disbursementEnquiry = method === 'GET' ? /^\/standard\/v[12]\/disbursements\/([^/]+)$/.exec(path) : null;
    const isBalance = method === 'GET' && path === '/standard/v1/users/balance';
    if (!isPayment && !isRefund && !enquiry && !isDisbursement && !disbursementEnquiry && !isBalance)
      return { status: 404, body: { error: 'Not Found', path } };
    const auth = authorise(headers);
    if (!('country' in auth)) return auth;
    if (isBalance) return accountBalance(auth.country);
    if (isDisbursement) return disburse(auth.country, body);
    if (disbursementEnquiry)
      return enquireDisbursement(auth.country, decodeURIComponent(disbursementEnquiry[1] as string));
    if (isPayment) return initiate(auth.country, body);
    if (isRefund) return refund(auth.country, body);
    return enquire(auth.country, decodeURIComponent((enquiry as RegExpExecArray)[1] as string));
  }

  const server = await startFakeServer({
    port: options.port,
    faults,
    timers,
    replacements: {
      error500: { status: 500, body: { status: statusBlock(500, 'Something went wrong', 'ESB000001') } },
      undocumented: { result: 'OK', note: 'not an Airtel answer' },
    },
    handle({ method, path, headers, raw, body }) {
      requests.push({ method, path, headers, raw, body });
      return route(method, path, headers, body);
    },
  });

  const fake: AirtelFake = {
    url: server.url,
    requests,
    transactions,
    disbursements,
    pinPublicKey: pinKeys.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    balance(country) {
      return balances.get(country) ?? 0;
    },
    setBalance(country, minor) {
      balances.set(country, minor);
    },
    reverse(id) {
      const d = disbursements.get(id);
      if (!d || d.status !== 'TS') throw new Error(`the fake has no paid disbursement ${id}`);
      d.status = 'TR';
      d.message = 'Transaction Reversed';
      balances.set(d.country, (balances.get(d.country) ?? 0) + minorOf(d.amount, d.country));
    },
    decideDisbursement(id, status) {
      const d = disbursements.get(id);
      if (!d || d.status !== 'TIP') throw new Error(`the fake has no disbursement in process ${id}`);
      settleDisbursement(d, status);
    },
    callbacks: sentCallbacks.sent,
    get tokensIssued() {
      return tokensIssued;
    },
    setMode(mode) {
      if (mode.callbacks) callbackMode = mode.callbacks;
      if (mode.callbackUrl !== undefined) callbackUrl = mode.callbackUrl;
    },
    injectFaults(kind, count, paths) {
      faults.inject(kind, count, paths);
    },
    expireTokens() {
      for (const token of tokens.keys()) tokens.set(token, 0);
    },
    decide(id, status) {
      const transaction = transactions.get(id);
      if (!transaction) throw new Error(`the fake has no transaction ${id}`);
      decide(transaction, status);
    },
    waitForCallbacks(count, timeoutMs = 5_000) {
      return sentCallbacks.waitFor(count, timeoutMs);
    },
    close: () => server.close(),
  };
  return fake;
}
