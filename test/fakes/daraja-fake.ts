/**
 * A fake of Safaricom's Daraja API (the documented subset the `mpesa` adapter uses: Authorization, M-Pesa Express,
 * B2C, Reversals and Transaction Status), a real node:http server on 127.0.0.1 usable by URL alone; result callbacks
 * go to each request's `CallBackURL` or `ResultURL`. Tests steer it through the TypeScript API below.
 *
 * Endpoints and answers as Safaricom documents them (developer.safaricom.co.ke):
 * - `GET /oauth/v1/generate?grant_type=client_credentials` with HTTP Basic consumerKey:consumerSecret →
 *   `{access_token, expires_in: "3599"}`; wrong credentials or grant type → 400 `{requestId, errorCode, errorMessage}`;
 * - `POST /mpesa/stkpush/v1/processrequest`: a missing, unknown or expired Bearer token → 401 `404.001.03 Invalid
 *   Access Token`; a bad field (short code, Password not base64(shortcode + passkey + Timestamp), Timestamp not
 *   `YYYYMMDDHHmmss` in Kenya's time within 5 minutes, TransactionType, Amount not a positive whole number, PartyA or
 *   PhoneNumber not `254…`, CallBackURL not http(s), AccountReference over 12 or TransactionDesc over 13 characters)
 *   → 400 `400.002.02 Bad Request - Invalid …`; a number with a push still in process → 500 `500.001.1001 Unable to
 *   lock subscriber`; accepted → 200 `{MerchantRequestID, CheckoutRequestID, ResponseCode: "0",
 *   ResponseDescription, CustomerMessage}`;
 * - `POST /mpesa/stkpushquery/v1/query`: an unknown CheckoutRequestID → 400 `400.002.02`; while the customer has not
 *   answered → 500 `500.001.1001 The transaction is being processed`; settled → 200 `{ResponseCode: "0",
 *   ResponseDescription, MerchantRequestID, CheckoutRequestID, ResultCode, ResultDesc}`;
 * - the callback: POST `{Body: {stkCallback: {MerchantRequestID, CheckoutRequestID, ResultCode (a number), ResultDesc,
 *   CallbackMetadata: {Item: [Amount, MpesaReceiptNumber, TransactionDate, PhoneNumber]} on success}}}`.
 *
 * - `POST /mpesa/b2c/v3/paymentrequest` (B2C): a bad initiator, credential, CommandID, PartyA, Amount (not a positive
 *   whole number), PartyB (not `254…`) or URL → 400 `400.002.02 Bad Request - Invalid …`; accepted → 200
 *   `{ConversationID, OriginatorConversationID, ResponseCode: "0", ResponseDescription}`; the result is POSTed to the
 *   ResultURL: `{Result: {ResultType: 0, ResultCode, ResultDesc, OriginatorConversationID, ConversationID,
 *   TransactionID, ResultParameters: {ResultParameter: [{Key, Value}]}, ReferenceData}}`, or a queue time-out
 *   notification to the QueueTimeOutURL;
 * - `POST /mpesa/transactionstatus/v1/query` (by `TransactionID` or `OriginalConversationID`; neither → 400): 200
 *   acknowledgement; the result (`TransactionStatus` Completed or Failed, ReceiptNo, Amount, ReasonType; ResultCode
 *   2032 for a transaction M-Pesa does not have, or has not finished) is POSTed to the query's ResultURL, whatever the
 *   callback mode.
 *
 * Every POST with a field its page does not document ({@link DOCUMENTED_FIELDS}: B2C's `Occassion`, Transaction
 * Status's `OriginalConversationID` and `Occasion`, as those pages spell them) → 400 `400.002.02 Bad Request - Invalid
 * <field>`.
 *
 * - `POST /mpesa/reversal/v1/request` (Reversals): a bad Initiator, SecurityCredential, CommandID (not
 *   `TransactionReversal`), TransactionID, Amount (not a positive whole number, or not the whole of the reversed
 *   payment: a reversal returns a transaction, never part of it), ReceiverParty (not the short code),
 *   RecieverIdentifierType (not `11`, Daraja's spelling), URL, Remarks (not 2 to 100 characters) or Occasion (over 100)
 *   → 400 `400.002.02 Bad Request - Invalid …`; accepted → 200 `{OriginatorConversationID, ConversationID,
 *   ResponseCode: "0", ResponseDescription}`; after `approvalDelayMs` the result is POSTed to the ResultURL (unless
 *   callbacks are off): ResultCode 0 with the reversal's TransactionID and ResultParameters (DebitAccountBalance,
 *   Amount, TransCompletedTime, OriginalTransactionID, Charge, CreditPartyPublicName, DebitPartyPublicName), `R000001`
 *   "already reversed" for a payment reversed before, `R000002` "the OriginalTransactionID is invalid" for a receipt
 *   it does not know, or the failure `failNextReversal` set;
 * - `POST /mpesa/transactionstatus/v1/query` with `OriginalConversationID` = a reversal's OriginatorConversationID:
 *   its result (`TransactionStatus` Completed or Failed, ReceiptNo, Amount, ReasonType; ResultCode 2032 while it is
 *   not processed) to the query's ResultURL, whatever the callback mode.
 *
 * The customer's number decides by its last four digits ({@link DARAJA_FAKE_NUMBERS}, the result codes of Daraja's
 * sandbox); any other number (Daraja's sandbox number 254708374149 included) pays after `approvalDelayMs`. Callbacks
 * are sent once, never or twice (`setMode`); `sendCallback` sends one again, at any time (late callbacks). Faults
 * (`injectFaults`): the next N matching requests are handled (the fake acts: a push is sent to the phone), then
 * answered 500, never answered (time-out after accepting), answered 200 with an undocumented body, or 404.
 */
import { randomBytes, randomInt } from 'node:crypto';
import type http from 'node:http';
import { type FakeFaultKind, FaultQueue, SentLog } from './faults';
import { FakeTimers, postCallback, startFakeServer, type FakeIncoming } from './server';

/** Numbers by their last four digits, named by the ResultCode they end with; any other number pays. */
export const DARAJA_FAKE_NUMBERS = {
  /** ResultCode 1032: the customer cancelled the prompt. */
  cancelled: '1032',
  /** ResultCode 1: insufficient balance. */
  insufficient: '0001',
  /** ResultCode 2001: wrong PIN. */
  wrongPin: '2001',
  /** ResultCode 1037: the phone could not be reached. */
  unreachable: '1037',
  /** ResultCode 1019: the request expired. */
  expired: '1019',
  /** Never answered: the query says "being processed" for ever, no callback. */
  silent: '9999',
} as const;

/** B2C recipients by their last four digits; any other number is paid. */
export const DARAJA_FAKE_PAYEES = {
  /** ResultCode 1: the organisation's balance is insufficient. */
  orgInsufficient: '0001',
  /** ResultCode 2040: not a registered M-Pesa customer. */
  unregistered: '2040',
  /** ResultCode 4: would exceed the daily transfer limit. */
  limit: '0004',
  /** ResultCode 2001: the initiator information is invalid. */
  initiator: '2001',
  /** Paid, but reported only as a queue time-out (the Transaction Status query says Completed). */
  queueTimeout: '0408',
  /** Never processed: no result, and the Transaction Status query finds nothing. */
  silent: '9999',
} as const;

/** B2C result codes of the payees above. */
const B2C_RESULTS: Readonly<Record<string, { code: number; desc: string }>> = {
  [DARAJA_FAKE_PAYEES.orgInsufficient]: { code: 1, desc: 'The balance is insufficient for the transaction.' },
  [DARAJA_FAKE_PAYEES.unregistered]: {
    code: 2040,
    desc: "Credit Party customer type (Unregistered or Registered Customer) can't be supported by the service.",
  },
  [DARAJA_FAKE_PAYEES.limit]: { code: 4, desc: 'Declined due to limit rule: would exceed daily transfer limit.' },
  [DARAJA_FAKE_PAYEES.initiator]: { code: 2001, desc: 'The initiator information is invalid.' },
};

/** Result codes of the numbers above. */
const RESULTS: Readonly<Record<string, { code: number; desc: string }>> = {
  [DARAJA_FAKE_NUMBERS.cancelled]: { code: 1032, desc: 'Request cancelled by user' },
  [DARAJA_FAKE_NUMBERS.insufficient]: { code: 1, desc: 'The balance is insufficient for the transaction' },
  [DARAJA_FAKE_NUMBERS.wrongPin]: { code: 2001, desc: 'The initiator information is invalid.' },
  [DARAJA_FAKE_NUMBERS.unreachable]: { code: 1037, desc: 'DS timeout user cannot be reached' },
  [DARAJA_FAKE_NUMBERS.expired]: { code: 1019, desc: 'Transaction has expired' },
};

/** How the fake calls back: once per result, never, or twice (the same callback repeated). */
export type DarajaCallbackMode = 'once' | 'off' | 'twice';

/** Start options; every one has a default. */
export interface DarajaFakeOptions {
  consumerKey?: string;
  consumerSecret?: string;
  shortcode?: string;
  passkey?: string;
  /** Lifetime of issued tokens, in seconds (Daraja: 3599). */
  tokenLifetimeSeconds?: number;
  /** How long the customer takes to answer the prompt, in milliseconds (default 100). */
  approvalDelayMs?: number;
  callbacks?: DarajaCallbackMode;
  /** The B2C initiator and its security credential the fake accepts. */
  initiatorName?: string;
  securityCredential?: string;
}

/** A B2C payment as the fake holds it. */
export interface DarajaB2c {
  originatorConversationId: string;
  conversationId: string;
  partyB: string;
  amount: number;
  resultUrl: string;
  queueTimeOutUrl: string;
  /** Null while M-Pesa has not processed it. */
  result: { code: number; desc: string } | null;
  transactionId: string | null;
}

/** A reversal as the fake holds it. */
export interface DarajaReversal {
  originatorConversationId: string;
  conversationId: string;
  /** The receipt number of the payment reversed, as sent. */
  transactionId: string;
  amount: number;
  resultUrl: string;
  queueTimeOutUrl: string;
  /** Null while M-Pesa has not processed it. */
  result: { code: number | string; desc: string } | null;
  /** The reversal's own receipt number, once made. */
  reversalTransactionId: string | null;
}

/** One request the fake got. */
export interface DarajaRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

/** A push as the fake holds it. */
export interface DarajaPush {
  merchantRequestId: string;
  checkoutRequestId: string;
  phoneNumber: string;
  amount: number;
  accountReference: string;
  callbackUrl: string;
  /** Null while the customer has not answered. */
  result: { code: number; desc: string } | null;
  receipt: string | null;
}

/** One callback the fake sent: where, its raw body and what the receiver answered. */
export interface DarajaSentCallback {
  url: string;
  body: string;
  status?: number;
  error?: string;
}

/** A running fake. */
export interface DarajaFake {
  /** `http://127.0.0.1:{port}`: the adapter's `baseUrl`. */
  url: string;
  shortcode: string;
  passkey: string;
  requests: DarajaRequest[];
  /** Every push the fake took (a faulted answer included: the prompt went to the phone), in order. */
  pushes: DarajaPush[];
  callbacks: DarajaSentCallback[];
  /** Every B2C payment the fake took (a faulted answer included), in order. */
  b2cPayments: DarajaB2c[];
  initiatorName: string;
  securityCredential: string;
  readonly tokensIssued: number;
  setMode(mode: { callbacks?: DarajaCallbackMode }): void;
  /** The next `count` requests whose path starts with one of `paths` (default: all but the token's) get `kind`. */
  injectFaults(kind: FakeFaultKind, count: number, paths?: string[]): void;
  /** Expires every issued token now. */
  expireTokens(): void;
  /** The customer answers the push `checkoutRequestId` with `resultCode` (0: paid); calls back as the mode says. */
  decide(checkoutRequestId: string, resultCode: number, desc?: string): void;
  /** Sends the callback of a decided push (again), whatever the mode: a duplicate or a late callback. */
  sendCallback(checkoutRequestId: string): Promise<DarajaSentCallback>;
  /** Sends the B2C result of a processed payment (again), whatever the mode: a duplicate or a late callback. */
  sendB2cResult(originatorConversationId: string): Promise<DarajaSentCallback>;
  /** Every reversal the fake took, in order. */
  reversals: DarajaReversal[];
  /** The next reversal taken fails with this ResultCode and description (once). */
  failNextReversal(code: number | string, desc: string): void;
  /** Sends the result of a processed reversal (again), whatever the mode: a duplicate or a late callback. */
  sendReversalResult(originatorConversationId: string): Promise<DarajaSentCallback>;
  /** Resolves once `count` callbacks were sent (answered or not); rejects after `timeoutMs`. */
  waitForCallbacks(count: number, timeoutMs?: number): Promise<DarajaSentCallback[]>;
  close(): Promise<void>;
}

const TOKEN_PATH = '/oauth/v1/generate';
export const STK_PUSH_PATH = '/mpesa/stkpush/v1/processrequest';
export const STK_QUERY_PATH = '/mpesa/stkpushquery/v1/query';
export const B2C_PATH = '/mpesa/b2c/v3/paymentrequest';
export const TRANSACTION_STATUS_PATH = '/mpesa/transactionstatus/v1/query';
export const REVERSAL_PATH = '/mpesa/reversal/v1/request';

/**
 * The request fields each endpoint's page documents (developer.safaricom.co.ke: "M-Pesa Express", "Business To
 * Customer (B2C)", "Transaction Status"), spelled as each page spells them: B2C's `Occassion`, Transaction Status's
 * `OriginalConversationID` and `Occasion`. Any other field is refused.
 */
export const DOCUMENTED_FIELDS: Readonly<Record<string, ReadonlySet<string>>> = {
  [STK_PUSH_PATH]: new Set([
    'BusinessShortCode',
    'Password',
    'Timestamp',
    'TransactionType',
    'Amount',
    'PartyA',
    'PartyB',
    'PhoneNumber',
    'CallBackURL',
    'AccountReference',
    'TransactionDesc',
  ]),
  [STK_QUERY_PATH]: new Set(['BusinessShortCode', 'Password', 'Timestamp', 'CheckoutRequestID']),
  [B2C_PATH]: new Set([
    'OriginatorConversationID',
    'InitiatorName',
    'SecurityCredential',
    'CommandID',
    'Amount',
    'PartyA',
    'PartyB',
    'Remarks',
    'QueueTimeOutURL',
    'ResultURL',
    'Occassion',
  ]),
  [TRANSACTION_STATUS_PATH]: new Set([
    'Initiator',
    'SecurityCredential',
    'CommandID',
    'TransactionID',
    'OriginalConversationID',
    'PartyA',
    'IdentifierType',
    'ResultURL',
    'QueueTimeOutURL',
    'Remarks',
    'Occasion',
  ]),
};

interface Answer {
  status: number;
  body: unknown;
}

/** Daraja's error body. */
function error(status: number, errorCode: string, errorMessage: string): Answer {
  return {
    status,
    body: { requestId: `${randomInt(10_000, 99_999)}-${randomInt(1e6, 9e6)}-1`, errorCode, errorMessage },
  };
}

/** `YYYYMMDDHHmmss` of `at` in Kenya's time (UTC+3). */
function kenyaTimestamp(at: number): string {
  return new Date(at + 3 * 3_600_000).toISOString().replace(/[-T:]/g, '').slice(0, 14);
}

/** Milliseconds since the epoch of a Kenyan `YYYYMMDDHHmmss`, or NaN. */
function parseKenyaTimestamp(value: unknown): number {
  const match = typeof value === 'string' ? /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(value) : null;
  if (!match) return Number.NaN;
  const [, y, mo, d, h, mi, s] = match;
  return Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}+03:00`);
}

/** Starts the fake on 127.0.0.1 (see the module's comment). */
export async function startDarajaFake(options: DarajaFakeOptions = {}): Promise<DarajaFake> {
  const consumerKey = options.consumerKey ?? 'daraja-consumer-key';
  const consumerSecret = options.consumerSecret ?? 'daraja-consumer-secret';
  const shortcode = options.shortcode ?? '174379';
  const passkey = options.passkey ?? 'bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919';
  const tokenLifetimeSeconds = options.tokenLifetimeSeconds ?? 3599;
  const approvalDelayMs = options.approvalDelayMs ?? 100;
  let callbackMode: DarajaCallbackMode = options.callbacks ?? 'once';
  const initiatorName = options.initiatorName ?? 'testapi';
  const securityCredential = options.securityCredential ?? 'encrypted-initiator-password';
  const b2cPayments: DarajaB2c[] = [];
  const reversals: DarajaReversal[] = [];
  /** Receipt numbers of the payments reversed. */
  const reversed = new Set<string>();
  let nextReversalFailure: { code: number | string; desc: string } | null = null;

  const requests: DarajaRequest[] = [];
  const pushes: DarajaPush[] = [];
  const tokens = new Map<string, number>();
  const sent = new SentLog<DarajaSentCallback>();
  const faults = new FaultQueue((path) => path.startsWith(TOKEN_PATH));
  const timers = new FakeTimers();
  let tokensIssued = 0;

  const find = (checkoutRequestId: unknown) => pushes.find((p) => p.checkoutRequestId === checkoutRequestId);

  /** The documented callback body of a decided `push`. */
  function callbackBodyOf(push: DarajaPush): string {
    const result = push.result as { code: number; desc: string };
    const stkCallback: Record<string, unknown> = {
      MerchantRequestID: push.merchantRequestId,
      CheckoutRequestID: push.checkoutRequestId,
      ResultCode: result.code,
      ResultDesc: result.desc,
    };
    if (result.code === 0) {
      stkCallback.CallbackMetadata = {
        Item: [
          { Name: 'Amount', Value: push.amount },
          { Name: 'MpesaReceiptNumber', Value: push.receipt },
          { Name: 'Balance' },
          { Name: 'TransactionDate', Value: Number(kenyaTimestamp(Date.now())) },
          { Name: 'PhoneNumber', Value: Number(push.phoneNumber) },
        ],
      };
    }
    return JSON.stringify({ Body: { stkCallback } });
  }

  async function sendCallback(push: DarajaPush): Promise<DarajaSentCallback> {
    const body = callbackBodyOf(push);
    const noted: DarajaSentCallback = { url: push.callbackUrl, body, ...(await postCallback(push.callbackUrl, body)) };
    sent.note(noted);
    return noted;
  }

  function decide(push: DarajaPush, code: number, desc: string): void {
    push.result = { code, desc };
    if (code === 0) push.receipt ??= randomBytes(5).toString('hex').toUpperCase();
    if (callbackMode === 'off') return;
    void sendCallback(push);
    if (callbackMode === 'twice') timers.later(50, () => void sendCallback(push));
  }

  function issueToken(headers: http.IncomingHttpHeaders, query: URLSearchParams): Answer {
    if (query.get('grant_type') !== 'client_credentials') return error(400, '400.008.02', 'Invalid grant type passed');
    const expected = `Basic ${Buffer.from(`${consumerKey}:${consumerSecret}`).toString('base64')}`;
    if (headers.authorization !== expected) return error(400, '400.008.01', 'Invalid Authentication passed');
    const token = randomBytes(20).toString('base64url');
    tokens.set(token, Date.now() + tokenLifetimeSeconds * 1000);
    tokensIssued += 1;
    return { status: 200, body: { access_token: token, expires_in: String(tokenLifetimeSeconds) } };
  }

  function authorised(headers: http.IncomingHttpHeaders): boolean {
    const match = /^Bearer (\S+)$/.exec(headers.authorization ?? '');
    const expiresAt = match ? tokens.get(match[1] as string) : undefined;
    return expiresAt !== undefined && expiresAt > Date.now();
  }

  /** The field of `body` Daraja would refuse among the credentials, if any. */
  function badCredentials(body: Record<string, unknown>): string | undefined {
    if (body.BusinessShortCode !== shortcode && body.BusinessShortCode !== Number(shortcode))
      return 'BusinessShortCode';
    const at = parseKenyaTimestamp(body.Timestamp);
    if (!Number.isFinite(at) || Math.abs(at - Date.now()) > 5 * 60_000) return 'Timestamp';
    const password = Buffer.from(`${shortcode}${passkey}${String(body.Timestamp)}`).toString('base64');
    if (body.Password !== password) return 'Password';
    return undefined;
  }

  function stkPush(body: Record<string, unknown>): Answer {
    const bad = badCredentials(body);
    if (bad) return error(400, '400.002.02', `Bad Request - Invalid ${bad}`);
    if (body.TransactionType !== 'CustomerPayBillOnline' && body.TransactionType !== 'CustomerBuyGoodsOnline')
      return error(400, '400.002.02', 'Bad Request - Invalid TransactionType');
    if (typeof body.Amount !== 'number' || !Number.isInteger(body.Amount) || body.Amount < 1)
      return error(400, '400.002.02', 'Bad Request - Invalid Amount');
    for (const field of ['PartyA', 'PhoneNumber']) {
      if (!/^254[0-9]{9}$/.test(String(body[field] ?? '')))
        return error(400, '400.002.02', `Bad Request - Invalid ${field}`);
    }
    if (typeof body.CallBackURL !== 'string' || !/^https?:\/\//.test(body.CallBackURL))
      return error(400, '400.002.02', 'Bad Request - Invalid CallBackURL');
    const reference = body.AccountReference;
    if (typeof reference !== 'string' || reference.length === 0 || reference.length > 12)
      return error(400, '400.002.02', 'Bad Request - Invalid AccountReference');
    const desc = body.TransactionDesc;
    if (typeof desc !== 'string' || desc.length === 0 || desc.length > 13)
      return error(400, '400.002.02', 'Bad Request - Invalid TransactionDesc');
    const phoneNumber = String(body.PhoneNumber);
    if (pushes.some((p) => p.phoneNumber === phoneNumber && p.result === null))
      return error(
        500,
        '500.001.1001',
        'Unable to lock subscriber, a transaction is already in process for the current subscriber',
      );
    const push: DarajaPush = {
      merchantRequestId: `${randomInt(10_000, 99_999)}-${randomInt(1e7, 9e7)}-1`,
      checkoutRequestId: `ws_CO_${kenyaTimestamp(Date.now())}${randomInt(1e9, 9e9)}`,
      phoneNumber,
      amount: body.Amount,
      accountReference: reference,
      callbackUrl: body.CallBackURL,
      result: null,
      receipt: null,
    };
    pushes.push(push);
    const ending = phoneNumber.slice(-4);
    if (ending !== DARAJA_FAKE_NUMBERS.silent) {
      timers.later(approvalDelayMs, () => {
        if (push.result !== null) return;
        const result = RESULTS[ending] ?? { code: 0, desc: 'The service request is processed successfully.' };
        decide(push, result.code, result.desc);
      });
    }
    const accepted = 'Success. Request accepted for processing';
    return {
      status: 200,
      body: {
        MerchantRequestID: push.merchantRequestId,
        CheckoutRequestID: push.checkoutRequestId,
        ResponseCode: '0',
        ResponseDescription: accepted,
        CustomerMessage: accepted,
      },
    };
  }

  function stkQuery(body: Record<string, unknown>): Answer {
    const bad = badCredentials(body);
    if (bad) return error(400, '400.002.02', `Bad Request - Invalid ${bad}`);
    const push = find(body.CheckoutRequestID);
    if (!push) return error(400, '400.002.02', 'Bad Request - Invalid CheckoutRequestID');
    if (push.result === null) return error(500, '500.001.1001', 'The transaction is being processed');
    return {
      status: 200,
      body: {
        ResponseCode: '0',
        ResponseDescription: 'The service request has been accepted successsfully',
        MerchantRequestID: push.merchantRequestId,
        CheckoutRequestID: push.checkoutRequestId,
        ResultCode: String(push.result.code),
        ResultDesc: push.result.desc,
      },
    };
  }

  const findB2c = (id: unknown) => b2cPayments.find((p) => p.originatorConversationId === id);

  /** POSTs `result` (a Daraja `Result`) to `url` and notes it. */
  async function sendResult(url: string, result: Record<string, unknown>): Promise<DarajaSentCallback> {
    const body = JSON.stringify({ Result: { ResultType: 0, ...result } });
    const noted: DarajaSentCallback = { url, body, ...(await postCallback(url, body)) };
    sent.note(noted);
    return noted;
  }

  /** The documented result of a processed B2C payment. */
  function b2cResultOf(payment: DarajaB2c): Record<string, unknown> {
    const result = payment.result as { code: number; desc: string };
    return {
      ResultCode: result.code,
      ResultDesc: result.desc,
      OriginatorConversationID: payment.originatorConversationId,
      ConversationID: payment.conversationId,
      TransactionID: payment.transactionId ?? randomBytes(5).toString('hex').toUpperCase(),
      ...(result.code === 0
        ? {
            ResultParameters: {
              ResultParameter: [
                { Key: 'TransactionAmount', Value: payment.amount },
                { Key: 'TransactionReceipt', Value: payment.transactionId },
                { Key: 'ReceiverPartyPublicName', Value: `${payment.partyB} - Jane Doe` },
                { Key: 'B2CUtilityAccountAvailableFunds', Value: 100000 },
              ],
            },
          }
        : {}),
      ReferenceData: { ReferenceItem: { Key: 'QueueTimeoutURL', Value: payment.queueTimeOutUrl } },
    };
  }

  function processB2c(payment: DarajaB2c): void {
    const ending = payment.partyB.slice(-4);
    if (ending === DARAJA_FAKE_PAYEES.silent) return;
    const result = B2C_RESULTS[ending] ?? { code: 0, desc: 'The service request is processed successfully.' };
    payment.result = result;
    payment.transactionId = randomBytes(5).toString('hex').toUpperCase();
    if (ending === DARAJA_FAKE_PAYEES.queueTimeout) {
      void sendResult(payment.queueTimeOutUrl, {
        ResultType: 1,
        ResultCode: 1,
        ResultDesc: 'The request timed out in the queue.',
        OriginatorConversationID: payment.originatorConversationId,
        ConversationID: payment.conversationId,
      });
      return;
    }
    if (callbackMode === 'off') return;
    void sendResult(payment.resultUrl, b2cResultOf(payment));
    if (callbackMode === 'twice') timers.later(50, () => void sendResult(payment.resultUrl, b2cResultOf(payment)));
  }

  /** The field of a B2C or Transaction Status body Daraja would refuse among the initiator's, if any. */
  function badInitiator(body: Record<string, unknown>, nameField: string): string | undefined {
    if (body[nameField] !== initiatorName) return nameField;
    if (body.SecurityCredential !== securityCredential) return 'SecurityCredential';
    if (String(body.PartyA ?? '') !== shortcode) return 'PartyA';
    for (const field of ['ResultURL', 'QueueTimeOutURL'])
      if (typeof body[field] !== 'string' || !/^https?:\/\//.test(body[field] as string)) return field;
    return undefined;
  }

  function b2c(body: Record<string, unknown>): Answer {
    const bad =
      badInitiator(body, 'InitiatorName') ??
      (body.CommandID === 'BusinessPayment' ||
      body.CommandID === 'SalaryPayment' ||
      body.CommandID === 'PromotionPayment'
        ? undefined
        : 'CommandID') ??
      (typeof body.Amount === 'number' && Number.isInteger(body.Amount) && body.Amount >= 1 ? undefined : 'Amount') ??
      (/^254[0-9]{9}$/.test(String(body.PartyB ?? '')) ? undefined : 'PartyB') ??
      (typeof body.Remarks === 'string' && body.Remarks.length >= 1 && body.Remarks.length <= 100
        ? undefined
        : 'Remarks');
    if (bad) return error(400, '400.002.02', `Bad Request - Invalid ${bad}`);
    const payment: DarajaB2c = {
      originatorConversationId: String(body.OriginatorConversationID ?? randomBytes(8).toString('hex')),
      conversationId: `AG_${kenyaTimestamp(Date.now()).slice(0, 8)}_${randomBytes(10).toString('hex')}`,
      partyB: String(body.PartyB),
      amount: body.Amount as number,
      resultUrl: body.ResultURL as string,
      queueTimeOutUrl: body.QueueTimeOutURL as string,
      result: null,
      transactionId: null,
    };
    b2cPayments.push(payment);
    timers.later(approvalDelayMs, () => processB2c(payment));
    return {
      status: 200,
      body: {
        ConversationID: payment.conversationId,
        OriginatorConversationID: payment.originatorConversationId,
        ResponseCode: '0',
        ResponseDescription: 'Accept the service request successfully.',
      },
    };
  }

  const findReversal = (id: unknown) => reversals.find((r) => r.originatorConversationId === id);

  /** The documented result of a processed reversal. */
  function reversalResultOf(reversal: DarajaReversal): Record<string, unknown> {
    const result = reversal.result as { code: number | string; desc: string };
    return {
      ResultCode: result.code,
      ResultDesc: result.desc,
      OriginatorConversationID: reversal.originatorConversationId,
      ConversationID: reversal.conversationId,
      TransactionID: reversal.reversalTransactionId ?? randomBytes(5).toString('hex').toUpperCase(),
      ...(result.code === 0
        ? {
            ResultParameters: {
              ResultParameter: [
                { Key: 'DebitAccountBalance', Value: 'Utility Account|KES|100000.00|100000.00|0.00|0.00' },
                { Key: 'Amount', Value: reversal.amount },
                { Key: 'TransCompletedTime', Value: Number(kenyaTimestamp(Date.now())) },
                { Key: 'OriginalTransactionID', Value: reversal.transactionId },
                { Key: 'Charge', Value: 0 },
                { Key: 'CreditPartyPublicName', Value: '254708374149 - John Doe' },
                { Key: 'DebitPartyPublicName', Value: `${shortcode} - Merchant` },
              ],
            },
          }
        : {}),
      ReferenceData: { ReferenceItem: { Key: 'QueueTimeoutURL', Value: reversal.queueTimeOutUrl } },
    };
  }

  /** What M-Pesa makes of a reversal (see the module's comment), then its result callback as the mode says. */
  function processReversal(reversal: DarajaReversal): void {
    const original = pushes.find((p) => p.receipt === reversal.transactionId && p.result?.code === 0);
    if (nextReversalFailure) {
      reversal.result = nextReversalFailure;
      nextReversalFailure = null;
    } else if (!original) reversal.result = { code: 'R000002', desc: 'The OriginalTransactionID is invalid.' };
    else if (reversed.has(reversal.transactionId))
      reversal.result = { code: 'R000001', desc: 'The transaction has already been reversed.' };
    else {
      reversal.result = { code: 0, desc: 'The service request is processed successfully.' };
      reversal.reversalTransactionId = randomBytes(5).toString('hex').toUpperCase();
      reversed.add(reversal.transactionId);
    }
    if (callbackMode === 'off') return;
    void sendResult(reversal.resultUrl, reversalResultOf(reversal));
    if (callbackMode === 'twice')
      timers.later(50, () => void sendResult(reversal.resultUrl, reversalResultOf(reversal)));
  }

  function reversal(body: Record<string, unknown>): Answer {
    const original = pushes.find((p) => p.receipt !== null && p.receipt === body.TransactionID);
    const amount = typeof body.Amount === 'string' && /^[0-9]+$/.test(body.Amount) ? Number(body.Amount) : body.Amount;
    const remarks = body.Remarks;
    const bad =
      (body.Initiator === initiatorName ? undefined : 'Initiator') ??
      (body.SecurityCredential === securityCredential ? undefined : 'SecurityCredential') ??
      (body.CommandID === 'TransactionReversal' ? undefined : 'CommandID') ??
      (typeof body.TransactionID === 'string' && /^[A-Z0-9]{8,20}$/.test(body.TransactionID)
        ? undefined
        : 'TransactionID') ??
      (typeof amount === 'number' &&
      Number.isInteger(amount) &&
      amount >= 1 &&
      (original === undefined || amount === original.amount)
        ? undefined
        : 'Amount') ??
      (String(body.ReceiverParty ?? '') === shortcode ? undefined : 'ReceiverParty') ??
      (String(body.RecieverIdentifierType ?? '') === '11' ? undefined : 'RecieverIdentifierType') ??
      (['ResultURL', 'QueueTimeOutURL'].find(
        (field) => typeof body[field] !== 'string' || !/^https?:\/\//.test(body[field] as string),
      ) as string | undefined) ??
      (typeof remarks === 'string' && remarks.length >= 2 && remarks.length <= 100 ? undefined : 'Remarks') ??
      (body.Occasion === undefined || (typeof body.Occasion === 'string' && body.Occasion.length <= 100)
        ? undefined
        : 'Occasion');
    if (bad) return error(400, '400.002.02', `Bad Request - Invalid ${bad}`);
    const taken: DarajaReversal = {
      originatorConversationId: `${randomInt(10_000, 99_999)}-${randomInt(1e7, 9e7)}-1`,
      conversationId: `AG_${kenyaTimestamp(Date.now()).slice(0, 8)}_${randomBytes(10).toString('hex')}`,
      transactionId: body.TransactionID as string,
      amount: amount as number,
      resultUrl: body.ResultURL as string,
      queueTimeOutUrl: body.QueueTimeOutURL as string,
      result: null,
      reversalTransactionId: null,
    };
    reversals.push(taken);
    timers.later(approvalDelayMs, () => processReversal(taken));
    return {
      status: 200,
      body: {
        OriginatorConversationID: taken.originatorConversationId,
        ConversationID: taken.conversationId,
        ResponseCode: '0',
        ResponseDescription: 'Accept the service request successfully.',
      },
    };
  }

  /** Transaction Status of a reversal: its result to the query's ResultURL (see the module's comment). */
  function reversalStatus(body: Record<string, unknown>, found: DarajaReversal): Answer {
    const conversationId = `AG_${kenyaTimestamp(Date.now()).slice(0, 8)}_${randomBytes(10).toString('hex')}`;
    const resultUrl = body.ResultURL as string;
    timers.later(20, () => {
      if (!found.result) {
        void sendResult(resultUrl, {
          ResultCode: 2032,
          ResultDesc: 'The transaction could not be found.',
          ConversationID: conversationId,
        });
        return;
      }
      const made = found.result.code === 0;
      void sendResult(resultUrl, {
        ResultCode: 0,
        ResultDesc: 'The service request is processed successfully.',
        ConversationID: conversationId,
        TransactionID: found.reversalTransactionId,
        ResultParameters: {
          ResultParameter: [
            { Key: 'ReceiptNo', Value: found.reversalTransactionId ?? '' },
            { Key: 'TransactionStatus', Value: made ? 'Completed' : 'Failed' },
            { Key: 'ReasonType', Value: made ? 'Reversal' : found.result.desc },
            { Key: 'Amount', Value: found.amount },
          ],
        },
      });
    });
    return {
      status: 200,
      body: {
        ConversationID: conversationId,
        OriginatorConversationID: `${randomInt(10_000, 99_999)}-${randomInt(1e7, 9e7)}-1`,
        ResponseCode: '0',
        ResponseDescription: 'Accept the service request successfully.',
      },
    };
  }

  function transactionStatus(body: Record<string, unknown>): Answer {
    const bad =
      badInitiator(body, 'Initiator') ??
      (body.CommandID === 'TransactionStatusQuery' ? undefined : 'CommandID') ??
      (body.TransactionID !== undefined || body.OriginalConversationID !== undefined ? undefined : 'TransactionID');
    if (bad) return error(400, '400.002.02', `Bad Request - Invalid ${bad}`);
    const askedReversal = findReversal(body.OriginalConversationID);
    if (askedReversal) return reversalStatus(body, askedReversal);
    const payment =
      (body.OriginalConversationID === undefined ? undefined : findB2c(body.OriginalConversationID)) ??
      (body.TransactionID === undefined ? undefined : b2cPayments.find((p) => p.transactionId === body.TransactionID));
    const conversationId = `AG_${kenyaTimestamp(Date.now()).slice(0, 8)}_${randomBytes(10).toString('hex')}`;
    const resultUrl = body.ResultURL as string;
    timers.later(20, () => {
      if (!payment?.result) {
        void sendResult(resultUrl, {
          ResultCode: 2032,
          ResultDesc: 'The transaction could not be found.',
          ConversationID: conversationId,
        });
        return;
      }
      const paid = payment.result.code === 0;
      void sendResult(resultUrl, {
        ResultCode: 0,
        ResultDesc: 'The service request is processed successfully.',
        ConversationID: conversationId,
        TransactionID: payment.transactionId,
        ResultParameters: {
          ResultParameter: [
            { Key: 'ReceiptNo', Value: payment.transactionId },
            { Key: 'TransactionStatus', Value: paid ? 'Completed' : 'Failed' },
            { Key: 'ReasonType', Value: paid ? 'Business Payment to Individual via API' : payment.result.desc },
            { Key: 'Amount', Value: payment.amount },
            { Key: 'OriginatorConversationID', Value: payment.originatorConversationId },
          ],
        },
      });
    });
    return {
      status: 200,
      body: {
        ConversationID: conversationId,
        OriginatorConversationID: String(body.OriginalConversationID ?? body.TransactionID ?? ''),
        ResponseCode: '0',
        ResponseDescription: 'Accept the service request successfully.',
      },
    };
  }

  /** The first field of `body` its endpoint's page does not name (Daraja refuses it as an invalid request), if any. */
  function undocumentedField(path: string, body: Record<string, unknown>): string | undefined {
    const fields = DOCUMENTED_FIELDS[path];
    return fields ? Object.keys(body).find((field) => !fields.has(field)) : undefined;
  }

  function route({ method, path, query, headers, body }: FakeIncoming): Answer {
    if (method === 'GET' && path === TOKEN_PATH) return issueToken(headers, query);
    const handlers: Record<string, (given: Record<string, unknown>) => Answer> = {
      [STK_PUSH_PATH]: stkPush,
      [STK_QUERY_PATH]: stkQuery,
      [B2C_PATH]: b2c,
      [TRANSACTION_STATUS_PATH]: transactionStatus,
      [REVERSAL_PATH]: reversal,
    };
    const handler = handlers[path];
    if (method !== 'POST' || !handler) return error(404, '404.001.01', 'Resource not found');
    if (!authorised(headers)) return error(401, '404.001.03', 'Invalid Access Token');
    const given = (body ?? {}) as Record<string, unknown>;
    const undocumented = undocumentedField(path, given);
    if (undocumented) return error(400, '400.002.02', `Bad Request - Invalid ${undocumented}`);
    return handler(given);
  }

  const server = await startFakeServer({
    faults,
    timers,
    replacements: {
      error500: error(500, '500.003.1001', 'Internal Server Error'),
      undocumented: { status: 'OK', note: 'not a Daraja answer' },
    },
    handle(request) {
      const { method, path, headers, body } = request;
      requests.push({ method, path, headers, body });
      return route(request);
    },
  });

  return {
    url: server.url,
    shortcode,
    passkey,
    requests,
    pushes,
    callbacks: sent.sent,
    b2cPayments,
    initiatorName,
    securityCredential,
    get tokensIssued() {
      return tokensIssued;
    },
    setMode(mode) {
      if (mode.callbacks) callbackMode = mode.callbacks;
    },
    injectFaults(kind, count, paths) {
      faults.inject(kind, count, paths);
    },
    expireTokens() {
      for (const token of tokens.keys()) tokens.set(token, 0);
    },
    decide(checkoutRequestId, resultCode, desc) {
      const push = find(checkoutRequestId);
      if (!push) throw new Error(`the fake has no push ${checkoutRequestId}`);
      decide(
        push,
        resultCode,
        desc ?? (resultCode === 0 ? 'The service request is processed successfully.' : 'Failed'),
      );
    },
    sendCallback(checkoutRequestId) {
      const push = find(checkoutRequestId);
      if (!push?.result) throw new Error(`the fake has no decided push ${checkoutRequestId}`);
      return sendCallback(push);
    },
    sendB2cResult(originatorConversationId) {
      const payment = findB2c(originatorConversationId);
      if (!payment?.result) throw new Error(`the fake has no processed B2C payment ${originatorConversationId}`);
      return sendResult(payment.resultUrl, b2cResultOf(payment));
    },
    reversals,
    failNextReversal(code, desc) {
      nextReversalFailure = { code, desc };
    },
    sendReversalResult(originatorConversationId) {
      const found = findReversal(originatorConversationId);
      if (!found?.result) throw new Error(`the fake has no processed reversal ${originatorConversationId}`);
      return sendResult(found.resultUrl, reversalResultOf(found));
    },
    waitForCallbacks(count, timeoutMs = 5_000) {
      return sent.waitFor(count, timeoutMs);
    },
    close: () => server.close(),
  };
}
