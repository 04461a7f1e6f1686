/**
 * Every setting of the service, read from the environment and validated with zod at start.
 * This module is the only reader of `process.env` in `src/`, so every setting is validated in one place. A bad setting
 * stops the
 * process with a message naming it (`loadConfig` throws {@link ConfigError}).
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { defaultMerchantConcurrency } from './domain/webhooks';
import { providerSettingsFrom, type ProviderSettingsByEnvironment } from './providers/settings';

const port = z.coerce.number().int().min(0).max(65535);
const positiveSeconds = z.coerce.number().int().positive();
const emailList = z
  .string()
  .transform((value) =>
    value
      .split(',')
      .map((address) => address.trim())
      .filter((address) => address !== ''),
  )
  .pipe(z.array(z.email()).min(1, 'must name at least one e-mail address'));
const folder = (relative: string) =>
  z
    .string()
    .min(1)
    .default(relative)
    .transform((value) => path.resolve(value));
const booleanFlag = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');

const settings = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: port.default(3000),
  /** PostgreSQL connection string; the run and test commands set it (embedded PostgreSQL by default). */
  DATABASE_URL: z.string().url(),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(100).default(10),
  /**
   * How long opening a PostgreSQL connection (TCP, TLS, log-in) may take, in milliseconds
   * (docs/operations.md#deadlines: 2 s).
   */
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(2000),
  /**
   * PostgreSQL's `statement_timeout`: the server cancels a statement running longer, in milliseconds
   * (docs/operations.md#deadlines: 3 s).
   */
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(3000),
  /**
   * How long the client waits for any answer to a statement before it gives up on it (a stalled or
   * unreachable server, which cannot cancel anything itself), in milliseconds (docs/operations.md#deadlines: 4 s);
   * longer than DATABASE_STATEMENT_TIMEOUT_MS, so a server that answers cancels first.
   */
  DATABASE_QUERY_TIMEOUT_MS: z.coerce.number().int().min(200).max(600_000).default(4000),
  TEMPORAL_ADDRESS: z.string().min(1).default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  /** Task queue of the payment, payout and live-access workflows and their activities (docs/payments.md#workflow). */
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('payments'),
  /**
   * Task queue of the webhook deliveries, apart from payment work so that a slow endpoint cannot take
   * the worker slots payments need (docs/webhooks.md#isolation); default `{TEMPORAL_TASK_QUEUE}-webhooks`.
   * Must differ from TEMPORAL_TASK_QUEUE.
   */
  TEMPORAL_WEBHOOK_TASK_QUEUE: z.string().min(1).optional(),
  /**
   * What a worker process runs (docs/operations.md#workers): `all` (both task queues, each with its own
   * worker and slots; `npm start`), `payments` or `webhooks` (one of them; the production topology).
   */
  WORKER_ROLE: z.enum(['all', 'payments', 'webhooks']).default('all'),
  /** Activities the payments worker runs at once (docs/operations.md#workers: 100, the SDK's default). */
  WORKER_PAYMENT_ACTIVITY_SLOTS: z.coerce.number().int().min(1).max(10_000).default(100),
  /** Activities (delivery attempts) the webhooks worker runs at once (docs/operations.md#workers: 100). */
  WORKER_WEBHOOK_ACTIVITY_SLOTS: z.coerce.number().int().min(1).max(10_000).default(100),
  /**
   * Most requests in flight to one webhook endpoint, across every worker process (docs/webhooks.md#isolation: 10);
   * the endpoint's other due deliveries wait their turn without holding a worker slot.
   */
  WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(10),
  /**
   * Most requests in flight to all the endpoints of one merchant, across every worker process
   * (docs/webhooks.md#isolation); default a fifth of WORKER_WEBHOOK_ACTIVITY_SLOTS (20). Must be below
   * WORKER_WEBHOOK_ACTIVITY_SLOTS: no merchant may hold every slot.
   */
  WEBHOOK_MERCHANT_CONCURRENCY: z.coerce.number().int().min(1).max(10_000).optional(),
  TEMPORAL_API_KEY: z.string().min(1).optional(),
  TEMPORAL_TLS: booleanFlag.default(false),
  /**
   * Deadline of each Temporal call a request makes that should answer at once (describe, signal,
   * start, the check after a create's wait), in milliseconds (docs/operations.md#deadlines: 2 s). Updates
   * have their own: CREATE_WAIT_MS and UPDATE_DEADLINE_MS.
   */
  TEMPORAL_CALL_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(2000),
  /**
   * How long `GET /readyz` waits for PostgreSQL and Temporal before it answers 503, in milliseconds
   * (docs/api.md#health: 1 s).
   */
  READINESS_TIMEOUT_MS: z.coerce.number().int().min(50).max(30_000).default(1000),
  /** HS256 secret for session tokens (docs/api.md#sessions): at least 32 characters, never a default in code. */
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters'),
  /** Session token lifetime in seconds (docs/api.md#sessions: 1 h). */
  SESSION_TTL_SECONDS: positiveSeconds.default(3600),
  /** Port of the worker's Prometheus endpoint for Temporal SDK metrics (0 = off). */
  WORKER_METRICS_PORT: port.default(9464),
  /**
   * Workflows the worker keeps in its sticky cache (unset = the SDK's default, sized from the heap
   * limit). Raised by the benchmark so that its memory figure measures cached workflows, not eviction.
   */
  WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(2).max(1_000_000).optional(),
  /**
   * A workflow bundle built ahead by `npm run build:workflows` (a file path; unset = the worker builds the bundle at
   * each start, a few seconds of CPU, docs/operations.md#workers). It must come from the same source as the worker.
   */
  WORKER_WORKFLOW_BUNDLE: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Sandbox simulated customer approval delay in milliseconds (docs/payments.md#sandbox-scenarios: 3 s). */
  SANDBOX_APPROVAL_DELAY_MS: z.coerce.number().int().min(0).max(600_000).default(3000),
  /** Sandbox simulated bank transfer arrival in milliseconds (docs/payments.md#sandbox-scenarios: 30 s). */
  SANDBOX_BANK_TRANSFER_DELAY_MS: z.coerce.number().int().min(0).max(86_400_000).default(30_000),
  /**
   * How long a sandbox refund to a number ending 0007 stays unknown before it succeeds, in milliseconds
   * (docs/payments.md#sandbox-scenarios: ~20 s).
   */
  SANDBOX_REFUND_UNKNOWN_MS: z.coerce.number().int().min(0).max(3_600_000).default(20_000),
  /**
   * The API's public base URL, to which providers send their callbacks (`…/v1/provider-callbacks/{code}`,
   * docs/payments.md#provider-callbacks); the run command sets it to the API's address. Unset: providers are given no
   * callback URL and
   * polling alone finds their answers.
   */
  PROVIDER_CALLBACK_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  /**
   * The API's public base URL as merchants reach it (e.g. `https://api.example.com`), the server the
   * OpenAPI document names; default `http://HOST:PORT`, the API's own address.
   */
  PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  /**
   * Stripe's publishable key (`pk_live_…`, or `pk_test_…` for Stripe's test mode) of the platform's account: the hosted
   * payment page's Payment Element uses it for live card payments (docs/hosted-page.md#card). Unset: the live page
   * offers no card.
   */
  CHECKOUT_STRIPE_PUBLISHABLE_KEY: z
    .string()
    .regex(/^pk_(live|test)_[A-Za-z0-9]+$/, 'must be a Stripe publishable key, pk_live_… or pk_test_…')
    .optional(),
  /** HMAC secret of provider callbacks (docs/payments.md#provider-callbacks): at least 32 characters. */
  PROVIDER_CALLBACK_SECRET: z.string().min(32, 'must be at least 32 characters'),
  /**
   * Multiplies every rate limit (docs/limits.md#rate-limits); 1 in production, raised for benchmarks and shared test
   * stacks.
   */
  RATE_LIMIT_MULTIPLIER: z.coerce.number().int().min(1).max(1_000_000).default(1),
  /** Payment expiry per method family in seconds (docs/payments.md#states). */
  EXPIRY_MOBILE_MONEY_SECONDS: positiveSeconds.default(600),
  EXPIRY_BANK_TRANSFER_SECONDS: positiveSeconds.default(72 * 3600),
  EXPIRY_CARD_SECONDS: positiveSeconds.default(24 * 3600),
  EXPIRY_WALLET_SECONDS: positiveSeconds.default(24 * 3600),
  /** How long a completed payment takes refunds, in days (docs/payments.md). */
  REFUND_WINDOW_DAYS: z.coerce.number().int().min(1).max(3650).default(180),
  /**
   * How long a late provider success still completes a payment that failed by expiry or provider error, in days
   * (docs/payments.md#states: 7).
   */
  RECONCILIATION_WINDOW_DAYS: z.coerce.number().int().min(1).max(365).default(7),
  /**
   * How long an idempotency claim without an answer stays its request's before the same request may take it over, in
   * milliseconds (docs/payments.md#idempotency: 30 s).
   */
  IDEMPOTENCY_LEASE_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  /**
   * How long a create waits for the workflow to record the payment and the provider to answer, in milliseconds
   * (docs/payments.md#workflow: 10 s).
   */
  CREATE_WAIT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /**
   * How long a cancel or refund waits for the payment's workflow to take and decide its Update before
   * 503, in milliseconds (docs/limits.md#update-deadlines: 15 s, past a refund's 10 s provider call).
   */
  UPDATE_DEADLINE_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
  /**
   * Provider callbacks a minute per provider and client IP before 429 (docs/limits.md#callback-limits: 600); scaled by
   * RATE_LIMIT_MULTIPLIER.
   */
  PROVIDER_CALLBACK_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(600),
  /**
   * Payment links a client IP may open (`GET /l/{id}`, each a new checkout session) a minute before 429
   * (docs/limits.md#link-limits: 20); scaled by RATE_LIMIT_MULTIPLIER.
   */
  LINK_OPEN_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(20),
  /**
   * Folder of the local blob store holding uploaded documents (docs/live-access.md#documents); relative to the working
   * directory.
   */
  DOCUMENT_STORE_DIR: folder('var/documents'),
  /**
   * Most documents a merchant keeps at once (current ones; a replaced document no longer counts)
   * (docs/limits.md#uploads).
   */
  DOCUMENT_QUOTA_COUNT: z.coerce.number().int().min(1).max(10_000).default(20),
  /** Most bytes a merchant's current documents take together (docs/limits.md#uploads: 50 MiB). */
  DOCUMENT_QUOTA_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_099_511_627_776)
    .default(50 * 1024 * 1024),
  /**
   * Folder of the built merchant dashboard (README.md#dashboard, `web/` built by `npm start`), served at `/dashboard`;
   * relative to the working directory.
   */
  DASHBOARD_DIR: folder('web/dist'),
  /**
   * SMTP server for outgoing mail (docs/live-access.md#e-mail), e.g. `smtps://user:pass@mail.example.com`; unset =
   * write `.eml` files.
   */
  SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
  /** Folder the mailer writes `.eml` files to when SMTP_URL is unset (docs/live-access.md#e-mail). */
  MAIL_OUTBOX_DIR: folder('var/mail'),
  /** Sender of every e-mail (docs/live-access.md#e-mail). */
  MAIL_FROM: z.string().min(3).default('Paycollect <no-reply@paycollect.local>'),
  /**
   * Comma-separated addresses of the live access reviewers, who get new requests and reminders
   * (docs/live-access.md#review).
   */
  LIVE_ACCESS_REVIEWER_EMAILS: emailList.default(['reviewers@paycollect.local']),
  /**
   * Whether sandbox webhooks may target loopback, private and link-local hosts (docs/webhooks.md#targets). Unset: on
   * outside production, off in production. Live webhooks never may.
   */
  WEBHOOK_ALLOW_PRIVATE_TARGETS: booleanFlag.optional(),
  /**
   * Event stream (docs/developer-tools.md#event-stream): comment line every this many milliseconds (15 s), so proxies
   * keep it open.
   */
  EVENT_STREAM_HEARTBEAT_MS: z.coerce.number().int().min(100).max(300_000).default(15_000),
  /** Event stream: how often each open stream reads new events, in milliseconds (1 s). */
  EVENT_STREAM_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
  /** Event stream: most streams one merchant keeps open at once in one API process (5; 429 beyond). */
  EVENT_STREAM_MAX_PER_MERCHANT: z.coerce.number().int().min(1).max(1000).default(5),
  /**
   * Event stream: the server ends a stream after this many milliseconds (1 h); clients reconnect with Last-Event-ID,
   * credentials checked again.
   */
  EVENT_STREAM_MAX_DURATION_MS: z.coerce.number().int().min(1000).max(86_400_000).default(3_600_000),
  /**
   * A checkout page's status stream (docs/checkout.md#live-status): most streams open at once on one session in one
   * API process (5; 429 beyond). Its heartbeat, reads and lifetime are the EVENT_STREAM_* ones.
   */
  CHECKOUT_STREAM_MAX_PER_SESSION: z.coerce.number().int().min(1).max(1000).default(5),
  /** A checkout page's status stream: most streams open at once from one client address in one API process (20). */
  CHECKOUT_STREAM_MAX_PER_ADDRESS: z.coerce.number().int().min(1).max(100_000).default(20),
});

/** The name of every setting of the service (README.md#settings lists each with its default). */
export const SETTING_NAMES = Object.keys(settings.shape) as readonly string[];

/** The settings with the defaults that depend on other settings filled in. */
const schema = settings
  .refine((config) => config.DATABASE_QUERY_TIMEOUT_MS > config.DATABASE_STATEMENT_TIMEOUT_MS, {
    path: ['DATABASE_QUERY_TIMEOUT_MS'],
    message:
      'must be longer than DATABASE_STATEMENT_TIMEOUT_MS, so that a server that answers cancels the statement first',
  })
  .refine((config) => config.TEMPORAL_WEBHOOK_TASK_QUEUE !== config.TEMPORAL_TASK_QUEUE, {
    path: ['TEMPORAL_WEBHOOK_TASK_QUEUE'],
    message:
      'must differ from TEMPORAL_TASK_QUEUE: deliveries run apart from payment work (docs/webhooks.md#isolation)',
  })
  .refine(
    (config) =>
      config.WEBHOOK_MERCHANT_CONCURRENCY === undefined ||
      config.WEBHOOK_MERCHANT_CONCURRENCY < config.WORKER_WEBHOOK_ACTIVITY_SLOTS,
    {
      path: ['WEBHOOK_MERCHANT_CONCURRENCY'],
      message:
        'must be below WORKER_WEBHOOK_ACTIVITY_SLOTS: one merchant may not hold every delivery slot (docs/webhooks.md#isolation)',
    },
  )
  .transform((config) => ({
    ...config,
    TEMPORAL_WEBHOOK_TASK_QUEUE: config.TEMPORAL_WEBHOOK_TASK_QUEUE ?? `${config.TEMPORAL_TASK_QUEUE}-webhooks`,
    WEBHOOK_MERCHANT_CONCURRENCY:
      config.WEBHOOK_MERCHANT_CONCURRENCY ?? defaultMerchantConcurrency(config.WORKER_WEBHOOK_ACTIVITY_SLOTS),
    WEBHOOK_ALLOW_PRIVATE_TARGETS: config.WEBHOOK_ALLOW_PRIVATE_TARGETS ?? config.NODE_ENV !== 'production',
    PUBLIC_BASE_URL: (config.PUBLIC_BASE_URL ?? `http://${urlHost(config.HOST)}:${config.PORT}`).replace(/\/+$/, ''),
  }));

/** `HOST` as a URL's host: a wildcard address becomes the loopback one, an IPv6 address gets brackets. */
function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/**
 * The validated configuration; all durations carry their unit in the name. `PROVIDERS` holds the
 * configured provider adapters per environment (src/providers/settings.ts).
 */
export type Config = z.infer<typeof schema> & { PROVIDERS: ProviderSettingsByEnvironment };

/**
 * What the admin command (docs/live-access.md#admin-command) reads: PostgreSQL, Temporal and the document store, no
 * secrets.
 */
const adminSchema = settings
  .pick({
    NODE_ENV: true,
    DATABASE_URL: true,
    TEMPORAL_ADDRESS: true,
    TEMPORAL_NAMESPACE: true,
    TEMPORAL_API_KEY: true,
    TEMPORAL_TLS: true,
    DOCUMENT_STORE_DIR: true,
    TEMPORAL_TASK_QUEUE: true,
    TEMPORAL_WEBHOOK_TASK_QUEUE: true,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: true,
  })
  .transform((config) => ({
    ...config,
    // The same defaults as the service's, so a delivery the operator retries starts where the worker listens.
    TEMPORAL_WEBHOOK_TASK_QUEUE: config.TEMPORAL_WEBHOOK_TASK_QUEUE ?? `${config.TEMPORAL_TASK_QUEUE}-webhooks`,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: config.WEBHOOK_ALLOW_PRIVATE_TARGETS ?? config.NODE_ENV !== 'production',
  }));

/** The admin command's configuration. */
export type AdminConfig = z.infer<typeof adminSchema>;

/** Raised when an environment variable is missing or invalid; the message names each bad setting. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses the environment (default `process.env`) into a {@link Config}.
 * @throws ConfigError naming every setting that is missing or invalid.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const providers = providerSettingsFrom(env);
  let base: z.infer<typeof schema>;
  try {
    base = parseEnvironment(schema, env);
  } catch (error) {
    if (error instanceof ConfigError) throw new ConfigError([...error.problems, ...providers.problems]);
    throw error;
  }
  if (providers.problems.length > 0) throw new ConfigError(providers.problems);
  return { ...base, PROVIDERS: providers.settings };
}

/**
 * Where `npm start` writes the settings of the stack it runs (database URL, Temporal address), for the admin command.
 */
export const RUNTIME_SETTINGS_FILE = path.join('var', 'runtime.json');

/** The settings `npm start` wrote to `file` (JSON of strings), or none when it has not run here. */
export function readRuntimeSettings(file: string = path.resolve(RUNTIME_SETTINGS_FILE)): Record<string, string> {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
    if (parsed === null || typeof parsed !== 'object') return {};
    return Object.fromEntries(
      Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
    );
  } catch {
    return {};
  }
}

/**
 * Parses the settings the admin command needs (docs/live-access.md#admin-command), so it runs without the API's
 * secrets. In the
 * checkout where `npm start` runs it needs none: what is not in `env` is taken from the settings
 * `npm start` wrote under `var/` (`runtimeFile`).
 * @throws ConfigError naming every setting that is missing or invalid.
 */
export function loadAdminConfig(
  env: Record<string, string | undefined> = process.env,
  runtimeFile?: string,
): AdminConfig {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  return parseEnvironment(adminSchema, { ...readRuntimeSettings(runtimeFile), ...cleaned });
}

function parseEnvironment<S extends z.ZodType>(shape: S, env: Record<string, string | undefined>): z.infer<S> {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const parsed = shape.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join('.') || 'environment'}: ${issue.message}`),
    );
  }
  return parsed.data;
}

/**
 * Loads the configuration for an entry point; on a bad setting prints the problem and exits 78
 * (EX_CONFIG) instead of starting half-configured.
 */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
}
