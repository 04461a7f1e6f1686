/**
 * The payout workflow's activities (docs/payouts.md#workflow): the rail calls and the writes of each state with its
 * journals and event, after which the event's webhook deliveries start (docs/payouts.md#events).
 */
import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import type { Db } from '../db/knex';
import type { EventInput } from '../db/payments';
import {
  findDestination,
  findDestinationById,
  findPayoutById,
  findPayoutSchedule,
  insertAutomaticPayout,
  insertPayoutReserved,
  railDestinationOf,
  writePayoutStatus,
} from '../db/payouts';
import { availableOf, readOwed } from '../db/ledger';
import { readShownStatus } from '../db/provider-health';
import { createProviderRequestLog } from '../db/provider-requests';
import { createSandboxPayoutLedger } from '../db/sandbox-payouts';
import { DomainError } from '../domain/errors';
import { ID_PREFIXES } from '../domain/ids';
import { acceptedPayoutState, payoutCurrencyProblem, payoutFee, type PayoutSnapshot } from '../domain/payout';
import type { PayoutEmittedEvent } from '../domain/payout-table';
import { deriveId } from '../lib/ids';
import { subjectEvent } from './events';
import type { ProviderCode } from '../domain/catalogue';
import { failureReasonSide } from '../providers/failure-sides';
import { PayoutRailUnavailable, type PayoutAnswer, type PayoutRail } from '../providers/payout-rail';
import { payoutRailRegistryFromConfig, type PayoutRailRegistry } from '../providers/payout-registry';
import { toPayoutView } from '../views/payout';
import { payoutSearchAttributes } from '../workflows/messages';
import {
  payoutWorkflowId,
  type PayoutActivities,
  type PayoutCreateInput,
  type PayoutRailResult,
  type PayoutWorkflowInput,
} from '../workflows/payout-messages';
import { startWebhookDeliveries } from './webhook-dispatch';
import { workflowStartOptions } from './workflow-start';

/** Dependencies of the payout activities. */
export interface PayoutActivityDeps {
  db: Db;
  temporal: Client;
  config: Pick<
    Config,
    | 'TEMPORAL_TASK_QUEUE'
    | 'TEMPORAL_WEBHOOK_TASK_QUEUE'
    | 'SANDBOX_APPROVAL_DELAY_MS'
    | 'PROVIDER_CALLBACK_SECRET'
    | 'PROVIDER_CALLBACK_BASE_URL'
    | 'PROVIDERS'
  >;
  /** The payout rails; default: built from the configuration (sandbox simulators, configured live rails). */
  payoutRails?: PayoutRailRegistry;
}

/**
 * The event row `type` of `payout` (docs/payouts.md#events): `payout.created` with the payout, the others as the
 * payout table's rows emit them. Its id derives from the payout and the type, so it is written once whatever the
 * retries.
 */
export function payoutEvent(payout: PayoutSnapshot, type: 'payout.created' | PayoutEmittedEvent): EventInput {
  return subjectEvent('payout', payout, type, type, toPayoutView(payout));
}

/**
 * How a payout's workflow is started, by whoever starts it (the create's Update-with-Start, a cancel, the operator's
 * ask): the id `payout:{po_id}`, so every start of one payout meets the same workflow (docs/payouts.md#workflow), and
 * the merchant on every log line and in the Temporal UI. `create`: the payout its first step stores (a create).
 */
export function payoutWorkflowStart(
  payout: Pick<PayoutSnapshot, 'id' | 'merchantId' | 'environment'>,
  taskQueue: string,
  create?: PayoutCreateInput,
) {
  const input: PayoutWorkflowInput = { payoutId: payout.id, ...(create ? { create } : {}) };
  return workflowStartOptions(taskQueue, payoutWorkflowId(payout.id), input, payoutSearchAttributes(payout));
}

/** Registries built from configuration, one per dependencies object (so live rails keep their cached tokens). */
const builtRegistries = new WeakMap<object, PayoutRailRegistry>();

/** The payout rail registry of `deps`, or the one built from its configuration (once per `deps`). */
export function payoutRailsOf(deps: Pick<PayoutActivityDeps, 'db' | 'config' | 'payoutRails'>): PayoutRailRegistry {
  if (deps.payoutRails) return deps.payoutRails;
  let registry = builtRegistries.get(deps);
  if (!registry) {
    registry = payoutRailRegistryFromConfig(
      createSandboxPayoutLedger(deps.db),
      deps.config,
      createProviderRequestLog(deps.db),
    );
    builtRegistries.set(deps, registry);
  }
  return registry;
}

/**
 * The outcome of a rail call of `provider` as the workflow takes it, with whose the provider's reason for a refusal is
 * (docs/availability.md#classification).
 */
function resultOf(provider: string, answer: PayoutAnswer<string>): PayoutRailResult {
  const reasonSide =
    answer.outcome === 'refused' && answer.providerReason
      ? failureReasonSide(provider as ProviderCode, 'payout', answer.providerReason)
      : undefined;
  return {
    kind: 'answer',
    outcome: answer.outcome as (PayoutRailResult & { kind: 'answer' })['outcome'],
    providerReference: answer.providerReference,
    ...(answer.failureCode ? { failureCode: answer.failureCode } : {}),
    ...(answer.failureMessage ? { failureMessage: answer.failureMessage.slice(0, 500) } : {}),
    ...(reasonSide ? { reasonSide } : {}),
  };
}

/** Builds the payout activities around their dependencies. */
export function createPayoutActivities(deps: PayoutActivityDeps): PayoutActivities {
  const registry = payoutRailsOf(deps);
  const dispatch = { db: deps.db, temporal: deps.temporal, taskQueue: deps.config.TEMPORAL_WEBHOOK_TASK_QUEUE };

  async function stored(payoutId: string): Promise<PayoutSnapshot> {
    const payout = await findPayoutById(deps.db, payoutId);
    if (!payout) throw new Error(`payout ${payoutId} is not stored`);
    return payout;
  }

  function railOf(payout: PayoutSnapshot): PayoutRail | undefined {
    return registry.get(payout.environment, payout.provider as Parameters<PayoutRailRegistry['get']>[1]);
  }

  return {
    loadPayout: stored,

    async automaticPayoutDraft({ merchantId, environment, seed }) {
      const scope = { merchantId, environment };
      const setting = await findPayoutSchedule(deps.db, scope);
      if (setting.schedule === 'manual' || !setting.destinationId || !setting.currency) return null;
      const destination = await findDestination(deps.db, scope, setting.destinationId);
      const now = new Date();
      if (!destination || Date.parse(destination.usableFrom) > now.getTime()) return null;
      if (payoutCurrencyProblem(destination.provider, setting.currency)) return null;
      if (!registry.get(environment, destination.provider as Parameters<PayoutRailRegistry['get']>[1])) return null;
      const [balance] = await readOwed(deps.db, scope, now, setting.currency);
      if (!balance || availableOf(balance) <= setting.minimum) return null;
      return {
        payout: {
          id: deriveId(ID_PREFIXES.payout, `automatic:${seed}`),
          merchantId,
          environment,
          // Decided by the store under the balance account's lock (docs/payouts.md#automatic-payouts).
          amount: 0,
          fee: 0,
          currency: setting.currency,
          destinationId: destination.id,
          provider: destination.provider,
          description: `Automatic ${setting.schedule} payout`,
          automatic: true,
          ...acceptedPayoutState(now.toISOString()),
        },
        automaticMinimum: setting.minimum,
      };
    },

    async storePayout({ payout: draft, automaticMinimum, audit }) {
      const created = (p: PayoutSnapshot) => payoutEvent(p, 'payout.created');
      let payout: PayoutSnapshot | undefined;
      try {
        if (automaticMinimum === undefined) {
          payout = (await insertPayoutReserved(deps.db, draft, created, audit)).payout;
        } else {
          const destination = await findDestinationById(deps.db, draft.destinationId);
          if (!destination) throw new Error(`destination ${draft.destinationId} is not stored`);
          const feeOf = (amount: number) => payoutFee(destination.type, amount, draft.currency);
          payout = await insertAutomaticPayout(deps.db, draft, automaticMinimum, feeOf, created, audit);
        }
      } catch (error) {
        if (error instanceof DomainError && error.code === 'insufficient_balance')
          return { refused: { code: 'insufficient_balance', message: error.message } };
        throw error;
      }
      if (!payout)
        return {
          refused: {
            code: 'insufficient_balance',
            message: `nothing in the available ${draft.currency} balance is above the minimum of ${automaticMinimum}`,
          },
        };
      // Once per event id: a retry of this step starts no second delivery.
      await startWebhookDeliveries(dispatch, created(payout));
      return { payout };
    },

    async sendPayoutToRail(payoutId) {
      const payout = await stored(payoutId);
      const rail = railOf(payout);
      if (!rail) return { kind: 'unavailable', reason: `no ${payout.environment} payout rail for ${payout.provider}` };
      const destination = await findDestinationById(deps.db, payout.destinationId);
      if (!destination) throw new Error(`destination ${payout.destinationId} is not stored`);
      try {
        return resultOf(
          payout.provider,
          await rail.sendPayout({
            payoutId: payout.id,
            amount: payout.amount,
            currency: payout.currency,
            destination: railDestinationOf(destination),
            description: payout.description ?? undefined,
            callbackUrl: null,
          }),
        );
      } catch (error) {
        if (error instanceof PayoutRailUnavailable)
          return { kind: 'unavailable', reason: error.message, retryAfterMs: error.retryAfterMs };
        throw error; // unknown whether it was sent: the retry sends under the same reference, which the rail dedupes
      }
    },

    async askPayoutRail(payoutId, providerReference) {
      const payout = await stored(payoutId);
      const rail = railOf(payout);
      if (!rail) return { kind: 'unavailable', reason: `no ${payout.environment} payout rail for ${payout.provider}` };
      return resultOf(payout.provider, await rail.payoutStatus(providerReference));
    },

    async payoutRailHealth(environment, key) {
      return readShownStatus(deps.db, environment, key);
    },

    async recordPayout({ payout: written, orders }) {
      const { payout, event } = await writePayoutStatus(deps.db, written, orders, payoutEvent);
      if (event) await startWebhookDeliveries(dispatch, event);
      return payout;
    },
  };
}
