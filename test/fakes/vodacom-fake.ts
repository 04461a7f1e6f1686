/**
 * A fake of the M-Pesa OpenAPI as Vodacom Tanzania serves it (market `vodacomTZN`; the documented subset the
 * `vodacom` adapter uses: Generate Session Key, C2B Single Stage, Query Transaction Status and Reversal), a real
 * node:http server on 127.0.0.1 usable by URL alone. Tests steer it through the TypeScript API below.
 *
 * Endpoints and answers as the OpenAPI portal documents them (openapiportal.m-pesa.com; the paths follow
 * `/sandbox/ipg/v2/vodacomTZN`):
 * - `GET /getSession/` with `Authorization: Bearer <the API key, RSA (PKCS#1 v1.5) encrypted with the portal's public
 *   key, base64>` → 200 `{output_ResponseCode: "INS-0", output_ResponseDesc, output_SessionID}`; any other key →
 *   401 `INS-2` "Invalid API Key";
 * - every other call with `Authorization: Bearer <a session id encrypted likewise>`; a missing, unknown or expired
 *   session → 401 `INS-2`; a call without an `Origin` header → 400 `INS-21`;
 * - `POST /c2bPayment/singleStage/`: a missing field → 400 `INS-20` "Not All Parameters Provided"; a field the page
 *   does not name, a currency other than TZS or a description that is not 1 to 256 characters → 400 `INS-21`
 *   "Parameter validations failed"; a country other than TZN → 400 `INS-998` "Invalid Market"; an amount that is not
 *   a positive whole number of shillings, written as a string → 400 `INS-15`; a number that is not `255…` → 400
 *   `INS-2051`; another service provider code → 400 `INS-13`; a ThirdPartyConversationID that is not 1 to 40 letters
 *   and digits → 400 `INS-19`; a transaction reference that is not 1 to 20 → 400 `INS-17`; a ThirdPartyConversationID
 *   already used → 409 `INS-10` "Duplicate Transaction"; then the customer answers the USSD prompt and the call
 *   answers: 201 `{INS-0, output_TransactionID, output_ConversationID, output_ThirdPartyConversationID}`, or the
 *   customer's failure ({@link VODACOM_FAKE_NUMBERS}: INS-5 and INS-6 with 401, INS-9 with 408, INS-2001 with 400,
 *   INS-2006 and INS-996 with 422);
 * - `GET /queryTransactionStatus/?input_QueryReference&input_ServiceProviderCode&input_ThirdPartyConversationID
 *   &input_Country` (the reference: a ThirdPartyConversationID, ConversationID or TransactionID): a missing parameter
 *   → 400 `INS-20`; a reference it does not know → 400 `INS-14` "Invalid Reference Used"; else 200 `{INS-0,
 *   output_ResponseTransactionStatus: Completed | Failed | Cancelled | Pending, output_ConversationID,
 *   output_ThirdPartyConversationID, output_OriginalTransactionID (a completed one's)}`;
 * - `POST /b2cPayment/` (B2C, from the B2C short code): fields checked as the C2B request's (`input_PaymentItemsDesc`
 *   in place of `input_PurchasedItemsDesc`); a used ThirdPartyConversationID → 409 `INS-10`; the recipient's last
 *   four digits ({@link VODACOM_FAKE_PAYEES}) refuse it, else 200 `{INS-0, output_TransactionID, …}`;
 * - `PUT /reversal/`: missing or unnamed fields as above; an amount other than the whole transaction's → 400
 *   `INS-15`; a TransactionID it does not know, or one reversed already → 400 `INS-18` "Invalid TransactionID Used";
 *   a used ThirdPartyConversationID → 409 `INS-10`; else 200 `{INS-0, output_TransactionID, output_ConversationID,
 *   output_ThirdPartyConversationID}`, or the failure `failNextReversal` set.
 *
 * The customer's number decides by its last four digits ({@link VODACOM_FAKE_NUMBERS}); any other number pays at once.
 * An `undecided` number's call gets no answer (the customer has the prompt) until the test decides it with `decide`;
 * the query says Pending meanwhile. Faults (`injectFaults`): the next N matching requests are handled (the fake acts:
 * the prompt goes to the phone), then answered 500 (`INS-1`), never answered, answered 200 with an undocumented body,
 * or 404.
 */
import { constants, generateKeyPairSync, privateDecrypt, randomBytes, type KeyObject } from 'node:crypto';
import type http from 'node:http';
import { type FakeFaultKind, FaultQueue } from './faults';
import { FakeTimers, startFakeServer, type FakeIncoming } from './server';

/** The market's path prefix (the adapter's base URL is the fake's URL plus it). */
export const VODACOM_MARKET_PATH = '/sandbox/ipg/v2/vodacomTZN';
export const SESSION_PATH = `${VODACOM_MARKET_PATH}/getSession/`;
export const C2B_PATH = `${VODACOM_MARKET_PATH}/c2bPayment/singleStage/`;
export const QUERY_PATH = `${VODACOM_MARKET_PATH}/queryTransactionStatus/`;
export const REVERSAL_PATH = `${VODACOM_MARKET_PATH}/reversal/`;
export const B2C_PATH = `${VODACOM_MARKET_PATH}/b2cPayment/`;

/** Numbers by their last four digits, named by what the customer does; any other number pays. */
export const VODACOM_FAKE_NUMBERS = {
  /** INS-5 (401): the customer cancelled the prompt. */
  cancelled: '0005',
  /** INS-6 (401): the transaction failed. */
  failed: '0006',
  /** INS-9 (408): the customer did not answer in time. */
  timeout: '0009',
  /** INS-2001 (400): the customer's PIN was wrong. */
  wrongPin: '2001',
  /** INS-2006 (422): insufficient balance. */
  insufficient: '2006',
  /** INS-996 (422): the customer's account is not active. */
  inactive: '0996',
  /** No answer until `decide`: the customer has the prompt. */
  undecided: '1111',
} as const;

/** B2C recipients by their last four digits; any other number is paid. */
export const VODACOM_FAKE_PAYEES = {
  /** INS-2006 (422): the business's balance is insufficient. */
  orgInsufficient: '2006',
  /** INS-996 (422): the recipient's account is not active. */
  inactive: '0996',
  /** INS-2002 (400): the receiver is not valid. */
  invalidReceiver: '2002',
} as const;

/** The B2C refusals of the payees above. */
const PAYEE_REFUSALS: Readonly<Record<string, { status: number; code: string; desc: string }>> = {
  [VODACOM_FAKE_PAYEES.orgInsufficient]: { status: 422, code: 'INS-2006', desc: 'Insufficient balance' },
  [VODACOM_FAKE_PAYEES.inactive]: { status: 422, code: 'INS-996', desc: 'Customer Account Status Not Active' },
  [VODACOM_FAKE_PAYEES.invalidReceiver]: { status: 400, code: 'INS-2002', desc: 'Receiver invalid' },
};

/** The customer's failures: HTTP status, code and description. */
const FAILURES: Readonly<Record<string, { status: number; code: string; desc: string }>> = {
  [VODACOM_FAKE_NUMBERS.cancelled]: { status: 401, code: 'INS-5', desc: 'Transaction cancelled by customer' },
  [VODACOM_FAKE_NUMBERS.failed]: { status: 401, code: 'INS-6', desc: 'Transaction Failed' },
  [VODACOM_FAKE_NUMBERS.timeout]: { status: 408, code: 'INS-9', desc: 'Request timeout' },
  [VODACOM_FAKE_NUMBERS.wrongPin]: { status: 400, code: 'INS-2001', desc: 'Initiator authentication error.' },
  [VODACOM_FAKE_NUMBERS.insufficient]: { status: 422, code: 'INS-2006', desc: 'Insufficient balance' },
  [VODACOM_FAKE_NUMBERS.inactive]: { status: 422, code: 'INS-996', desc: 'Customer Account Status Not Active' },
};

/** The fields each request's page names; any other is refused. */
const FIELDS: Readonly<Record<string, readonly string[]>> = {
  [C2B_PATH]: [
    'input_Amount',
    'input_Country',
    'input_Currency',
    'input_CustomerMSISDN',
    'input_ServiceProviderCode',
    'input_ThirdPartyConversationID',
    'input_TransactionReference',
    'input_PurchasedItemsDesc',
  ],
  [REVERSAL_PATH]: [
    'input_ReversalAmount',
    'input_Country',
    'input_ServiceProviderCode',
    'input_ThirdPartyConversationID',
    'input_TransactionID',
  ],
  [B2C_PATH]: [
    'input_Amount',
    'input_Country',
    'input_Currency',
    'input_CustomerMSISDN',
    'input_ServiceProviderCode',
    'input_ThirdPartyConversationID',
    'input_TransactionReference',
    'input_PaymentItemsDesc',
  ],
  [QUERY_PATH]: [
    'input_QueryReference',
    'input_ServiceProviderCode',
    'input_ThirdPartyConversationID',
    'input_Country',
  ],
};

/** A C2B payment or a reversal as the fake holds it. */
export interface VodacomTransaction {
  kind: 'c2b' | 'reversal' | 'b2c';
  thirdPartyConversationId: string;
  conversationId: string;
  /** Set once it succeeded. */
  transactionId: string | null;
  msisdn: string;
  /** Whole shillings. */
  amount: number;
  /** The C2B payment a reversal reverses (its TransactionID). */
  reverses?: string;
  /** Null while the customer has not answered. */
  result: { code: string; desc: string } | null;
  reversed: boolean;
}

/** One request the fake got. */
export interface VodacomRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  query: URLSearchParams;
  body: unknown;
}

/** Start options; every one has a default. */
export interface VodacomFakeOptions {
  apiKey?: string;
  serviceProviderCode?: string;
  /** The B2C short code payouts are paid from (default `000001`). */
  b2cServiceProviderCode?: string;
  /** Lifetime of issued sessions, in seconds (default 3600). */
  sessionLifetimeSeconds?: number;
}

/** A running fake. */
export interface VodacomFake {
  /** `http://127.0.0.1:{port}`. */
  url: string;
  /** The adapter's `baseUrl`: {@link url} plus {@link VODACOM_MARKET_PATH}. */
  baseUrl: string;
  apiKey: string;
  /** The portal's public key, base64 of its DER, as the portal gives it. */
  publicKey: string;
  serviceProviderCode: string;
  b2cServiceProviderCode: string;
  requests: VodacomRequest[];
  /** Every transaction the fake took (a faulted answer included: the prompt went to the phone), in order. */
  transactions: VodacomTransaction[];
  readonly sessionsIssued: number;
  /** The next `count` requests whose path starts with one of `paths` (default: all but the session's) get `kind`. */
  injectFaults(kind: FakeFaultKind, count: number, paths?: string[]): void;
  /** Expires every issued session now. */
  expireSessions(): void;
  /** The customer answers the undecided payment `thirdPartyConversationId`: `INS-0` pays, another code fails. */
  decide(thirdPartyConversationId: string, code: string): void;
  /** The next reversal fails with this status, code and description (once). */
  failNextReversal(status: number, code: string, desc: string): void;
  close(): Promise<void>;
}

interface Answer {
  status: number;
  body: unknown;
}

/** The OpenAPI's answer of `code`. */
function answer(status: number, code: string, desc: string, extra: Record<string, unknown> = {}): Answer {
  return { status, body: { output_ResponseCode: code, output_ResponseDesc: desc, ...extra } };
}

/**
 * `data` decrypted with `key` and its PKCS#1 v1.5 padding removed (Node refuses that padding in privateDecrypt, so the
 * fake decrypts raw and unpads: 0x00 0x02, at least 8 non-zero bytes, 0x00, the message); undefined when it is not.
 */
function decryptPkcs1(key: KeyObject, base64: string): string | undefined {
  try {
    const raw = privateDecrypt({ key, padding: constants.RSA_NO_PADDING }, Buffer.from(base64, 'base64'));
    if (raw[0] !== 0x00 || raw[1] !== 0x02) return undefined;
    const end = raw.indexOf(0x00, 2);
    if (end < 10) return undefined;
    return raw.subarray(end + 1).toString('utf8');
  } catch {
    return undefined;
  }
}

/**
 * The `vodacom` adapter's settings pointed at `fake`, as the settings schema takes them, with every call timed out
 * after `timeoutMs` milliseconds (the B2C short code included).
 */
export function vodacomSettingsFor(fake: VodacomFake, timeoutMs: number): Record<string, string | number> {
  return {
    baseUrl: fake.baseUrl,
    apiKey: fake.apiKey,
    publicKey: fake.publicKey,
    serviceProviderCode: fake.serviceProviderCode,
    b2cServiceProviderCode: fake.b2cServiceProviderCode,
    timeoutMs,
  };
}

/** Starts the fake on 127.0.0.1 (see the module's comment). */
export async function startVodacomFake(options: VodacomFakeOptions = {}): Promise<VodacomFake> {
  const apiKey = options.apiKey ?? 'vodacom-api-key-0123456789';
  const serviceProviderCode = options.serviceProviderCode ?? '000000';
  const b2cServiceProviderCode = options.b2cServiceProviderCode ?? '000001';
  const sessionLifetimeMs = (options.sessionLifetimeSeconds ?? 3600) * 1000;
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const requests: VodacomRequest[] = [];
  const transactions: VodacomTransaction[] = [];
  const sessions = new Map<string, number>();
  const faults = new FaultQueue((path) => path === SESSION_PATH);
  const timers = new FakeTimers();
  let sessionsIssued = 0;
  let nextReversalFailure: { status: number; code: string; desc: string } | null = null;

  const newId = (prefix: string) => `${prefix}${randomBytes(5).toString('hex').toUpperCase()}`;
  const byReference = (reference: string) =>
    transactions.find(
      (t) =>
        t.thirdPartyConversationId === reference || t.conversationId === reference || t.transactionId === reference,
    );

  function bearer(headers: http.IncomingHttpHeaders): string | undefined {
    const match = /^Bearer (\S+)$/.exec(headers.authorization ?? '');
    return match ? decryptPkcs1(privateKey, match[1] as string) : undefined;
  }

  function openSession(headers: http.IncomingHttpHeaders): Answer {
    if (bearer(headers) !== apiKey) return answer(401, 'INS-2', 'Invalid API Key');
    const session = randomBytes(16).toString('hex');
    sessions.set(session, Date.now() + sessionLifetimeMs);
    sessionsIssued += 1;
    return answer(200, 'INS-0', 'Request processed successfully', { output_SessionID: session });
  }

  /** The refusal of a request's fields, if any: a missing one, then one its page does not name. */
  function badFields(path: string, fields: Record<string, unknown>): Answer | undefined {
    const named = FIELDS[path] as readonly string[];
    if (named.some((field) => fields[field] === undefined || fields[field] === ''))
      return answer(400, 'INS-20', 'Not All Parameters Provided. Please try again.');
    if (Object.keys(fields).some((field) => !named.includes(field)))
      return answer(400, 'INS-21', 'Parameter validations failed. Please try again.');
    if (fields.input_Country !== 'TZN') return answer(400, 'INS-998', 'Invalid Market.');
    const shortcode = path === B2C_PATH ? b2cServiceProviderCode : serviceProviderCode;
    const known = path === QUERY_PATH ? [serviceProviderCode, b2cServiceProviderCode] : [shortcode];
    if (!known.includes(String(fields.input_ServiceProviderCode)))
      return answer(400, 'INS-13', 'Invalid Shortcode Used');
    const conversation = fields.input_ThirdPartyConversationID;
    if (typeof conversation !== 'string' || !/^[A-Za-z0-9]{1,40}$/.test(conversation))
      return answer(400, 'INS-19', 'Invalid ThirdPartyConversationID Used');
    return undefined;
  }

  /** Whole shillings of an amount written as a string of digits, else undefined. */
  const shillings = (value: unknown) =>
    typeof value === 'string' && /^[1-9][0-9]{0,11}$/.test(value) ? Number(value) : undefined;

  /** The answer of a decided C2B payment. */
  function c2bAnswerOf(transaction: VodacomTransaction): Answer {
    const result = transaction.result as { code: string; desc: string };
    const ids = {
      output_ConversationID: transaction.conversationId,
      output_ThirdPartyConversationID: transaction.thirdPartyConversationId,
    };
    if (result.code === 'INS-0')
      return answer(201, 'INS-0', 'Request processed successfully', {
        output_TransactionID: transaction.transactionId,
        ...ids,
      });
    const failure = Object.values(FAILURES).find((f) => f.code === result.code);
    return answer(failure?.status ?? 422, result.code, result.desc, ids);
  }

  /**
   * A C2B or B2C request's fields checked as its page says (`descField`: the description's field), and a new
   * transaction of `kind` taken from it; or the refusal.
   */
  function takeTransfer(
    kind: 'c2b' | 'b2c',
    path: string,
    body: Record<string, unknown>,
    descField: string,
  ): Answer | VodacomTransaction {
    const bad = badFields(path, body);
    if (bad) return bad;
    if (body.input_Currency !== 'TZS') return answer(400, 'INS-21', 'Parameter validations failed. Please try again.');
    const amount = shillings(body.input_Amount);
    if (amount === undefined) return answer(400, 'INS-15', 'Invalid Amount Used');
    const msisdn = String(body.input_CustomerMSISDN);
    if (!/^255[0-9]{9}$/.test(msisdn)) return answer(400, 'INS-2051', 'MSISDN invalid.');
    const reference = body.input_TransactionReference;
    if (typeof reference !== 'string' || !/^[A-Za-z0-9]{1,20}$/.test(reference))
      return answer(400, 'INS-17', 'Invalid Transaction Reference. Length Should Be Between 1 and 20.');
    const desc = body[descField];
    if (typeof desc !== 'string' || desc.length > 256)
      return answer(400, 'INS-21', 'Parameter validations failed. Please try again.');
    const conversation = String(body.input_ThirdPartyConversationID);
    if (transactions.some((t) => t.thirdPartyConversationId === conversation))
      return answer(409, 'INS-10', 'Duplicate Transaction');
    const transaction: VodacomTransaction = {
      kind,
      thirdPartyConversationId: conversation,
      conversationId: randomBytes(16).toString('hex'),
      transactionId: null,
      msisdn,
      amount,
      result: null,
      reversed: false,
    };
    transactions.push(transaction);
    return transaction;
  }

  function c2b(body: Record<string, unknown>): Answer {
    const transaction = takeTransfer('c2b', C2B_PATH, body, 'input_PurchasedItemsDesc');
    if (!('kind' in transaction)) return transaction;
    const { msisdn } = transaction;
    const last4 = msisdn.slice(-4);
    if (last4 === VODACOM_FAKE_NUMBERS.undecided) {
      // The gateway holds the call while the customer has the prompt: no answer ever comes to this request.
      faults.inject('hang', 1, [C2B_PATH]);
      return answer(500, 'INS-1', 'Internal Error');
    }
    const failure = FAILURES[last4];
    settle(transaction, failure ? failure.code : 'INS-0', failure?.desc ?? 'Request processed successfully');
    return c2bAnswerOf(transaction);
  }

  function settle(transaction: VodacomTransaction, code: string, desc: string): void {
    transaction.result = { code, desc };
    if (code === 'INS-0') transaction.transactionId = newId('');
  }

  function query(params: URLSearchParams): Answer {
    const fields = Object.fromEntries(params.entries());
    const bad = badFields(QUERY_PATH, fields);
    if (bad) return bad;
    const transaction = byReference(String(fields.input_QueryReference));
    if (!transaction) return answer(400, 'INS-14', 'Invalid Reference Used');
    const status =
      transaction.result === null
        ? 'Pending'
        : transaction.result.code === 'INS-0'
          ? 'Completed'
          : transaction.result.code === 'INS-5'
            ? 'Cancelled'
            : 'Failed';
    return answer(200, 'INS-0', 'Request processed successfully', {
      output_ResponseTransactionStatus: status,
      output_ConversationID: transaction.conversationId,
      output_ThirdPartyConversationID: fields.input_ThirdPartyConversationID,
      ...(transaction.transactionId ? { output_OriginalTransactionID: transaction.transactionId } : {}),
    });
  }

  function b2c(body: Record<string, unknown>): Answer {
    const transaction = takeTransfer('b2c', B2C_PATH, body, 'input_PaymentItemsDesc');
    if (!('kind' in transaction)) return transaction;
    const { msisdn, thirdPartyConversationId: conversation } = transaction;
    const ids = { output_ConversationID: transaction.conversationId, output_ThirdPartyConversationID: conversation };
    const refusal = PAYEE_REFUSALS[msisdn.slice(-4)];
    if (refusal) {
      settle(transaction, refusal.code, refusal.desc);
      return answer(refusal.status, refusal.code, refusal.desc, ids);
    }
    settle(transaction, 'INS-0', 'Request processed successfully');
    return answer(200, 'INS-0', 'Request processed successfully', {
      output_TransactionID: transaction.transactionId,
      ...ids,
    });
  }

  function reversal(body: Record<string, unknown>): Answer {
    const bad = badFields(REVERSAL_PATH, body);
    if (bad) return bad;
    const conversation = String(body.input_ThirdPartyConversationID);
    if (transactions.some((t) => t.thirdPartyConversationId === conversation))
      return answer(409, 'INS-10', 'Duplicate Transaction');
    const original = transactions.find((t) => t.kind === 'c2b' && t.transactionId === body.input_TransactionID);
    if (!original || original.reversed) return answer(400, 'INS-18', 'Invalid TransactionID Used');
    if (shillings(body.input_ReversalAmount) !== original.amount) return answer(400, 'INS-15', 'Invalid Amount Used');
    const transaction: VodacomTransaction = {
      kind: 'reversal',
      thirdPartyConversationId: conversation,
      conversationId: randomBytes(16).toString('hex'),
      transactionId: null,
      msisdn: original.msisdn,
      amount: original.amount,
      reverses: original.transactionId as string,
      result: null,
      reversed: false,
    };
    transactions.push(transaction);
    const ids = {
      output_ConversationID: transaction.conversationId,
      output_ThirdPartyConversationID: conversation,
    };
    if (nextReversalFailure) {
      const failure = nextReversalFailure;
      nextReversalFailure = null;
      settle(transaction, failure.code, failure.desc);
      return answer(failure.status, failure.code, failure.desc, ids);
    }
    settle(transaction, 'INS-0', 'Request processed successfully');
    original.reversed = true;
    return answer(200, 'INS-0', 'Request processed successfully', {
      output_TransactionID: transaction.transactionId,
      ...ids,
    });
  }

  function handle(request: FakeIncoming): Answer {
    requests.push({
      method: request.method,
      path: request.path,
      headers: request.headers,
      query: request.query,
      body: request.body,
    });
    if (request.method === 'GET' && request.path === SESSION_PATH) return openSession(request.headers);
    const session = bearer(request.headers);
    const expiresAt = session === undefined ? undefined : sessions.get(session);
    if (expiresAt === undefined || expiresAt <= Date.now()) return answer(401, 'INS-2', 'Invalid API Key');
    if (!request.headers.origin) return answer(400, 'INS-21', 'Parameter validations failed. Please try again.');
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (request.method === 'POST' && request.path === C2B_PATH) return c2b(body);
    if (request.method === 'GET' && request.path === QUERY_PATH) return query(request.query);
    if (request.method === 'PUT' && request.path === REVERSAL_PATH) return reversal(body);
    if (request.method === 'POST' && request.path === B2C_PATH) return b2c(body);
    return { status: 404, body: { statusCode: 404, message: 'Resource not found' } };
  }

  const server = await startFakeServer({
    faults,
    timers,
    replacements: {
      error500: answer(500, 'INS-1', 'Internal Error'),
      undocumented: { result: 'ok' },
    },
    handle,
  });

  return {
    url: server.url,
    baseUrl: `${server.url}${VODACOM_MARKET_PATH}`,
    apiKey,
    publicKey: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    serviceProviderCode,
    b2cServiceProviderCode,
    requests,
    transactions,
    get sessionsIssued() {
      return sessionsIssued;
    },
    injectFaults: (kind, count, paths) => faults.inject(kind, count, paths),
    expireSessions() {
      for (const session of sessions.keys()) sessions.set(session, 0);
    },
    decide(thirdPartyConversationId, code) {
      const transaction = transactions.find((t) => t.thirdPartyConversationId === thirdPartyConversationId);
      if (!transaction || transaction.result !== null)
        throw new Error(`no undecided payment ${thirdPartyConversationId}`);
      const failure = Object.values(FAILURES).find((f) => f.code === code);
      settle(transaction, code, failure?.desc ?? 'Request processed successfully');
    },
    failNextReversal(status, code, desc) {
      nextReversalFailure = { status, code, desc };
    },
    close: () => server.close(),
  };
}
