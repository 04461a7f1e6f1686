/**
 * The error responses of the OpenAPI document: for each status an operation answers, the error
 * codes it may carry, when each is answered (written for merchants), and an example body per code.
 * The codes and statuses are the service's own (src/domain/errors.ts, src/api/errors.ts).
 */
import type { ZodType } from 'zod';
import { HTTP_STATUS } from '../errors';
import type { ErrorCode } from '../../domain/errors';

/** One error code an operation answers: when (for merchants) and the example message. */
export interface CodeDoc {
  code: ErrorCode;
  /** When this operation answers the code; defaults to {@link ERROR_CODE_DOCS}' text. */
  when?: string;
  /** The example message; defaults to {@link ERROR_CODE_DOCS}' example. */
  message?: string;
  /** Example `details` of a `validation_error` or `documents_missing`. */
  details?: { field: string; message: string }[];
}

/** When each code is answered, in general, and a typical message. */
export const ERROR_CODE_DOCS: Readonly<Record<ErrorCode, { when: string; message: string }>> = {
  invalid_request: {
    when: 'The body is not valid JSON or not sent as `application/json`.',
    message: 'request body is not valid JSON',
  },
  validation_error: {
    when: 'A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.',
    message: 'unknown field: colour',
  },
  unauthorized: {
    when: 'The credential is missing or malformed, or the session token has expired.',
    message: 'send your secret key as Authorization: Bearer sk_…',
  },
  invalid_api_key: {
    when: 'The secret key is unknown, was rolled and has expired, or was revoked.',
    message: 'the API key is not valid',
  },
  forbidden: {
    when: 'The credential cannot use this operation.',
    message: 'this credential cannot use this operation',
  },
  merchant_mismatch: {
    when: "The merchant id in the path is not the API key's merchant.",
    message: 'merchant_id does not match the API key',
  },
  not_found: {
    when: 'No such resource in this account and environment (ids of other accounts are not found either).',
    message: 'no payment with id pay_7Hc2WqN5xR8tLm3Kd9PzYb4V',
  },
  method_not_allowed: { when: 'The path does not take this method.', message: 'DELETE is not allowed on this path' },
  conflict: {
    when: 'The request conflicts with the current state.',
    message: 'a request with this Idempotency-Key is still in progress',
  },
  idempotency_key_reused: {
    when: 'This `Idempotency-Key` was used within 24 hours with a different request.',
    message: 'this Idempotency-Key was used with a different request',
  },
  payment_not_cancellable: {
    when: "The payment is no longer `pending` or `processing` (also when the provider's success came first: the payment is then `completed`).",
    message: 'a completed payment cannot be cancelled; only pending and processing payments can',
  },
  payment_not_refundable: {
    when: 'The payment is not `completed`, or its refund window has passed.',
    message: 'a pending payment cannot be refunded; only completed payments can',
  },
  amount_exceeds_refundable: {
    when: 'The amount is more than what is left to refund (refunds in progress count).',
    message: 'amount exceeds the refundable amount of 1000',
  },
  insufficient_balance: {
    when: 'The available balance is negative, or less than the payout amount plus the payout fee (docs/payouts.md#money). Nothing is reserved.',
    message: 'the available RWF balance is 900, less than the amount 900 plus the payout fee 9',
  },
  payout_not_cancellable: {
    when: 'The payout is no longer `pending`: its provider has it, or it has ended.',
    message: 'a payout that is in_transit cannot be cancelled; only pending payouts can',
  },
  checkout_session_not_open: {
    when: 'The checkout session is `complete` or `expired` (docs/checkout.md#states): it takes no attempt and no expire.',
    message: 'this checkout session is complete',
  },
  checkout_session_attempt_in_progress: {
    when: 'An attempt of the checkout session has no final outcome yet: no second attempt, no expire; nobody is prompted.',
    message: 'an attempt of this checkout session is still in progress; wait for its outcome',
  },
  checkout_session_attempts_exhausted: {
    when: 'The checkout session had its 10 attempts.',
    message: 'this checkout session had its 10 attempts',
  },
  payment_link_inactive: {
    when: 'The checkout session came from a payment link that you deactivated (docs/payment-links.md#closed): it takes no attempt; nobody is prompted.',
    message: 'the payment link of this checkout session is no longer active',
  },
  payment_link_exhausted: {
    when: 'The checkout session came from a payment link whose completed payments and attempts in flight reached its `completed_limit` (docs/payment-links.md#limits): nobody is prompted.',
    message: 'the payment link of this checkout session has reached its limit of completed payments',
  },
  documents_missing: {
    when: 'An identity document or the business registration certificate has not been uploaded yet; `details` lists what is missing.',
    message: 'documents missing: upload a business registration certificate',
  },
  file_too_large: { when: 'The file is larger than 10 MB.', message: 'the file is larger than 10 MB (10485760 bytes)' },
  unsupported_file_type: {
    when: 'The file is not a PDF, JPEG or PNG (read from its bytes, not its name).',
    message: 'the file must be a PDF, JPEG or PNG; found text/plain',
  },
  provider_unavailable: {
    when: 'No provider serves this payment method in this environment yet; nothing was created.',
    message: 'no provider serves wallet payments in live mode yet',
  },
  rate_limited: {
    when: 'Too many requests; retry after the `Retry-After` seconds.',
    message: 'rate limit exceeded; retry in 12 seconds',
  },
  service_unavailable: {
    when: 'PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.',
    message:
      'the service cannot reach its database or workflow engine right now; retry shortly with the same Idempotency-Key, which never repeats what a first attempt did',
  },
  internal_error: { when: 'An unexpected fault; nothing about it is shown.', message: 'internal error' },
};

/** What each status means in general, the first line of its response description. */
export const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'Invalid request',
  401: 'Missing or invalid credential',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict with the current state',
  413: 'Body too large',
  429: 'Rate limited',
  500: 'Internal error',
  503: 'Unavailable right now',
};

/** The documented facts of one operation that decide its error codes. */
export interface ErrorContext {
  /** The JSON (`application/json`) or multipart body, if any. */
  body?: { zod: ZodType; multipart: boolean };
  /** Credentials accepted. */
  security: readonly string[];
  /** Takes `Idempotency-Key`. */
  idempotent: boolean;
  /** Route-specific codes, possibly with their own text. */
  codes: readonly (ErrorCode | CodeDoc)[];
}

function codeDoc(entry: ErrorCode | CodeDoc): CodeDoc {
  return typeof entry === 'string' ? { code: entry } : entry;
}

/** The codes every operation of its kind answers with `status`, before its own. */
function defaultCodes(status: number, context: ErrorContext): CodeDoc[] {
  switch (status) {
    case 400:
      return [exampleValidationError(context), ...(context.body ? [{ code: 'invalid_request' as const }] : [])];
    case 401:
      return [
        { code: 'unauthorized' },
        ...(context.security.some((name) => name === 'secretKey' || name === 'apiKey')
          ? [{ code: 'invalid_api_key' as const }]
          : []),
      ];
    case 404:
      return [{ code: 'not_found' }];
    case 409:
      return context.idempotent
        ? [
            { code: 'idempotency_key_reused' },
            {
              code: 'conflict',
              when: 'A request with this `Idempotency-Key` is still in progress; retry in a moment.',
            },
          ]
        : [];
    case 413:
      return context.body?.multipart
        ? [{ code: 'file_too_large' }]
        : [
            {
              code: 'invalid_request',
              when: 'The JSON body is larger than 1 MB.',
              message: 'request body is larger than 1 MB',
            },
          ];
    case 429:
      return [{ code: 'rate_limited' }];
    case 503:
      return [{ code: 'service_unavailable' }];
    default:
      return [];
  }
}

/**
 * A `validation_error` example: "name is required" for the first required field of an object body, else an unknown
 * field.
 */
function exampleValidationError(context: ErrorContext): CodeDoc {
  const shape = (context.body?.zod as { shape?: Record<string, ZodType> } | undefined)?.shape;
  const required = shape ? Object.entries(shape).find(([, field]) => !field.safeParse(undefined).success) : undefined;
  const [field, message] = required
    ? [required[0], `${required[0]} is required`]
    : ['colour', ERROR_CODE_DOCS.validation_error.message];
  return { code: 'validation_error', message, details: [{ field, message }] };
}

/**
 * The codes an operation answers with `status`: the defaults of its kind, then its own (an own
 * entry replaces a default of the same code). A status with none falls back to the codes the
 * service maps to it.
 */
export function codesFor(status: number, context: ErrorContext): CodeDoc[] {
  const own = context.codes
    .map(codeDoc)
    .filter((doc) => HTTP_STATUS[doc.code] === status || (status === 413 && doc.code === 'file_too_large'));
  const merged = [...defaultCodes(status, context).filter((doc) => !own.some((o) => o.code === doc.code)), ...own];
  if (merged.length > 0) return merged;
  return (Object.keys(HTTP_STATUS) as ErrorCode[])
    .filter((code) => HTTP_STATUS[code] === status)
    .map((code) => ({ code }));
}

/** The statuses of an operation's own codes (a code implies its status). */
export function statusesOfCodes(codes: readonly (ErrorCode | CodeDoc)[]): number[] {
  return codes.map((entry) => HTTP_STATUS[codeDoc(entry).code]);
}

/** The response description: what the status means, then each code and when it is answered. */
export function errorDescription(status: number, codes: CodeDoc[]): string {
  const lines = codes.map((doc) => `- \`${doc.code}\`: ${doc.when ?? ERROR_CODE_DOCS[doc.code].when}`);
  return `${STATUS_TEXT[status] ?? 'Error'}. Error codes:\n\n${lines.join('\n')}`;
}

/**
 * One example per code, keyed by code: the envelope `{success: false, error: {code, message,
 * details?}}`, or the merchant-scoped `{error}` when `plain`.
 */
export function errorExamples(codes: CodeDoc[], plain: boolean): Record<string, { summary: string; value: unknown }> {
  return Object.fromEntries(
    codes.map((doc) => {
      const message = doc.message ?? ERROR_CODE_DOCS[doc.code].message;
      const value = plain
        ? { error: message }
        : { success: false, error: { code: doc.code, message, ...(doc.details ? { details: doc.details } : {}) } };
      return [doc.code, { summary: doc.code, value }];
    }),
  );
}
