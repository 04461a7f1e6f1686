/**
 * One JSON log for every process (docs/api.md#health, docs/operations.md#logs), with pino: one line per entry, `time`
 * in ISO 8601 UTC,
 * `level` as its name, the process in `process`, and the ids of what the line is about where known:
 * `request_id`, `merchant_id`, `payment_id`, `workflow_id`.
 *
 * The ids come from the log context ({@link withLogContext}), an AsyncLocalStorage the API opens per
 * request and the worker per activity, read by the logger's `mixin` for every line, so that a line
 * written deep below (knex's warnings, a provider adapter) carries them without being handed a
 * logger. The Temporal SDK's runtime logger ({@link temporalLogger}) and knex's log hooks
 * ({@link knexLogHooks}) write through the same logger.
 *
 * Nothing secret or personal leaves a process in a log line ({@link redactLogValue}): values under
 * keys that name credentials (authorization, cookie, password, secret, token, api key, private key)
 * are replaced, and every string is masked for secret keys (`sk_…`, `rk_…`, `whsec_…`), bearer
 * tokens, JWTs and MSISDN-like phone numbers.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import pino, { type Logger, type LoggerOptions } from 'pino';
import type { LogLevel as TemporalLogLevel, LogMetadata, Logger as TemporalLogger } from '@temporalio/common';

export type { Logger };

/** The ids a log line carries when they are known (docs/operations.md#logs). */
export interface LogContextFields {
  request_id?: string;
  merchant_id?: string;
  payment_id?: string;
  workflow_id?: string;
}

/**
 * What the log context holds: fixed ids, and a function read at each line for ids that are learnt
 * during the work (the API's merchant after authentication, the payment once the route is matched).
 */
interface LogContext {
  fields: LogContextFields;
  late?: () => LogContextFields;
}

const logContext = new AsyncLocalStorage<LogContext>();

/**
 * Runs `work` with `fields` (and `late`, read at every line) as the log context of every line
 * written inside it, including by code it calls asynchronously.
 * @returns what `work` returns
 */
export function withLogContext<T>(fields: LogContextFields, work: () => T, late?: () => LogContextFields): T {
  const outer = logContext.getStore();
  return logContext.run({ fields: { ...outer?.fields, ...fields }, late }, work);
}

/** The ids of the current log context (empty outside one). */
export function currentLogContext(): LogContextFields {
  const store = logContext.getStore();
  if (!store) return {};
  const late = store.late?.() ?? {};
  const fields: LogContextFields = { ...store.fields };
  for (const [key, value] of Object.entries(late) as [keyof LogContextFields, string | undefined][]) {
    if (value !== undefined && value !== '') fields[key] = value;
  }
  return fields;
}

/** The payment id in a Temporal workflow id `payment:pay_…` (docs/payments.md#workflow), if it is one. */
export function paymentIdOfWorkflowId(workflowId: string | undefined): string | undefined {
  return workflowId?.startsWith('payment:') ? workflowId.slice('payment:'.length) : undefined;
}

// ---------------------------------------------------------------------------------------------
// Redaction

/** Keys whose values are credentials: replaced whole, whatever they hold. */
const SECRET_KEY_NAME = /authorization|cookie|passw(or)?d|secret|token|api[-_]?key|private[-_]?key|credential/i;
/** Keys whose values are ids and times we generate: left as they are (a UUID's digit group is no phone number). */
const VERBATIM_KEY_NAME = /(^|_)id$|Id$|^time$|_at$|At$/;

const REDACTED = '[redacted]';

/** String patterns of secrets, each with its replacement. */
const SECRET_PATTERNS: readonly [RegExp, (match: string) => string][] = [
  // JSON Web Tokens (session tokens, docs/api.md#sessions).
  [/\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]+/g, () => '[jwt]'],
  // `Bearer <anything>` in a header value or message.
  [/\bBearer\s+[^\s"',;]+/gi, () => `Bearer ${REDACTED}`],
  // Secret and restricted keys (ours `sk_sandbox_…`/`sk_live_…`, docs/api.md#secret-keys; Stripe's), webhook secrets:
  // the last 4 stay (docs/api.md#secret-keys).
  [
    /\b(?:sk|rk)_[A-Za-z0-9_]{12,}|\bwhsec_[A-Za-z0-9+/=_]{8,}/g,
    (match) => `${match.slice(0, match.indexOf('_') + 1)}…${match.slice(-4)}`,
  ],
  // Card payments' client secrets (`pi_…_secret_…`).
  [/\b[a-z]{2,4}_[A-Za-z0-9]+_secret_[A-Za-z0-9]+/g, () => REDACTED],
];

/**
 * MSISDN-like numbers: `+` and 8–15 digits (single spaces or dashes allowed between them), or a run
 * of 9–15 digits standing alone (not part of a word, a decimal, a time or a UUID).
 */
const PHONE_PATTERN = /\+\d(?:[ -]?\d){7,14}(?!\d)|(?<![\w.:-])\d{9,15}(?![\w.:-])/g;

/** `+250788123456` → `+250*******56`: the country code and the last two digits stay. */
function maskPhone(match: string): string {
  const digits = match.replace(/[^\d+]/g, '');
  const keepStart = digits.startsWith('+') ? 4 : 2;
  return `${digits.slice(0, keepStart)}${'*'.repeat(Math.max(digits.length - keepStart - 2, 3))}${digits.slice(-2)}`;
}

/** `text` with secret keys, bearer tokens, JWTs, client secrets and phone numbers masked. */
export function maskSensitiveText(text: string): string {
  let masked = text;
  for (const [pattern, replace] of SECRET_PATTERNS) masked = masked.replace(pattern, replace);
  return masked.replace(PHONE_PATTERN, maskPhone);
}

const MAX_DEPTH = 8;

/**
 * A copy of `value` safe to log: values under credential keys replaced by `[redacted]`, every
 * string masked ({@link maskSensitiveText}) except under keys of our own ids and times, errors
 * turned into `{type, message, stack, code, …}` first. Cycles and depth beyond 8 become `[…]`.
 * @param key the key `value` sits under, if any
 */
export function redactLogValue(
  value: unknown,
  key?: string,
  depth = 0,
  seen: WeakSet<object> = new WeakSet(),
): unknown {
  if (key !== undefined && SECRET_KEY_NAME.test(key) && value !== undefined && value !== null && value !== '')
    return REDACTED;
  if (typeof value === 'string')
    return key !== undefined && VERBATIM_KEY_NAME.test(key) ? value : maskSensitiveText(value);
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Date) return value.toISOString();
  if (depth >= MAX_DEPTH || seen.has(value)) return '[…]';
  seen.add(value);
  if (value instanceof Error) return redactLogValue(pino.stdSerializers.err(value), key, depth + 1, seen);
  if (Buffer.isBuffer(value)) return `[${value.length} bytes]`;
  if (Array.isArray(value)) return value.map((item) => redactLogValue(item, undefined, depth + 1, seen));
  const copy: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) copy[name] = redactLogValue(item, name, depth + 1, seen);
  return copy;
}

/**
 * A log object made safe ({@link redactLogValue}), except an `err` that is an Error: pino's `err`
 * serializer turns it into `{type, message, stack}` afterwards, and {@link serializeError} masks that.
 */
function redactLogObject(object: Record<string, unknown>): Record<string, unknown> {
  const { err, ...rest } = object;
  const safe = redactLogValue(rest) as Record<string, unknown>;
  if (err !== undefined) safe.err = err instanceof Error ? err : redactLogValue(err, 'err');
  return safe;
}

/** pino's error serializer, masked like every other value. */
function serializeError(error: unknown): unknown {
  return error instanceof Error ? redactLogValue(pino.stdSerializers.err(error)) : error;
}

/** pino `redact` paths for the usual places of credentials (belt and braces with {@link redactLogValue}). */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'headers.cookie',
  'headers["x-api-key"]',
  'password',
  '*.password',
  'client_secret',
  '*.client_secret',
  'phone_number',
  '*.phone_number',
  'customer_phone',
  '*.customer_phone',
  'customerPhone',
  '*.customerPhone',
];

// ---------------------------------------------------------------------------------------------
// Loggers

let processLogger: Logger | undefined;

/** The time of the line being written when it is not now (a buffered Temporal SDK line), ISO 8601. */
let lineTime: string | undefined;

/** pino's `timestamp`: ISO 8601 UTC, now or the buffered line's own time. */
function isoTime(): string {
  return `,"time":"${lineTime ?? new Date().toISOString()}"`;
}

/**
 * The JSON logger of process `name` (api, worker, run, admin) at `level`: ISO time, level names,
 * the log context's ids on every line, redaction as the module says. The first logger a process
 * creates is also its process logger ({@link getProcessLogger}).
 * @param level pino level: fatal, error, warn, info, debug, trace or silent
 * @param destination where lines go (default: stdout, synchronously)
 */
export function createLogger(name: string, level: string, destination?: pino.DestinationStream): Logger {
  const options: LoggerOptions = {
    name,
    level,
    base: { service: 'paycollect', process: name, pid: process.pid },
    timestamp: isoTime,
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    mixin: () => ({ ...currentLogContext() }),
    // The call's own fields win over the context's.
    mixinMergeStrategy: (mergeObject, mixinObject) => Object.assign(mixinObject, mergeObject),
    formatters: {
      level: (label) => ({ level: label }),
      bindings: (bindings) => redactLogValue(bindings) as Record<string, unknown>,
      log: redactLogObject,
    },
    serializers: { err: serializeError },
    hooks: {
      // The message and any interpolation arguments are masked like every other string.
      logMethod(args, method) {
        const masked: unknown[] = args.map((arg) => (typeof arg === 'string' ? maskSensitiveText(arg) : arg));
        // pino takes an error's message as the line's message when none is given: masked here.
        const [first, second] = masked;
        if (typeof second !== 'string') {
          if (first instanceof Error) masked.splice(0, 1, { err: first }, maskSensitiveText(first.message));
          else if (typeof first === 'object' && first !== null && (first as { err?: unknown }).err instanceof Error) {
            masked.splice(1, 0, maskSensitiveText((first as { err: Error }).err.message));
          }
        }
        return method.apply(this, masked as Parameters<typeof method>);
      },
    },
  };
  const logger = destination ? pino(options, destination) : pino(options);
  processLogger ??= logger;
  return logger;
}

/**
 * The process's logger: the first one {@link createLogger} made, else a `warn`-level JSON logger
 * named `paycollect`, for code that logs without being handed a logger (knex's hooks).
 */
export function getProcessLogger(): Logger {
  processLogger ??= createLogger('paycollect', 'warn');
  return processLogger;
}

// ---------------------------------------------------------------------------------------------
// The Temporal SDK's runtime logger

/**
 * The key of a Temporal SDK line's emission time (nanoseconds, bigint) in its metadata: the SDK's
 * `LogTimestamp`, a registered symbol, named here so the API need not load the worker's native module.
 */
const LOG_TIMESTAMP = Symbol.for('log_timestamp');

const TEMPORAL_LEVELS: Record<TemporalLogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/**
 * The SDK's metadata as log fields: its ids in our names (`workflow_id`, `payment_id`, `merchant_id`), the task token
 * dropped.
 */
function fieldsOfTemporalMeta(meta: LogMetadata | undefined): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  if (!meta) return fields;
  for (const [key, value] of Object.entries(meta)) {
    if (value === undefined || key === 'taskToken') continue;
    if (key === 'workflowId') fields.workflow_id = value;
    else if (key === 'paymentId') fields.payment_id = value;
    else if (key === 'merchantId') fields.merchant_id = value;
    else fields[key] = value;
  }
  const paymentId = paymentIdOfWorkflowId(typeof fields.workflow_id === 'string' ? fields.workflow_id : undefined);
  if (paymentId && fields.payment_id === undefined) fields.payment_id = paymentId;
  return fields;
}

/**
 * The Temporal SDK's `Logger` writing through `logger` (`Runtime.install({ logger })`): the SDK's
 * own lines, the workflow and activity context loggers' and, with `telemetryOptions.logging.forward`,
 * the Core SDK's, each as one JSON line at the matching level with its metadata as fields.
 * @param logger the process's pino logger; its level filters (a `debug` line is dropped at `info`)
 */
export function temporalLogger(logger: Logger): TemporalLogger {
  const write = (level: TemporalLogLevel, message: string, meta?: LogMetadata) => {
    const method = TEMPORAL_LEVELS[level] ?? 'info';
    if (!logger.isLevelEnabled(method)) return;
    // The SDK buffers lines (about 100 ms) to order them: each keeps the time it was emitted.
    const emittedNanos: unknown = meta?.[LOG_TIMESTAMP];
    lineTime = typeof emittedNanos === 'bigint' ? new Date(Number(emittedNanos / 1_000_000n)).toISOString() : undefined;
    try {
      logger[method](fieldsOfTemporalMeta(meta), message);
    } finally {
      lineTime = undefined;
    }
  };
  return {
    log: write,
    trace: (message, meta) => write('TRACE', message, meta),
    debug: (message, meta) => write('DEBUG', message, meta),
    info: (message, meta) => write('INFO', message, meta),
    warn: (message, meta) => write('WARN', message, meta),
    error: (message, meta) => write('ERROR', message, meta),
  };
}

/** The Temporal SDK's level name of pino level `level` (`silent` and `fatal` map to ERROR). */
export function temporalLevelOf(level: string): TemporalLogLevel {
  switch (level) {
    case 'trace':
      return 'TRACE';
    case 'debug':
      return 'DEBUG';
    case 'info':
      return 'INFO';
    case 'warn':
      return 'WARN';
    default:
      return 'ERROR';
  }
}

// ---------------------------------------------------------------------------------------------
// knex

/**
 * knex's `log` option: its warnings, errors, deprecations and debug output as JSON lines of `logger` (component
 * `knex`).
 */
export interface KnexLogHooks {
  warn(message: unknown): void;
  error(message: unknown): void;
  deprecate(method: string, alternative: string): void;
  debug(message: unknown): void;
}

/**
 * knex's log hooks writing through `logger()` (read at each call, so a process logger made after the
 * pool still gets them). Messages are strings or objects (a query's debug object); both are redacted.
 */
export function knexLogHooks(logger: () => Logger): KnexLogHooks {
  const write = (level: 'warn' | 'error' | 'debug', message: unknown) => {
    const target = logger();
    if (!target.isLevelEnabled(level)) return;
    if (typeof message === 'string') target[level]({ component: 'knex' }, message);
    else if (message instanceof Error) target[level]({ component: 'knex', err: message }, message.message);
    else target[level]({ component: 'knex', detail: message }, 'knex');
  };
  return {
    warn: (message) => write('warn', message),
    error: (message) => write('error', message),
    deprecate: (method, alternative) =>
      logger().warn({ component: 'knex', method, alternative }, `${method} is deprecated; use ${alternative}`),
    debug: (message) => write('debug', message),
  };
}
