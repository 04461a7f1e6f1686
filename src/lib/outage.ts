/**
 * Which errors mean that PostgreSQL or Temporal cannot be reached right now (docs/api.md#errors: 503
 * `service_unavailable` with `Retry-After`, not 500): the request can be retried as it is.
 */
import { isGrpcServiceError, ServiceError } from '@temporalio/client';

/** Node and PostgreSQL codes of a connection that could not be made or was lost (SQLSTATE classes 08 and 57P). */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
]);

/**
 * SQLSTATE 57014 query_canceled: PostgreSQL cancelled a statement at `statement_timeout`
 * (docs/operations.md#deadlines). This service never cancels its own statements otherwise.
 */
const STATEMENT_TIMED_OUT = '57014';

/**
 * node-postgres' messages for a connection that could not be opened in time, was lost, or got no
 * answer within `query_timeout`; they carry no code. knex puts the statement before them
 * (`insert into … - Connection terminated unexpectedly`), hence the optional prefix.
 */
const PG_CONNECTION_LOST =
  /(?:^| - )(?:Connection terminated(?: unexpectedly| due to connection timeout)?|Query read timeout|timeout expired|Client has encountered a connection error and is not queryable|Client was closed and is not queryable)$/;

/** gRPC status codes of a Temporal server that did not answer: UNAVAILABLE (14), DEADLINE_EXCEEDED (4). */
const GRPC_UNAVAILABLE = new Set([14, 4]);

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * True when `error` (or what it wraps) says PostgreSQL or Temporal is unreachable: a refused or
 * lost connection, a connection or statement past its time bound (docs/operations.md#deadlines), a PostgreSQL
 * shutting down, knex's pool time-out ("Knex: Timeout acquiring a connection"), or a Temporal call
 * answered UNAVAILABLE or DEADLINE_EXCEEDED.
 */
export function isOutage(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 4) return false;
  const code = errorCode(error);
  if (code && (CONNECTION_CODES.has(code) || code.startsWith('08') || code === STATEMENT_TIMED_OUT)) return true;
  if ((error as Error).name === 'KnexTimeoutError') return true;
  if (code === undefined && error instanceof Error && PG_CONNECTION_LOST.test(error.message)) return true;
  if (isGrpcServiceError(error) && GRPC_UNAVAILABLE.has(error.code)) return true;
  if (error instanceof AggregateError && error.errors.some((inner) => isOutage(inner, depth + 1))) return true;
  if (error instanceof ServiceError || error instanceof Error)
    return isOutage((error as { cause?: unknown }).cause, depth + 1);
  return false;
}
