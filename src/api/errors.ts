/** HTTP status of each error code (docs/api.md#errors); the error middleware is the only user. */
import type { ErrorCode } from '../domain/errors';

/** Error code (docs/api.md#errors) → HTTP status. */
export const HTTP_STATUS: Readonly<Record<ErrorCode, number>> = {
  invalid_request: 400,
  validation_error: 400,
  unauthorized: 401,
  invalid_api_key: 401,
  forbidden: 403,
  merchant_mismatch: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  idempotency_key_reused: 409,
  payment_not_cancellable: 409,
  payment_not_refundable: 409,
  amount_exceeds_refundable: 400,
  insufficient_balance: 409,
  payout_not_cancellable: 409,
  checkout_session_not_open: 409,
  checkout_session_attempt_in_progress: 409,
  checkout_session_attempts_exhausted: 409,
  payment_link_inactive: 409,
  payment_link_exhausted: 409,
  documents_missing: 400,
  file_too_large: 413,
  unsupported_file_type: 400,
  provider_unavailable: 503,
  rate_limited: 429,
  service_unavailable: 503,
  internal_error: 500,
};
