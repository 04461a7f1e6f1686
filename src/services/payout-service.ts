/**
 * Payout destinations and payouts (docs/payouts.md). A create starts the payout's workflow `payout:{po_id}` with the
 * `sendPayout` Update (Update-with-Start, as payments are created); the workflow's first step stores the payout
 * `pending` with its reservation of amount + fee under the lock of the merchant's balance account
 * (docs/payouts.md#money), and the create answers once the rail has the payout, refused it or is known to be down, at
 * most CREATE_WAIT_MS (docs/payouts.md#workflow). Ids derive from merchant, environment and `Idempotency-Key` when
 * one is given, so a retried request reattaches to the same payout and workflow.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ScheduleNotFoundError,
  WithStartWorkflowOperation,
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  WorkflowUpdateFailedError,
  type Client,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { payoutRailsOf, payoutWorkflowStart, type PayoutActivityDeps } from '../activities/payout-activities';
import type { Config } from '../config';
import { createScheduleIfAbsent } from '../lib/temporal-schedules';
import type { Db } from '../db/knex';
import {
  deleteDestination as deleteDestinationRow,
  findDestination,
  findPayout,
  findPayoutSchedule,
  savePayoutSchedule,
  type PayoutScheduleRecord,
  insertDestination,
  listDestinations as listDestinationRows,
  listPayoutsPage,
  type DestinationRecord,
  type DestinationStatus,
  type PayoutFilter,
} from '../db/payouts';
import { listMembers } from '../db/team';
import {
  MERCHANT_CATALOGUE,
  operatorForNumber,
  PROVIDER_CODES,
  servesCountry,
  type Offering,
  type ProviderCode,
} from '../domain/catalogue';
import { orNotFound, DomainError, validationError } from '../domain/errors';
import { ID_PREFIXES } from '../domain/ids';
import type { Currency } from '../domain/money';
import {
  acceptedPayoutState,
  notCancellablePayoutMessage,
  PAYOUT_CAPABILITIES,
  payoutCurrencyProblem,
  payoutFee,
  type PayoutSchedule,
  type PayoutSnapshot,
} from '../domain/payout';
import { destinationEnding } from '../domain/payout-rail';
import { parseMsisdn, walletCurrencyProblem } from '../domain/phone';
import type { Principal } from '../domain/principal';
import { deriveId, newId } from '../lib/ids';
import { updateWithin, UpdateUnanswered, createWithStart, type UpdateWithStartOutcome } from '../lib/temporal-deadline';
import { createMailer } from '../lib/mailer';
import type { PayoutRailRegistry } from '../providers/payout-registry';
import { EnvironmentAttribute, MerchantIdAttribute } from '../workflows/messages';
import {
  CANCEL_UPDATE_ID,
  cancelPayoutUpdate,
  PAYOUT_SWEEP_SCHEDULE_ID,
  payoutScheduleId,
  SEND_UPDATE_ID,
  sendPayoutUpdate,
  type AutomaticPayoutInput,
  type PayoutCreateInput,
} from '../workflows/payout-messages';
import { audit, auditEntryOf } from './audit';
import { requireRecentTwoFactor } from './two-factor-service';

/** What the payout service needs. */
export interface PayoutServiceDeps {
  db: Db;
  temporal: Client;
  /** The payout activities' (whose rails and workflow starts the service uses), and the create's and mail's. */
  config: PayoutActivityDeps['config'] &
    Pick<
      Config,
      | 'CREATE_WAIT_MS'
      | 'TEMPORAL_CALL_TIMEOUT_MS'
      | 'UPDATE_DEADLINE_MS'
      | 'SMTP_URL'
      | 'MAIL_OUTBOX_DIR'
      | 'MAIL_FROM'
      | 'PUBLIC_BASE_URL'
    >;
  /** The payout rails; default: built from the configuration. */
  payoutRails?: PayoutRailRegistry;
}

/** The providers paying out to wallets. */
const WALLET_RAILS = PROVIDER_CODES.filter((code) => PAYOUT_CAPABILITIES[code]?.destination === 'mobile_money');
/** True when the wallet rail of `provider` pays numbers of `country`: the countries its merchant method serves. */
function payoutServes(provider: ProviderCode, country: string): boolean {
  const offering = (MERCHANT_CATALOGUE as Readonly<Record<string, Offering | undefined>>)[provider];
  return WALLET_RAILS.includes(provider) && offering !== undefined && servesCountry(offering, country);
}
/** The provider of the bank rail. */
const BANK_RAIL = PROVIDER_CODES.find((code) => PAYOUT_CAPABILITIES[code]?.destination === 'bank_account');

/** How long a live destination waits before its first payout (docs/payouts.md#destinations): 24 h, in ms. */
export const LIVE_DESTINATION_WAIT_MS = 86_400_000;
/** How long the provider's account-holder lookup may take before the destination is kept unverified for now (ms). */
const LOOKUP_TIMEOUT_MS = 5_000;

/** A destination to add, as the request gave it (docs/payouts.md#destinations). */
export type NewDestination =
  /** `operator`: the rail that pays the wallet, overriding the prefix table (a ported number, a Wave wallet). */
  | { type: 'mobile_money'; phoneNumber: string; operator?: ProviderCode }
  | { type: 'bank_account'; bankCode: string; accountNumber: string; accountHolderName: string };

/** Whether the wallet's provider knows its holder: `verified`, `unverified` or, when it cannot say, pending. */
async function verifyHolder(
  deps: PayoutServiceDeps,
  owner: Principal,
  provider: ProviderCode,
  msisdn: string,
): Promise<DestinationStatus> {
  const rail = payoutRailsOf(deps).get(owner.environment, provider);
  if (!rail?.verifyAccountHolder) return 'pending_verification';
  const timer = new AbortController();
  try {
    const answer = await Promise.race([
      rail.verifyAccountHolder(msisdn),
      sleep(LOOKUP_TIMEOUT_MS, 'unknown' as const, { signal: timer.signal }),
    ]);
    return answer === 'unknown' ? 'pending_verification' : answer;
  } catch {
    return 'pending_verification';
  } finally {
    timer.abort();
  }
}

/**
 * In live, adding a destination needs the dashboard: a session of a person with two-factor on and a code from the
 * last 5 minutes (docs/payouts.md#destinations, docs/security.md#step-up).
 * @throws DomainError `forbidden` (403)
 */
function requireLiveStepUp(owner: Principal): void {
  if (owner.via !== 'session')
    throw new DomainError('forbidden', 'a live payout destination is added from the dashboard, with a session token');
  if (!owner.member?.twoFactorEnabled)
    throw new DomainError('forbidden', 'turn two-factor on before adding a live payout destination');
  requireRecentTwoFactor(owner);
}

/** E-mails the merchant's owners that a live destination was added and when it becomes usable. */
async function mailOwners(deps: PayoutServiceDeps, owner: Principal, destination: DestinationRecord): Promise<void> {
  const owners = (await listMembers(deps.db, owner.merchantId)).filter((m) => m.role === 'owner');
  if (owners.length === 0) return;
  const what =
    destination.type === 'mobile_money'
      ? `the mobile-money wallet ending ${destination.last4}`
      : `the bank account ending ${destination.last4} (${destination.bankCode ?? ''})`;
  await createMailer(deps.config).send({
    to: owners.map((m) => m.email),
    subject: 'A payout destination was added to your PayCollect account',
    text: [
      `${what} was added as a live payout destination.`,
      `Payouts can go to it from ${destination.usableFrom} (24 hours from now).`,
      '',
      `If you did not add it, delete it now in the dashboard: ${deps.config.PUBLIC_BASE_URL ?? ''}/dashboard/payouts`,
      'and change your password.',
    ].join('\n'),
    messageId: `<payout-destination.${destination.id}@paycollect>`,
    date: destination.createdAt,
  });
}

/**
 * Adds a payout destination (docs/payouts.md#destinations): a wallet (its operator found by prefix, the holder looked
 * up where its provider can say) or a bank account. Live: needs a recent two-factor confirmation, e-mails the owners,
 * usable 24 h later; sandbox: usable at once.
 * @throws DomainError `validation_error` naming the field (a number no payout rail serves, a malformed account);
 *   `forbidden` without the live step-up
 */
export async function createDestination(
  deps: PayoutServiceDeps,
  owner: Principal,
  request: NewDestination,
  ip: string | null,
): Promise<DestinationRecord> {
  if (owner.environment === 'live') requireLiveStepUp(owner);
  const now = new Date();
  const base = {
    id: newId(ID_PREFIXES.payoutDestination),
    merchantId: owner.merchantId,
    environment: owner.environment,
    usableFrom: new Date(now.getTime() + (owner.environment === 'live' ? LIVE_DESTINATION_WAIT_MS : 0)).toISOString(),
    createdAt: now.toISOString(),
  };
  let destination: DestinationRecord;
  if (request.type === 'mobile_money') {
    const msisdn = parseMsisdn(request.phoneNumber);
    if (!msisdn)
      throw validationError([
        {
          field: 'phone_number',
          message: 'phone_number must be a valid international (E.164) number, e.g. +250788123456',
        },
      ]);
    if (request.operator !== undefined && !payoutServes(request.operator, msisdn.country))
      throw validationError([
        { field: 'operator', message: `${request.operator} does not pay out to ${msisdn.country}` },
      ]);
    const provider = request.operator ?? operatorForNumber(msisdn.country, msisdn.nationalNumber, WALLET_RAILS);
    if (!provider)
      throw validationError([
        { field: 'phone_number', message: `no mobile money operator we pay out to is known for this number` },
      ]);
    destination = {
      ...base,
      type: 'mobile_money',
      provider,
      phoneNumber: msisdn.e164,
      bankCode: null,
      accountNumber: null,
      accountHolderName: null,
      last4: destinationEnding({ type: 'mobile_money', phoneNumber: msisdn.e164 }),
      status: await verifyHolder(deps, owner, provider, msisdn.e164),
    };
  } else {
    if (!BANK_RAIL) throw new DomainError('provider_unavailable', 'no bank payout rail exists');
    destination = {
      ...base,
      type: 'bank_account',
      provider: BANK_RAIL,
      phoneNumber: null,
      bankCode: request.bankCode,
      accountNumber: request.accountNumber,
      accountHolderName: request.accountHolderName,
      last4: request.accountNumber.slice(-4),
      status: 'pending_verification',
    };
  }
  await insertDestination(deps.db, destination);
  if (owner.environment === 'live') await mailOwners(deps, owner, destination);
  await audit(deps.db, owner, 'payout_destination.created', destination.id, ip);
  return destination;
}

/** The caller's destinations, newest first. */
export async function listDestinations(deps: Pick<PayoutServiceDeps, 'db'>, owner: Principal) {
  return listDestinationRows(deps.db, owner);
}

/**
 * Deletes one of the caller's destinations; payouts already made to it keep naming it.
 * @throws DomainError `not_found` for an unknown or another merchant's id; `forbidden` in live without the step-up
 */
export async function deleteDestination(
  deps: PayoutServiceDeps,
  owner: Principal,
  id: string,
  ip: string | null,
): Promise<void> {
  if (owner.environment === 'live') requireLiveStepUp(owner);
  if (!(await deleteDestinationRow(deps.db, owner, id, new Date())))
    throw new DomainError('not_found', `no payout destination with id ${id}`);
  await audit(deps.db, owner, 'payout_destination.deleted', id, ip);
}

/**
 * Why `destination` cannot be paid `currency`: its rail does not pay it, or its wallet's country holds other currencies
 * (docs/providers.md#markets); undefined when it can.
 */
function destinationCurrencyProblem(
  destination: Pick<DestinationRecord, 'provider' | 'phoneNumber'>,
  currency: Currency,
): string | undefined {
  return (
    payoutCurrencyProblem(destination.provider, currency) ??
    (destination.phoneNumber ? walletCurrencyProblem(destination.phoneNumber, currency) : undefined)
  );
}

/** A payout to create, as the request gave it. Amount in minor units. */
export interface NewPayout {
  amount: number;
  currency: Currency;
  destination: string;
  description?: string;
}

/**
 * The start of a payout's workflow, used with each Update: the running one is reused, a closed one re-run. `create`:
 * the payout its first step stores (a create); a cancel's start reads the stored one.
 */
function workflowStart(deps: PayoutServiceDeps, payout: PayoutSnapshot, create?: PayoutCreateInput) {
  return new WithStartWorkflowOperation('payoutWorkflow', {
    ...payoutWorkflowStart(payout, deps.config.TEMPORAL_TASK_QUEUE, create),
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
  });
}

/** The API error of a payout workflow's refusal (its Update failure's type), or undefined for any other error. */
function refusalOf(error: unknown): DomainError | undefined {
  if (!(error instanceof WorkflowUpdateFailedError) || !(error.cause instanceof ApplicationFailure)) return undefined;
  const { type, message } = error.cause;
  if (type === 'payout_not_cancellable' || type === 'insufficient_balance') return new DomainError(type, message);
  return undefined;
}

/**
 * Checks a payout request against its destination and rail, and builds the payout to store (`pending`).
 * @throws DomainError `validation_error` naming `amount`, `destination` or `currency`; `conflict` (409) for a
 *   destination not usable yet; `provider_unavailable` (503) where the environment has no rail for it
 */
async function payoutToStore(
  deps: PayoutServiceDeps,
  owner: Principal,
  id: string,
  request: NewPayout,
  automatic: boolean,
): Promise<PayoutSnapshot> {
  if (!Number.isSafeInteger(request.amount) || request.amount <= 0)
    throw validationError([{ field: 'amount', message: 'amount must be a positive whole number of minor units' }]);
  const destination = await findDestination(deps.db, owner, request.destination);
  if (!destination)
    throw validationError([
      { field: 'destination', message: `no payout destination ${request.destination} in this account and environment` },
    ]);
  const now = new Date();
  if (Date.parse(destination.usableFrom) > now.getTime())
    throw new DomainError(
      'conflict',
      `payout destination ${destination.id} is usable from ${destination.usableFrom}, 24 hours after it was added`,
    );
  const currencyProblem = destinationCurrencyProblem(destination, request.currency);
  if (currencyProblem) throw validationError([{ field: 'currency', message: currencyProblem }]);
  if (!payoutRailsOf(deps).get(owner.environment, destination.provider as ProviderCode))
    throw new DomainError(
      'provider_unavailable',
      `no ${owner.environment} payout rail for ${destination.provider} is configured yet; nothing was reserved`,
    );
  return {
    id,
    merchantId: owner.merchantId,
    environment: owner.environment,
    amount: request.amount,
    fee: payoutFee(destination.type, request.amount, request.currency),
    currency: request.currency,
    destinationId: destination.id,
    provider: destination.provider,
    description: request.description ?? null,
    automatic,
    ...acceptedPayoutState(now.toISOString()),
  };
}

/**
 * Creates a payout (docs/payouts.md#workflow): starts its workflow with the `sendPayout` Update (Update-with-Start);
 * the workflow's first step stores the payout `pending` with its reservation, `payout.created` and the audit entry
 * (the API writes no payout row), and the create answers what the Update returns (the rail has it: `in_transit` or
 * `paid`; refused: `failed`; rail down: `pending` with `pending_reason`), or after CREATE_WAIT_MS the payout as stored,
 * or as the request made it while its workflow has not stored it yet. A retried request with the same
 * `Idempotency-Key` reattaches to the same payout and workflow.
 * @param idempotencySeed the request's `Idempotency-Key` and hash
 * @throws DomainError `validation_error`, `conflict`, `provider_unavailable` (see payoutToStore),
 *   `insufficient_balance` (409; nothing reserved), `service_unavailable` (503) when its workflow could not be
 *   confirmed started in time (the same request with the same key reattaches to it, or starts it)
 */
export async function createPayout(
  deps: PayoutServiceDeps,
  owner: Principal,
  request: NewPayout,
  ip: string | null,
  idempotencySeed?: string,
  automatic = false,
): Promise<PayoutSnapshot> {
  const id = idempotencySeed
    ? deriveId(ID_PREFIXES.payout, `${owner.merchantId}:${owner.environment}:payout:${idempotencySeed}`)
    : newId(ID_PREFIXES.payout);
  const existing = await findPayout(deps.db, owner, id);
  // A retried request of a payout past its send: nothing to wait for.
  if (existing && existing.status !== 'pending') return existing;
  const payout = existing ?? (await payoutToStore(deps, owner, id, request, automatic));
  const create: PayoutCreateInput = { payout, audit: auditEntryOf(owner, 'payout.created', id, ip) };
  const start = workflowStart(deps, payout, create);
  let outcome: UpdateWithStartOutcome<PayoutSnapshot>;
  try {
    outcome = await createWithStart(deps.temporal, deps.config, start, sendPayoutUpdate, SEND_UPDATE_ID);
  } catch (error) {
    const refused = refusalOf(error);
    if (refused) throw refused; // the balance does not hold it: nothing reserved
    throw new DomainError(
      'service_unavailable',
      `payout ${id} could not be sent right now; retry the request with the same Idempotency-Key`,
    );
  }
  if (outcome.answered) return outcome.answered;
  if (!outcome.running)
    throw new DomainError(
      'service_unavailable',
      `payout ${id} could not be confirmed in time and may have been created; retry the request with the same Idempotency-Key to get it`,
    );
  return (await findPayout(deps.db, owner, id)) ?? payout;
}

/**
 * The caller's payout `id`.
 * @throws DomainError `not_found` for unknown and foreign ids alike
 */
export async function getPayout(deps: Pick<PayoutServiceDeps, 'db'>, owner: Principal, id: string) {
  return orNotFound(await findPayout(deps.db, owner, id), 'payout', id);
}

/** One page of the caller's payouts, newest first. @throws DomainError `validation_error` for a foreign cursor */
export async function listPayouts(
  deps: Pick<PayoutServiceDeps, 'db'>,
  owner: Principal,
  filter: PayoutFilter,
  limit: number,
) {
  return listPayoutsPage(deps.db, owner, filter, limit);
}

/**
 * Cancels a `pending` payout (docs/payouts.md#cancel) through its workflow's `cancelPayout` Update: amount and fee go
 * back to the balance.
 * @throws DomainError `not_found`; `payout_not_cancellable` (409) once the rail has it or it ended;
 *   `service_unavailable` (503) when the workflow did not answer within UPDATE_DEADLINE_MS
 */
export async function cancelPayout(
  deps: PayoutServiceDeps,
  owner: Principal,
  id: string,
  ip: string | null,
): Promise<PayoutSnapshot> {
  const payout = await getPayout(deps, owner, id);
  if (payout.status === 'cancelled') return payout;
  if (payout.status !== 'pending')
    throw new DomainError('payout_not_cancellable', notCancellablePayoutMessage(payout.status));
  let cancelled: PayoutSnapshot;
  try {
    cancelled = await updateWithin(
      deps.temporal,
      { deadline: Date.now() + deps.config.UPDATE_DEADLINE_MS, refusal: refusalOf },
      () =>
        deps.temporal.workflow.executeUpdateWithStart(cancelPayoutUpdate, {
          updateId: CANCEL_UPDATE_ID,
          startWorkflowOperation: workflowStart(deps, payout),
        }),
    );
  } catch (error) {
    if (!(error instanceof UpdateUnanswered)) throw error;
    throw new DomainError(
      'service_unavailable',
      `payout ${id} did not answer in time; the cancel may still be carried out, so retry it to learn its outcome`,
    );
  }
  await audit(deps.db, owner, 'payout.cancelled', id, ip);
  return cancelled;
}

/** The caller's automatic payout setting (docs/payouts.md#automatic-payouts). */
export async function getPayoutSchedule(deps: Pick<PayoutServiceDeps, 'db'>, owner: Principal) {
  return findPayoutSchedule(deps.db, owner);
}

/** An automatic payout setting as the request gave it; `minimum` in minor units. */
export interface NewPayoutSchedule {
  schedule: PayoutSchedule;
  destination?: string;
  currency?: Currency;
  minimum?: number;
}

/** When each schedule fires: daily at 06:00 UTC, weekly on Mondays at 06:00 UTC. */
const CALENDARS = {
  daily: [{ hour: 6, minute: 0 }],
  weekly: [{ dayOfWeek: 'MONDAY' as const, hour: 6, minute: 0 }],
};

/**
 * Sets the caller's automatic payouts (docs/payouts.md#automatic-payouts): `manual` removes its Temporal Schedule;
 * `daily` or `weekly` names a destination and a currency its rail pays, and creates or updates the Schedule
 * `payout-schedule:{merchant}:{environment}` (visible in the Temporal UI), which starts `automaticPayoutWorkflow`.
 * @throws DomainError `validation_error` naming `destination` or `currency`
 */
export async function setPayoutSchedule(
  deps: PayoutServiceDeps,
  owner: Principal,
  request: NewPayoutSchedule,
  ip: string | null,
): Promise<PayoutScheduleRecord> {
  const setting: PayoutScheduleRecord = {
    schedule: request.schedule,
    destinationId: request.destination ?? null,
    currency: request.currency ?? null,
    minimum: request.minimum ?? 0,
    updatedAt: new Date().toISOString(),
  };
  const destination = request.destination ? await findDestination(deps.db, owner, request.destination) : undefined;
  if (request.destination && !destination)
    throw validationError([
      { field: 'destination', message: `no payout destination ${request.destination} in this account and environment` },
    ]);
  if (setting.schedule !== 'manual') {
    if (!destination)
      throw validationError([{ field: 'destination', message: 'destination is required for an automatic schedule' }]);
    if (!request.currency)
      throw validationError([{ field: 'currency', message: 'currency is required for an automatic schedule' }]);
    const problem = destinationCurrencyProblem(destination, request.currency);
    if (problem) throw validationError([{ field: 'currency', message: problem }]);
  }
  await savePayoutSchedule(deps.db, owner, setting);
  const scheduleId = payoutScheduleId(owner.merchantId, owner.environment);
  const handle = deps.temporal.schedule.getHandle(scheduleId);
  if (setting.schedule === 'manual') {
    await handle.delete().catch((error: unknown) => {
      if (!(error instanceof ScheduleNotFoundError)) throw error;
    });
  } else {
    const input: AutomaticPayoutInput = { merchantId: owner.merchantId, environment: owner.environment };
    const spec = { calendars: CALENDARS[setting.schedule] };
    const created = await createScheduleIfAbsent(deps.temporal, {
      scheduleId,
      spec,
      action: {
        type: 'startWorkflow',
        workflowType: 'automaticPayoutWorkflow',
        workflowId: `automatic-payout:${owner.merchantId}:${owner.environment}`,
        args: [input],
        taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
        typedSearchAttributes: [
          { key: MerchantIdAttribute, value: owner.merchantId },
          { key: EnvironmentAttribute, value: owner.environment },
        ],
      },
    });
    if (!created) await handle.update((previous) => ({ ...previous, spec }));
  }
  await audit(deps.db, owner, 'payout_schedule.updated', scheduleId, ip);
  return setting;
}

/**
 * Deletes the Temporal Schedule `payout-sweeper` where an earlier version left it (docs/payouts.md#workflow): a payout
 * is stored by its workflow's first step, so no payout is ever stored without its workflow, and nothing is left to
 * sweep.
 * @returns whether it was there
 */
export async function removePayoutSweepSchedule(temporal: Client): Promise<boolean> {
  try {
    await temporal.schedule.getHandle(PAYOUT_SWEEP_SCHEDULE_ID).delete();
    return true;
  } catch (error) {
    if (error instanceof ScheduleNotFoundError) return false;
    throw error;
  }
}
