/**
 * `npm run admin -- <command>`: the admin command of reviewers and operators (docs/live-access.md#admin-command). It
 * reads its
 * settings from the environment (DATABASE_URL, TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
 * DOCUMENT_STORE_DIR…), reads PostgreSQL directly and sends decisions to the review workflows as
 * Temporal signals (docs/live-access.md#review). Every command has `--help`. Exit status: 0 done, 1 an error (unknown
 * id,
 * a decision on a closed request, bad arguments), 78 bad configuration; an error is one line on
 * standard error, never a stack trace. Text that developers wrote (names, file names, answers,
 * e-mail addresses) is printed with control characters escaped (./printable.ts), so a stored string
 * cannot drive the reviewer's terminal.
 *
 *   live-access list [--status <status>] [--json]
 *   live-access show <req_id> [--json]
 *   live-access approve <req_id> [--reviewer <name>]
 *   live-access reject <req_id> --reason <text> [--reviewer <name>]
 *   live-access request-info <req_id> --message <text> [--reviewer <name>]
 *   merchant set-plan <mer_id> <plan>
 *   merchant set-limits <mer_id> --per-minute <n> --per-hour <n>
 *   provider status [--environment <env>]
 *   provider set-status <provider> <country> <operation> --status <status> --reason <text> [--environment <env>]
 *   provider clear-status <provider> <country> <operation> [--environment <env>]
 */
import os from 'node:os';
import { Argument, Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import type { Client } from '@temporalio/client';
import { ConfigError, loadAdminConfig, RUNTIME_SETTINGS_FILE, type AdminConfig } from '../config';
import { createDb, type Db } from '../db/knex';
import type { LiveAccessRequestRecord } from '../db/live-access-requests';
import type { MerchantSettings } from '../db/merchant-settings';
import { ENVIRONMENTS, type Environment } from '../domain/environment';
import { DomainError } from '../domain/errors';
import {
  HEALTH_OPERATIONS,
  type AvailabilityRow,
  type HealthOperation,
  type ProviderStatus,
} from '../domain/provider-health';
import { availabilityOf, overrideProviderStatus } from '../services/provider-health-service';
import { deliverStatusChanges } from '../activities/provider-health-activities';
import { findStatusChangedEvents } from '../db/provider-health';
import { LIVE_ACCESS_REQUEST_STATUSES, type LiveAccessRequestStatus } from '../domain/live-access';
import { PLANS } from '../domain/plans';
import { createBlobStore } from '../lib/blob-store';
import {
  decide,
  listRequests,
  setLimits,
  setPlan,
  setSettlementDelay,
  showRequest,
  type Decision,
  type RequestDetails,
  type ReviewServiceDeps,
} from '../services/review-service';
import { connectClient } from '../temporal';
import { isOutage } from '../lib/outage';
import { printable, printableJson } from './printable';
import {
  askPayoutRailAgain,
  askProviderAgain,
  openPayouts,
  paymentStory,
  pendingRefunds,
  retryDeliveryAsOperator,
  stuckDeliveries,
} from '../services/operations-service';
import type { WebhookServiceDeps } from '../services/webhook-service';
import {
  daysBetween,
  exceptionById,
  exceptions as listReconciliationExceptions,
  resolve as resolveReconciliationException,
  runReconciliation,
} from '../services/reconciliation-service';
import { PROVIDER_CODES, type ProviderCode } from '../domain/catalogue';
import { formatException, formatExceptionLine, formatRunResult } from './reconciliation-format';
import {
  formatOpenPayout,
  formatPendingRefund,
  formatStory,
  formatStuckDelivery,
  parseDuration,
} from './operations-format';
import { processIo, type CliIo } from './io';

/** Seconds a decision waits for the review workflow to record it before the command returns. */
const DEFAULT_WAIT_SECONDS = 30;

/** Connections opened on first use and closed when the command ends. */
class Resources {
  private db?: Db;
  private client?: Promise<Client>;
  constructor(private readonly config: AdminConfig) {}

  /** What the on-call commands use: the review deps plus the webhook settings of a retry. */
  async operations(): Promise<WebhookServiceDeps> {
    const deps = this.deps();
    return {
      db: deps.db,
      temporal: await (this.client ??= connectClient(this.config)),
      config: {
        TEMPORAL_WEBHOOK_TASK_QUEUE: this.config.TEMPORAL_WEBHOOK_TASK_QUEUE,
        WEBHOOK_ALLOW_PRIVATE_TARGETS: this.config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
      },
    };
  }

  /** The payment task queue, where reconciliation runs (docs/reconciliation.md#runs). */
  get taskQueue(): string {
    return this.config.TEMPORAL_TASK_QUEUE;
  }

  deps(): ReviewServiceDeps {
    this.db ??= createDb(this.config.DATABASE_URL, 2);
    return {
      db: this.db,
      blobs: createBlobStore(this.config),
      temporal: () => (this.client ??= connectClient(this.config)),
    };
  }

  /** Closes what was opened; a Temporal connection that never came up has nothing to close. */
  async close(): Promise<void> {
    await this.db?.destroy();
    const client = await this.client?.catch(() => undefined);
    await client?.connection.close();
  }
}

function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(parsed) || parsed < 1)
    throw new InvalidArgumentError('must be a positive integer');
  return parsed;
}

function nonEmpty(value: string): string {
  const trimmed = value.trim();
  if (trimmed === '') throw new InvalidArgumentError('must not be empty');
  return trimmed;
}

function defaultReviewer(): string {
  try {
    return os.userInfo().username;
  } catch {
    return 'reviewer';
  }
}

/** Rows of cells (each escaped with {@link printable}) as aligned columns. */
function table(rows: string[][]): string {
  rows = rows.map((row) => row.map(printable));
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return (
    rows
      .map((row) =>
        row
          .map((cell, column) => cell.padEnd(widths[column] ?? 0))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

function formatList(requests: LiveAccessRequestRecord[]): string {
  if (requests.length === 0) return 'no live access requests\n';
  return table([
    ['ID', 'STATUS', 'MERCHANT', 'BUSINESS', 'REQUESTED', 'REMINDERS'],
    ...requests.map((r) => [r.id, r.status, r.merchantId, r.businessName, r.requestedAt, String(r.remindersSent)]),
  ]);
}

/** A request as the reviewer reads it; every stored string goes through {@link printable}. */
function formatDetails(details: RequestDetails): string {
  const { request: raw, developer: rawDeveloper } = details;
  const r = escapeStrings(raw);
  const developer = rawDeveloper && escapeStrings(rawDeveloper);
  const lines = [
    `Live access request ${r.id} (${r.status})`,
    `  merchant            ${r.merchantId}${developer ? ` — ${developer.name} <${developer.email}>` : ''}`,
    `  business            ${r.businessName} (${r.businessType}) ${r.businessWebsite}`,
    `  expected volume     ${r.expectedMonthlyVolume} per month`,
    `  use case            ${r.useCase}`,
    `  requested at        ${r.requestedAt}`,
    `  under review since  ${r.underReviewSince}`,
    `  reminders sent      ${r.remindersSent}`,
  ];
  if (r.decidedAt) lines.push(`  decided             ${r.decidedAt} by ${r.decidedBy}`);
  if (r.reviewerMessage) lines.push(`  reviewer message    ${r.reviewerMessage}`);
  if (r.liveKeyId) lines.push(`  live key            ${r.liveKeyId}`);
  for (const warning of details.warnings) lines.push(`  WARNING             ${printable(warning)}`);
  const documents = details.documents.map(escapeStrings);
  const current = documents.filter((d) => d.supersededAt === null);
  const replaced = documents.filter((d) => d.supersededAt !== null);
  lines.push(`Documents (${current.length})`);
  for (const d of current) {
    const kind = `${d.category}/${d.documentType}${d.side ? `/${d.side}` : ''}`;
    lines.push(`  ${d.id}  ${kind}  "${d.fileName}"  ${d.contentType}  ${d.size} bytes  uploaded ${d.uploadedAt}`);
    lines.push(`      sha256 ${d.sha256}`);
    lines.push(`      path   ${d.location}`);
  }
  if (replaced.length > 0) lines.push(`Replaced documents (${replaced.length}; their files are deleted)`);
  for (const d of replaced) {
    const kind = `${d.category}/${d.documentType}${d.side ? `/${d.side}` : ''}`;
    lines.push(`  ${d.id}  ${kind}  "${d.fileName}"  ${d.contentType}  ${d.size} bytes  uploaded ${d.uploadedAt}`);
    lines.push(`      sha256 ${d.sha256}`);
    lines.push(
      `      replaced by ${d.supersededBy} at ${d.supersededAt}${d.fileRemovedAt ? `; file deleted ${d.fileRemovedAt}` : `; file still at ${d.location}`}`,
    );
  }
  const conversation = details.conversation.map(escapeStrings);
  lines.push(`Conversation (${conversation.length})`);
  for (const m of conversation) lines.push(`  ${m.createdAt}  ${m.authorType} ${m.author}: ${m.body}`);
  return `${lines.join('\n')}\n`;
}

/** `record` with each of its string fields escaped with {@link printable}; other fields as they are. */
function escapeStrings<T extends object>(record: T): T {
  return Object.fromEntries(
    Object.entries(record).map(([key, value]) => [key, typeof value === 'string' ? printable(value) : value]),
  ) as T;
}

function formatMerchant(raw: MerchantSettings): string {
  const merchant = escapeStrings(raw);
  const limits = merchant.customLimits
    ? `${merchant.customLimits.perMinute}/min, ${merchant.customLimits.perHour}/h`
    : 'none';
  return `merchant ${merchant.merchantId}: plan ${merchant.plan}, live access ${merchant.hasLiveAccess ? 'yes' : 'no'}, custom limits ${limits}\n`;
}

/** Builds the command tree around `resources` and `io` (exported for tests of the parsing). */
export function buildAdminProgram(resources: () => Resources, io: CliIo): Command {
  const program = new Command('admin')
    .description('Paycollect administration for reviewers and operators: live access reviews, plans and limits')
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .exitOverride()
    .showHelpAfterError()
    .allowExcessArguments(false);

  addLiveAccessCommands(program, resources, io);
  addMerchantCommands(program, resources, io);
  addOpsCommands(program, resources, io);
  addReconciliationCommands(program, resources, io);
  addProviderCommands(program, resources, io);
  return program;
}

/**
 * `live-access list|show|approve|reject|request-info` (docs/live-access.md#admin-command): a decision is sent to the
 * request's review workflow and waited for up to `--wait` seconds.
 */
function addLiveAccessCommands(program: Command, resources: () => Resources, io: CliIo): void {
  async function decideAndReport(id: string, decision: Decision, waitSeconds: number): Promise<void> {
    const outcome = await decide(resources().deps(), id, decision, waitSeconds * 1000);
    const verb = { approve: 'approved', reject: 'rejected', request_info: 'asked for more information on' }[
      decision.type
    ];
    if (!outcome.applied) {
      io.out(
        `${decision.type} sent to ${printable(id)}; the review has not recorded it yet (is a worker running?) — it will when one runs\n`,
      );
      return;
    }
    const key = outcome.request.liveKeyId
      ? `; first live key ${outcome.request.liveKeyId} created, shown once to the developer`
      : '';
    io.out(`${verb} ${printable(id)} as ${printable(decision.reviewer)}${key}; status ${outcome.request.status}\n`);
  }

  const liveAccess = program
    .command('live-access')
    .description('review live access requests: list, show, approve, reject, ask for more information');
  /** A decision's command: `<req_id>`, the text it asks for (`asks`: flag and help), `--reviewer`, `--wait`. */
  const decisionCommand = (name: string, description: string, asks?: [flags: string, about: string]) => {
    const command = liveAccess.command(name).description(description).argument('<req_id>', 'the request id (req_…)');
    if (asks) command.requiredOption(asks[0], asks[1], nonEmpty);
    return command
      .addOption(
        new Option('--reviewer <name>', 'who decides, for the audit log').default(defaultReviewer(), 'your user name'),
      )
      .addOption(
        new Option('--wait <seconds>', 'how long to wait for the review to record the decision')
          .argParser(positiveInteger)
          .default(DEFAULT_WAIT_SECONDS),
      );
  };
  liveAccess
    .command('list')
    .description('list requests, oldest first')
    .addOption(new Option('--status <status>', 'only requests in this status').choices(LIVE_ACCESS_REQUEST_STATUSES))
    .option('--json', 'print JSON')
    .action(async (options: { status?: LiveAccessRequestStatus; json?: boolean }) => {
      const requests = await listRequests(resources().deps(), options.status);
      io.out(options.json ? `${printableJson(requests)}\n` : formatList(requests));
    });
  liveAccess
    .command('show')
    .description('show a request with its documents (names, types, sizes, sha256, paths) and conversation')
    .argument('<req_id>', 'the request id (req_…)')
    .option('--json', 'print JSON')
    .action(async (id: string, options: { json?: boolean }) => {
      const details = await showRequest(resources().deps(), id);
      io.out(options.json ? `${printableJson(details)}\n` : formatDetails(details));
    });
  decisionCommand(
    'approve',
    'approve: creates the first live key, grants live access and plan starter, e-mails the developer',
  ).action(async (id: string, options: { reviewer: string; wait: number }) => {
    await decideAndReport(id, { type: 'approve', reviewer: options.reviewer }, options.wait);
  });
  decisionCommand('reject', 'reject with a reason, e-mailed to the developer', [
    '--reason <text>',
    'why, as the developer will read it',
  ]).action(async (id: string, options: { reason: string; reviewer: string; wait: number }) => {
    await decideAndReport(id, { type: 'reject', reviewer: options.reviewer, reason: options.reason }, options.wait);
  });
  decisionCommand('request-info', 'ask the developer for more information or documents (status more_info_required)', [
    '--message <text>',
    'the question, as the developer will read it',
  ]).action(async (id: string, options: { message: string; reviewer: string; wait: number }) => {
    await decideAndReport(
      id,
      { type: 'request_info', reviewer: options.reviewer, message: options.message },
      options.wait,
    );
  });
}

/** `merchant set-plan|set-limits|set-settlement-delay`: a merchant's plan, custom rate limits and settlement delay. */
function addMerchantCommands(program: Command, resources: () => Resources, io: CliIo): void {
  const merchant = program.command('merchant').description("set a merchant's plan and custom rate limits");
  merchant
    .command('set-plan')
    .description("set a merchant's plan")
    .argument('<mer_id>', 'the merchant id (mer_…)')
    .addArgument(new Argument('<plan>', 'the plan').choices(PLANS))
    .option('--operator <name>', 'who changes it, for the audit log', defaultReviewer())
    .action(async (merchantId: string, plan: string, options: { operator: string }) => {
      io.out(formatMerchant(await setPlan(resources().deps(), merchantId, plan, options.operator)));
    });
  merchant
    .command('set-limits')
    .description('set the custom rate limits of an enterprise merchant')
    .argument('<mer_id>', 'the merchant id (mer_…)')
    .requiredOption('--per-minute <n>', 'requests per minute', positiveInteger)
    .requiredOption('--per-hour <n>', 'requests per hour', positiveInteger)
    .option('--operator <name>', 'who changes them, for the audit log', defaultReviewer())
    .action(async (merchantId: string, options: { perMinute: number; perHour: number; operator: string }) => {
      io.out(
        formatMerchant(
          await setLimits(
            resources().deps(),
            merchantId,
            { perMinute: options.perMinute, perHour: options.perHour },
            options.operator,
          ),
        ),
      );
    });
  merchant
    .command('set-settlement-delay')
    .description("give a merchant its own days from completion to available funds, or 'default' for its providers'")
    .argument('<mer_id>', 'the merchant id (mer_…)')
    .argument('<days>', "whole days from 0 to 30, or 'default'")
    .option('--operator <name>', 'who changes it, for the audit log', defaultReviewer())
    .action(async (merchantId: string, days: string, options: { operator: string }) => {
      const parsed = days === 'default' ? null : /^\d{1,2}$/.test(days) ? Number(days) : Number.NaN;
      const now = await setSettlementDelay(resources().deps(), merchantId, parsed, options.operator);
      io.out(`merchant ${merchantId}: settlement delay ${now === null ? "the providers'" : `${now} days`}\n`);
    });
}

/** `ops …` (docs/operations.md#runbooks): the on-call tools. */
function addOpsCommands(program: Command, resources: () => Resources, io: CliIo): void {
  const ops = program
    .command('ops')
    .description(
      "on-call tools (docs/operations.md#runbooks): stuck deliveries, refunds and payouts, a payment's story",
    );
  const limitOption = () => new Option('--limit <n>', 'at most this many rows').argParser(positiveInteger).default(50);
  /** `--older-than <duration>` (seconds; `shown` is the default as help prints it). */
  const olderThanOption = (seconds: number, shown: string) =>
    new Option('--older-than <duration>', 'e.g. 90s, 15m, 2h, 1d').argParser(parseDuration).default(seconds, shown);
  /** The filter of an --older-than list: its age in seconds and at most 1000 rows. */
  const olderThanFilter = (options: { olderThan: number; limit: number }) => ({
    olderThanSeconds: options.olderThan,
    limit: Math.min(options.limit, 1000),
  });
  /** Prints each row of a list with `format` (at the time it is printed), or `none`. */
  const printRows = <T>(rows: readonly T[], format: (row: T, now: Date) => string) => {
    if (rows.length === 0) io.out('none\n');
    for (const row of rows) io.out(format(row, new Date()));
  };
  /** `ops <name>`: the rows `list` finds waiting longer than --older-than (default 1 h), printed with `format`. */
  const olderThanList = <T>(
    name: string,
    description: string,
    list: (db: Db, filter: { olderThanSeconds: number; limit: number }) => Promise<readonly T[]>,
    format: (row: T, now: Date) => string,
  ) =>
    ops
      .command(name)
      .description(description)
      .addOption(olderThanOption(3600, '1h'))
      .addOption(limitOption())
      .action(async (options: { olderThan: number; limit: number }) => {
        printRows(await list((await resources().operations()).db, olderThanFilter(options)), format);
      });
  ops
    .command('deliveries')
    .description('list webhook deliveries pending for longer than --older-than, or given up on (--failed)')
    .addOption(olderThanOption(900, '15m'))
    .option('--failed', 'list the deliveries given up on instead, most recent first')
    .addOption(limitOption())
    .action(async (options: { olderThan: number; failed?: boolean; limit: number }) => {
      printRows(
        await stuckDeliveries((await resources().operations()).db, {
          ...olderThanFilter(options),
          status: options.failed ? 'failed' : 'pending',
        }),
        formatStuckDelivery,
      );
    });
  ops
    .command('retry-delivery')
    .description("start a new delivery of a delivery's event, as the merchant's retry would")
    .argument('<dlv_id>', 'the delivery id')
    .action(async (deliveryId: string) => {
      const retried = await retryDeliveryAsOperator(await resources().operations(), deliveryId);
      io.out(`new delivery ${printable(retried)} of the event of ${printable(deliveryId)} started\n`);
    });
  olderThanList(
    'refunds',
    'list refunds waiting for their provider for longer than --older-than',
    pendingRefunds,
    formatPendingRefund,
  );
  ops
    .command('ask-provider')
    .description("ask a payment's provider again now, for the payment and its pending refunds")
    .argument('<pay_id>', 'the payment id')
    .action(async (paymentId: string) => {
      await askProviderAgain(await resources().operations(), paymentId);
      io.out(`asked the provider of ${printable(paymentId)} again; its workflow acts on the answer\n`);
    });
  olderThanList(
    'payouts',
    'list payouts pending or in transit for longer than --older-than, with their rail and why they wait',
    openPayouts,
    formatOpenPayout,
  );
  ops
    .command('ask-rail')
    .description("ask a payout's rail again now (a status call; never a second send)")
    .argument('<po_id>', 'the payout id')
    .action(async (payoutId: string) => {
      await askPayoutRailAgain(await resources().operations(), resources().taskQueue, payoutId);
      io.out(`asked the rail of ${printable(payoutId)} again; its workflow acts on the answer\n`);
    });
  ops
    .command('story')
    .description("show a payment's read model, refunds, events, deliveries and workflow history summary")
    .argument('<pay_id>', 'the payment id')
    .option('--json', 'print it as JSON')
    .action(async (paymentId: string, options: { json?: boolean }) => {
      const story = await paymentStory(await resources().operations(), paymentId);
      io.out(options.json ? `${printableJson(story)}\n` : formatStory(story));
    });
}

/** `recon …` (docs/reconciliation.md): reconciliation runs and exceptions. */
function addReconciliationCommands(program: Command, resources: () => Resources, io: CliIo): void {
  const recon = program
    .command('recon')
    .description("reconciliation against the providers' books (docs/reconciliation.md): runs and exceptions");
  const environmentOption = () =>
    new Option('--environment <environment>', 'sandbox or live').choices(['sandbox', 'live']).default('live');
  recon
    .command('run')
    .description('reconcile a provider account for a range of UTC days now, and wait for each run')
    .addOption(new Option('--provider <code>', 'the provider code').choices(PROVIDER_CODES).makeOptionMandatory())
    .addOption(environmentOption())
    .requiredOption('--from <day>', 'first UTC day, YYYY-MM-DD')
    .option('--to <day>', 'last UTC day, YYYY-MM-DD (default: --from)')
    .action(async (options: { provider: ProviderCode; environment: 'sandbox' | 'live'; from: string; to?: string }) => {
      const days = daysBetween(options.from, options.to ?? options.from);
      const opened = await resources().operations();
      const results = await runReconciliation(
        opened.temporal,
        resources().taskQueue,
        { provider: options.provider, environment: options.environment },
        days,
      );
      for (const result of results) io.out(formatRunResult(options, result));
    });
  recon
    .command('exceptions')
    .description('list reconciliation exceptions, newest first')
    .addOption(new Option('--status <status>', 'open or resolved').choices(['open', 'resolved']))
    .addOption(new Option('--provider <code>', 'only this provider').choices(PROVIDER_CODES))
    .addOption(new Option('--environment <environment>', 'only this environment').choices(['sandbox', 'live']))
    .addOption(new Option('--limit <n>', 'at most this many').argParser(positiveInteger).default(50))
    .option('--json', 'print them as JSON')
    .action(
      async (options: {
        status?: 'open' | 'resolved';
        provider?: string;
        environment?: 'sandbox' | 'live';
        limit: number;
        json?: boolean;
      }) => {
        const found = await listReconciliationExceptions(resources().deps().db, {
          ...options,
          limit: Math.min(options.limit, 1000),
        });
        if (options.json) io.out(`${printableJson(found)}\n`);
        else if (found.length === 0) io.out('none\n');
        else for (const exception of found) io.out(formatExceptionLine(exception));
      },
    );
  recon
    .command('show')
    .description('show an exception with its evidence')
    .argument('<rex_id>', 'the exception id')
    .action(async (id: string) => {
      io.out(formatException(await exceptionById(resources().deps().db, id)));
    });
  recon
    .command('resolve')
    .description('resolve an exception with a reason; --adjustment posts an adjustment journal to the provider account')
    .argument('<rex_id>', 'the exception id')
    .requiredOption('--reason <text>', 'why, for the ledger and the audit')
    .option(
      '--adjustment <minor_units>',
      'minor units the provider holds more (negative: less) than our books said',
      (value: string) => {
        if (!/^-?\d{1,15}$/.test(value) || Number(value) === 0)
          throw new InvalidArgumentError('a non-zero whole number of minor units');
        return Number(value);
      },
    )
    .option('--operator <name>', 'who resolves it', defaultReviewer())
    .action(async (id: string, options: { reason: string; adjustment?: number; operator: string }) => {
      const resolved = await resolveReconciliationException(resources().deps().db, id, options);
      io.out(
        `resolved ${printable(resolved.id)} as ${printable(resolved.resolvedBy ?? '')}` +
          (resolved.adjustmentJournalId ? `; adjustment journal ${resolved.adjustmentJournalId}` : '') +
          '\n',
      );
    });
}

/**
 * An error as one line for the reviewer: the unreachable service or the missing setting named,
 * never a stack trace; stored text in the message (a reviewer's name…) escaped.
 */
/** One line of `provider status`: the key, the status shown, an override's reason, the figures. */
function formatAvailability(rows: AvailabilityRow[]): string {
  return table([
    ['PROVIDER', 'COUNTRY', 'OPERATION', 'STATUS', 'SINCE', 'ATTEMPTS', 'SUCCESS', 'P95 S', 'REASON'],
    ...rows.map((row) => [
      row.provider,
      row.country,
      row.operation,
      row.status,
      row.since ?? '-',
      String(row.windowAttempts),
      row.successRate === null ? '-' : `${Math.round(row.successRate * 100)} %`,
      row.p95Seconds === null ? '-' : String(row.p95Seconds),
      printable(row.reason ?? ''),
    ]),
  ]);
}

/**
 * Starts the deliveries of the `provider.status_changed` events an override at `at` (epoch ms) wrote
 * (docs/availability.md#events); connects to Temporal only when there are some.
 */
async function deliverOverride(resources: Resources, environment: Environment, at: number): Promise<void> {
  if ((await findStatusChangedEvents(resources.deps().db, environment, at)).length === 0) return;
  const operations = await resources.operations();
  await deliverStatusChanges(
    { db: operations.db, temporal: operations.temporal, taskQueue: operations.config.TEMPORAL_WEBHOOK_TASK_QUEUE },
    environment,
    at,
  );
}

/**
 * `provider status|set-status|clear-status` (docs/availability.md#overrides): operators' health as measured, and an
 * operator's status with a reason (planned maintenance), which wins until cleared.
 */
function addProviderCommands(program: Command, resources: () => Resources, io: CliIo): void {
  const provider = program.command('provider').description("operators' health: see it, or set a status by hand");
  const environmentOption = new Option('--environment <env>', 'sandbox or live').choices(ENVIRONMENTS).default('live');
  provider
    .command('status')
    .description('every provider, country and operation with its status and figures')
    .addOption(environmentOption)
    .action(async (options: { environment: Environment }) => {
      io.out(formatAvailability(await availabilityOf(resources().deps().db, options.environment)));
    });
  const key = (command: Command) =>
    command
      .argument('<provider>', 'the provider code (momo, mobile_money_b, mpesa, …)')
      .argument('<country>', 'ISO 3166 alpha-2 country code')
      .addArgument(new Argument('<operation>', 'what is affected').choices(HEALTH_OPERATIONS))
      .addOption(environmentOption)
      .option('--operator <name>', 'who sets it, shown with the reason', defaultReviewer());
  type KeyOptions = { environment: Environment; operator: string };
  key(provider.command('set-status'))
    .description('set a status with a reason, which wins over the measured one until cleared')
    .addOption(
      new Option('--status <status>', 'the status to show')
        .choices(['degraded', 'down', 'operational'])
        .makeOptionMandatory(),
    )
    .requiredOption('--reason <text>', 'why, as merchants and payers will read it', nonEmpty)
    .action(
      async (
        code: string,
        country: string,
        operation: HealthOperation,
        options: KeyOptions & { status: ProviderStatus; reason: string },
      ) => {
        const now = Date.now();
        const changed = await overrideProviderStatus(
          resources().deps().db,
          options.environment,
          { provider: code as ProviderCode, country: country.toUpperCase(), operation },
          { status: options.status, reason: options.reason, by: options.operator },
          now,
        );
        await deliverOverride(resources(), options.environment, now);
        io.out(
          `${code} ${country.toUpperCase()} ${operation} (${options.environment}): ${changed.before} → ${changed.after}\n`,
        );
      },
    );
  key(provider.command('clear-status'))
    .description('clear the status set by hand: the measured one shows again')
    .action(async (code: string, country: string, operation: HealthOperation, options: KeyOptions) => {
      const now = Date.now();
      const changed = await overrideProviderStatus(
        resources().deps().db,
        options.environment,
        { provider: code as ProviderCode, country: country.toUpperCase(), operation },
        null,
        now,
      );
      await deliverOverride(resources(), options.environment, now);
      io.out(
        `${code} ${country.toUpperCase()} ${operation} (${options.environment}): ${changed.before} → ${changed.after}\n`,
      );
    });
}

function oneLine(error: unknown): string {
  if (isOutage(error))
    return 'PostgreSQL or Temporal cannot be reached: is `npm start` running, or are DATABASE_URL and TEMPORAL_ADDRESS right?';
  if (error instanceof ConfigError) {
    return `invalid configuration: ${printable(error.problems.join('; '))} (set it in the environment, or run the command in the checkout where \`npm start\` runs: it writes ${RUNTIME_SETTINGS_FILE})`;
  }
  const message = error instanceof DomainError || error instanceof Error ? error.message : String(error);
  return printable(message.split('\n')[0] ?? message);
}

/**
 * Runs the admin command with `argv` (the arguments after `admin`).
 * @param env settings to use instead of the process environment (tests)
 * @param runtimeFile the settings `npm start` wrote, instead of `var/runtime.json` in the working directory (tests)
 * @returns the exit status: 0 done, 1 error, 78 bad configuration (each with one line on `io.err`)
 */
export async function runAdmin(
  argv: string[],
  io: CliIo = processIo,
  env?: Record<string, string | undefined>,
  runtimeFile?: string,
): Promise<number> {
  let opened: Resources | undefined;
  const resources = () => {
    opened ??= new Resources(loadAdminConfig(env, runtimeFile));
    return opened;
  };
  try {
    await buildAdminProgram(resources, io).parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    io.err(`error: ${oneLine(error)}\n`);
    return error instanceof ConfigError ? 78 : 1;
  } finally {
    await opened?.close();
  }
}

if (require.main === module) {
  runAdmin(process.argv.slice(2)).then((code) => process.exit(code));
}
