/**
 * Typed domain errors carrying the error codes of docs/api.md#errors. Domain code throws {@link DomainError}; the
 * API's one error middleware maps the code to an HTTP status (src/api/errors.ts).
 */

/** Every error code the service answers with (docs/api.md#errors). */
export const ERROR_CODES = [
  'invalid_request',
  'validation_error',
  'unauthorized',
  'invalid_api_key',
  'forbidden',
  'merchant_mismatch',
  'not_found',
  'method_not_allowed',
  'conflict',
  'idempotency_key_reused',
  'payment_not_cancellable',
  'payment_not_refundable',
  'amount_exceeds_refundable',
  'insufficient_balance',
  'payout_not_cancellable',
  'checkout_session_not_open',
  'checkout_session_attempt_in_progress',
  'checkout_session_attempts_exhausted',
  'payment_link_inactive',
  'payment_link_exhausted',
  'documents_missing',
  'file_too_large',
  'unsupported_file_type',
  'provider_unavailable',
  'rate_limited',
  'service_unavailable',
  'internal_error',
] as const;

/** One of the error codes (docs/api.md#errors). */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** One bad field of a request: `field` is a dotted path (`payment_method_data.phone_number`). */
export interface FieldProblem {
  field: string;
  message: string;
}

/**
 * An error the caller can act on. `message` is safe to show to merchants; `details` lists every
 * bad field for `validation_error` (docs/api.md#errors).
 */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: FieldProblem[],
    /** HTTP status when it differs from the code's usual one (e.g. 413 for an oversized body). */
    readonly status?: number,
    /**
     * Seconds the caller should wait before retrying, sent as `Retry-After`: set only on a refusal made before
     * anything was done (nothing created, no `Idempotency-Key` kept), such as a provider that is down.
     */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

/** A `validation_error` whose message is the first problem's and whose details list all of them. */
export function validationError(problems: FieldProblem[]): DomainError {
  const first = problems[0] ?? { field: 'body', message: 'request is invalid' };
  return new DomainError('validation_error', first.message, problems);
}

/**
 * `found` itself when it is there (not undefined or null); else a DomainError `not_found` (404) saying there is no
 * `what` with id `id` (`no payout with id po_…`), for unknown and foreign ids alike.
 */
export function orNotFound<T>(found: T | undefined | null, what: string, id: string): T {
  if (found === undefined || found === null) throw new DomainError('not_found', `no ${what} with id ${id}`);
  return found;
}
