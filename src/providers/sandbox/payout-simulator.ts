/**
 * The sandbox payout rails (docs/payouts.md#sandbox-destinations): one per provider whose descriptor declares
 * `payouts` (the mobile-money rails, and the bank rail, which has no live counterpart yet). They keep the live rails'
 * promises at the boundary: the reference derives from the payout id (a repeated send finds the first), answers
 * are three-valued (`0007` loses its send's answer), a rail that is down says so before taking anything (`0005`),
 * and a paid payout can come back (`0009`). The destination's ending decides (src/domain/sandbox-payouts.ts); the
 * rail records only when it first saw and when it took each payout, in its ledger.
 */
import { createHash } from 'node:crypto';
import type { ProviderCode } from '../../domain/catalogue';
import { base62FromDigest } from '../../domain/ids';
import { destinationEnding } from '../../domain/payout-rail';
import type { PayoutCapability } from '../../domain/provider-descriptor';
import {
  payoutBehaviourForEnding,
  sandboxPayoutSendAt,
  sandboxPayoutStateAt,
  SANDBOX_PAYOUT_RAIL_DOWN_MS,
  type SandboxPayoutRecord,
} from '../../domain/sandbox-payouts';
import {
  PayoutRailUnavailable,
  type AccountHolderVerification,
  type PayoutAnswer,
  type PayoutRail,
  type PayoutSendAnswer,
} from '../payout-rail';

/** The records the sandbox payout rails keep (src/db/sandbox-payouts.ts implements it in PostgreSQL). */
export interface SandboxPayoutLedger {
  /** Records `row` unless its reference exists; the stored record either way. */
  recordPayoutAttempt(row: SandboxPayoutRecord): Promise<SandboxPayoutRecord>;
  /** Marks `reference` taken at `at` unless it already was; the record afterwards, undefined when unknown. */
  takePayout(reference: string, at: Date): Promise<SandboxPayoutRecord | undefined>;
  /** The record of `reference`; undefined when the rail never saw it. */
  findPayout(reference: string): Promise<SandboxPayoutRecord | undefined>;
}

/** What the sandbox payout rails need: their ledger, a clock and the in-transit time of ordinary endings. */
export interface SandboxPayoutDeps {
  payoutLedger: SandboxPayoutLedger;
  now: () => Date;
  /** How long a payout to an ending without a scenario stays in transit, in milliseconds. */
  payoutDelayMs: number;
}

/** Base62 characters after the `{code}_` of a sandbox payout reference. */
const REFERENCE_HASH_LENGTH = 24;

/**
 * The sandbox rail `code`'s reference of the payout `payoutId`: `{code}_` + 24 base62 of SHA-256, the same every
 * time.
 */
export function sandboxPayoutReference(code: ProviderCode, payoutId: string): string {
  const digest = createHash('sha256').update(`payout:${code}:${payoutId}`).digest();
  return `${code}_${base62FromDigest(digest, REFERENCE_HASH_LENGTH)}`;
}

/**
 * The sandbox payout rail of `code`, paying what `capability` declares (see the module's comment).
 * Wallet holders (where the provider can say): an ending `0002` is unverified, any other verified.
 */
export function createSandboxPayoutRail(
  code: ProviderCode,
  capability: PayoutCapability,
  deps: SandboxPayoutDeps,
): PayoutRail {
  /** What the rail says of `record` at `now`. */
  function answerOf(record: SandboxPayoutRecord, now: Date): PayoutAnswer {
    return {
      providerReference: record.provider_reference,
      ...sandboxPayoutStateAt(record.behaviour, record.taken_at, now, deps.payoutDelayMs),
    };
  }

  const rail: PayoutRail = {
    code,

    async sendPayout(request) {
      const reference = sandboxPayoutReference(code, request.payoutId);
      if (request.destination.type !== capability.destination || !capability.currencies.includes(request.currency)) {
        return {
          outcome: 'refused',
          providerReference: reference,
          failureCode: 'provider_error',
          failureMessage: `The sandbox ${code} rail pays ${capability.destination} in ${capability.currencies.join(', ')}`,
        };
      }
      const now = deps.now();
      const ending = destinationEnding(request.destination);
      let record = await deps.payoutLedger.recordPayoutAttempt({
        provider_reference: reference,
        provider: code,
        payout_id: request.payoutId,
        amount: request.amount,
        currency: request.currency,
        destination_type: request.destination.type,
        destination_ending: ending,
        behaviour: payoutBehaviourForEnding(ending),
        first_attempt_at: now,
        taken_at: null,
      });
      if (record.taken_at === null) {
        if (sandboxPayoutSendAt(record.behaviour, record.first_attempt_at, now) === 'rail_down') {
          const backAt = record.first_attempt_at.getTime() + SANDBOX_PAYOUT_RAIL_DOWN_MS;
          throw new PayoutRailUnavailable(`the sandbox ${code} rail is down (0005)`, backAt - now.getTime());
        }
        record = (await deps.payoutLedger.takePayout(reference, now)) ?? record;
      }
      const answer = answerOf(record, now);
      // A repeated send of a payout since returned answers what a send can: the status call says the rest.
      if (answer.outcome === 'returned' || answer.outcome === 'not_received')
        return { outcome: 'unknown', providerReference: reference, failureMessage: 'already sent: ask its status' };
      return answer as PayoutSendAnswer;
    },

    async payoutStatus(providerReference) {
      const record = await deps.payoutLedger.findPayout(providerReference);
      if (!record) return { outcome: 'not_received', providerReference };
      return answerOf(record, deps.now());
    },
  };
  if (capability.accountHolderLookup) {
    rail.verifyAccountHolder = async (msisdn: string): Promise<AccountHolderVerification> =>
      payoutBehaviourForEnding(msisdn) === 'account_invalid' ? 'unverified' : 'verified';
  }
  return rail;
}
