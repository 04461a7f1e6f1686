/**
 * Payment links in the simulator's workload (docs/simulation.md#payment-links): the merchants' links, created through
 * the service function the API's create calls (`createPaymentLink`), opened by payers as `GET /l/{id}` opens them
 * (`openPaymentLink`: a new checkout session each time, or the closed link and why), and deactivated by some merchants
 * (`changePaymentLink`); and the promises of docs/payment-links.md about them, checked after every step and at rest.
 * The sessions a link opens are followed by the checkout driver (sim/checkout.ts) as any other session.
 *
 * Each merchant has at most two links per currency, created at its first link step: one of a fixed amount (the step's
 * drawn amount) and one whose payers choose the amount and give their name and e-mail. Everything about a link (its
 * completion limit, after how many openings its merchant deactivates it) comes from the link's own stream, `link:l3`.
 */
import type { Db } from '../src/db/knex';
import type { CheckoutAttempt } from '../src/domain/checkout-table';
import type { AmountRange, CollectField } from '../src/domain/payment-link';
import type { CheckoutServiceDeps } from '../src/services/checkout-service';
import { changePaymentLink, createPaymentLink, openPaymentLink } from '../src/services/payment-link-service';
import { draws, type Draws } from './random';

/** A link the run created, as the driver follows it. */
interface FollowedLink {
  id: string;
  /** `l3`: the driver's label. */
  label: string;
  merchantId: string;
  amount: number | null;
  amountRange: AmountRange | null;
  collect: CollectField[];
  /** Its `completed_limit`; null: none. */
  limit: number | null;
  /** Opened this many times (closed openings included). */
  openings: number;
  /** The merchant deactivates it after this many openings; undefined: never. */
  deactivateAfter?: number;
  /** When the merchant deactivated it (the link's `updated_at` then: the process's clock, as reservations'). */
  deactivatedAt?: Date;
}

/** What a payer's session of a link takes on an attempt, besides the number or card. */
export interface LinkTerms {
  /** The link's range: the payer chooses an amount in it. */
  amountRange: AmountRange | null;
  collect: CollectField[];
}

/** What opening a link gave one payer: the new session, or why it opened none. */
export type Opened = { sessionId: string } | { closed: string };

/** The run's payment links (see the module's comment). */
export interface LinkBook {
  /**
   * Opens a link of `merchantId` in `currency` for `payers` payers at once (two: a rush on one link), creating the
   * merchant's links at its first link step, and deactivates the link afterwards when its merchant's time has come.
   * `amount` is the step's drawn amount (a fixed link's price); `d` the stream of the step's session.
   * @returns the link's label and terms, and each payer's opening
   */
  open(input: {
    merchantId: string;
    currency: 'RWF' | 'KES';
    amount: number;
    d: Draws;
    payers: number;
  }): Promise<{ label: string; terms: LinkTerms; opened: Opened[]; deactivated: boolean }>;
  /** Broken promises of docs/payment-links.md: those that hold after every step, and with `atRest` those of the end. */
  problems(atRest: boolean): Promise<string[]>;
  /** Counts for the seed's line. */
  counts(): Promise<Record<string, number>>;
}

/** A customer-chosen amount's range in `currency`, minor units (whole shillings: M-Pesa takes no cents). */
const RANGES: Record<'RWF' | 'KES', AmountRange> = { RWF: { min: 100, max: 50_000 }, KES: { min: 100, max: 50_000 } };

/** The run's links (see the module's comment); `labels` names ids in violations. */
export function createLinkBook(seed: number, deps: CheckoutServiceDeps, labels: Map<string, string>): LinkBook {
  const { db } = deps;
  const links: FollowedLink[] = [];
  const byMerchant = new Map<string, FollowedLink[]>();
  /** Broken promises seen by the driver itself (an opening a closed link should have refused). */
  const seen: string[] = [];
  const tally: Record<string, number> = {};
  const count = (what: string, n = 1) => (tally[what] = (tally[what] ?? 0) + n);
  const owner = (merchantId: string) => ({ merchantId, environment: 'sandbox' as const });

  const create = async (merchantId: string, request: Parameters<typeof createPaymentLink>[2]) => {
    const label = `l${links.length}`;
    const ld = draws(seed, `link:${label}`);
    const limit = ld.weighted([
      [1, 25],
      [2, 25],
      [3, 20],
      [null, 30],
    ] as const);
    const link = await createPaymentLink(
      deps,
      owner(merchantId),
      { ...request, ...(limit === null ? {} : { completedLimit: limit }) },
      `${seed}:${label}:${process.pid}:${Date.now()}`,
    );
    labels.set(link.id, label);
    const followed: FollowedLink = {
      id: link.id,
      label,
      merchantId,
      amount: link.amount,
      amountRange: link.amountRange,
      collect: link.collect,
      limit: link.completedLimit,
      openings: 0,
      ...(ld.chance(0.4) ? { deactivateAfter: ld.int(2, 4) } : {}),
    };
    links.push(followed);
    count('links');
    return followed;
  };

  /** The merchant's links in `currency`: a fixed amount and a customer-chosen one, created at its first link step. */
  const linksOf = async (merchantId: string, currency: 'RWF' | 'KES', amount: number) => {
    const key = `${merchantId}:${currency}`;
    const known = byMerchant.get(key);
    if (known) return known;
    const fixed = await create(merchantId, {
      amount,
      currency,
      description: `simulated link of ${amount} ${currency}`,
    });
    const chosen = await create(merchantId, {
      amountRange: RANGES[currency],
      currency,
      description: `simulated donations in ${currency}`,
      collect: ['name', 'email'],
      afterCompletion: { type: 'message', message: 'Thank you' },
    });
    byMerchant.set(key, [fixed, chosen]);
    return [fixed, chosen];
  };

  return {
    async open({ merchantId, currency, amount, d, payers }) {
      const [fixed, chosen] = await linksOf(merchantId, currency, amount);
      const link = d.chance(0.5) ? fixed : chosen;
      const openings = await Promise.all(Array.from({ length: payers }, () => openPaymentLink(deps, link.id, 'en')));
      link.openings += payers;
      const opened = openings.map((o): Opened => {
        if (!o.open) {
          count(`link openings closed ${o.reason}`);
          return { closed: o.reason };
        }
        count('link sessions opened');
        if (link.deactivatedAt)
          seen.push(`payment link ${link.id} opened session ${o.session.id} after its merchant deactivated it`);
        return { sessionId: o.session.id };
      });
      let deactivated = false;
      if (!link.deactivatedAt && link.deactivateAfter !== undefined && link.openings >= link.deactivateAfter) {
        const changed = await changePaymentLink(deps, owner(merchantId), link.id, { active: false });
        link.deactivatedAt = new Date(changed.updatedAt);
        count('links deactivated');
        deactivated = true;
      }
      return {
        label: link.label,
        terms: { amountRange: link.amountRange, collect: link.collect },
        opened,
        deactivated,
      };
    },

    problems: async (atRest) => [...seen.splice(0), ...(await linkProblems(db, links, atRest))],

    async counts() {
      if (links.length === 0) return {};
      const rows = (await db('payment_links')
        .whereIn(
          'id',
          links.map((l) => l.id),
        )
        .select(db.raw('coalesce(sum(completed_count), 0)::int as n'))) as { n: number }[];
      const exhausted = links.filter((l) => l.limit !== null).length;
      return { ...tally, 'link sessions completed': rows[0].n, 'links with a limit': exhausted };
    },
  };
}

/** A payment of a link's session, as the checks read it. */
interface LinkPayment {
  id: string;
  checkout_session: string | null;
  status: string;
  amount: string;
  customer_email: string | null;
  metadata: Record<string, string> | null;
}

/** A payment status that holds the payer's money (a refunded one collected it first). */
const COLLECTED = ['completed', 'refunded'];

/**
 * The promises of docs/payment-links.md about the run's `links`, from the database. After every step: the link's
 * `completed_count` equals its complete sessions and its completed reservations; no more complete sessions than its
 * limit, beyond the late successes (a payment failed first, the one way past it, docs/payment-links.md#limits); every
 * payment naming the link (`metadata.payment_link`) is an attempt of one of the link's sessions, and every attempt of
 * them names the link and its session, reserved a place on the link for its session (before it was created), no later
 * than the link's deactivation, is of the link's amount (or the payer's chosen one within its range, the attempt's),
 * and carries what the link collects; a complete session's amount is what its payment collected. At rest besides: no
 * place still held.
 */
async function linkProblems(db: Db, links: readonly FollowedLink[], atRest: boolean): Promise<string[]> {
  if (links.length === 0) return [];
  const ids = links.map((l) => l.id);
  const stored = new Map(
    (
      (await db('payment_links').whereIn('id', ids).select('id', 'completed_count', 'active')) as {
        id: string;
        completed_count: number;
        active: boolean;
      }[]
    ).map((r) => [r.id, r]),
  );
  const sessions = (await db('checkout_sessions')
    .whereIn('payment_link', ids)
    .select('id', 'payment_link', 'status', 'payment', 'amount', 'attempts')) as {
    id: string;
    payment_link: string;
    status: string;
    payment: string | null;
    amount: string | null;
    attempts: CheckoutAttempt[];
  }[];
  const sessionIds = sessions.map((s) => s.id);
  const payments = (await db('payments')
    .where((q) =>
      q.whereIn('checkout_session', sessionIds).orWhereRaw(`metadata->>'payment_link' = any(?)`, [[...ids]]),
    )
    .select('id', 'checkout_session', 'status', 'amount', 'customer_email', 'metadata')) as LinkPayment[];
  const reservations = (await db('payment_link_reservations')
    .whereIn('payment_link', ids)
    .select('payment', 'payment_link', 'checkout_session', 'status', 'created_at')) as {
    payment: string;
    payment_link: string;
    checkout_session: string;
    status: string;
    created_at: Date;
  }[];
  const failedFirst = new Set(
    (
      (await db('events')
        .whereIn(
          'object_id',
          payments.map((p) => p.id),
        )
        .where('type', 'payment.failed')
        .select('object_id')) as { object_id: string }[]
    ).map((e) => e.object_id),
  );
  const problems: string[] = [];
  for (const link of links) {
    const say = (what: string) => problems.push(`payment link ${link.id} ${what}`);
    const row = stored.get(link.id);
    if (!row) {
      say('is not stored');
      continue;
    }
    if (link.deactivatedAt && row.active) say('is active again, though its merchant deactivated it');
    const own = sessions.filter((s) => s.payment_link === link.id);
    const complete = own.filter((s) => s.status === 'complete');
    if (row.completed_count !== complete.length)
      say(`counts ${row.completed_count} completed, but ${complete.length} of its sessions are complete`);
    const its = reservations.filter((r) => r.payment_link === link.id);
    const completedPlaces = its.filter((r) => r.status === 'completed').length;
    if (completedPlaces !== row.completed_count)
      say(`counts ${row.completed_count} completed, but holds ${completedPlaces} completed reservations`);
    const late = complete.filter((s) => s.payment !== null && failedFirst.has(s.payment)).length;
    if (link.limit !== null && complete.length > link.limit + late)
      say(
        `collected ${complete.length} payments, over its limit of ${link.limit} (${late} of them late successes): ` +
          complete.map((s) => `${s.payment} of ${s.id}`).join(', '),
      );
    for (const p of payments.filter((x) => x.metadata?.payment_link === link.id))
      if (!own.some((s) => s.id === p.checkout_session))
        say(`has payment ${p.id} of session ${p.checkout_session}, which the link never opened`);
    for (const session of own) {
      for (const p of payments.filter((x) => x.checkout_session === session.id)) {
        const about = `payment ${p.id} of session ${session.id}`;
        if (p.metadata?.payment_link !== link.id || p.metadata?.checkout_session !== session.id)
          say(`has ${about} naming link ${p.metadata?.payment_link} and session ${p.metadata?.checkout_session}`);
        const place = its.find((r) => r.payment === p.id);
        if (!place || place.checkout_session !== session.id) say(`has ${about}, which reserved no place on it`);
        else if (link.deactivatedAt && place.created_at > link.deactivatedAt)
          say(`reserved a place for ${about} at ${place.created_at.toISOString()}, after its deactivation`);
        else if (atRest && place.status === 'held') say(`still holds the place of ${about} at rest`);
        const amount = Number(p.amount);
        const chosen = session.attempts.find((a) => a.payment === p.id)?.amount;
        if (link.amount !== null && amount !== link.amount) say(`has ${about} of ${amount}, not ${link.amount}`);
        if (link.amountRange && (amount !== chosen || amount < link.amountRange.min || amount > link.amountRange.max))
          say(`has ${about} of ${amount}, chosen ${chosen}, range ${link.amountRange.min}–${link.amountRange.max}`);
        if (link.collect.includes('email') && !p.customer_email) say(`has ${about} without the payer's e-mail`);
        if (link.collect.includes('name') && !p.metadata?.customer_name) say(`has ${about} without the payer's name`);
        if (session.status === 'complete' && p.id === session.payment) {
          if (!COLLECTED.includes(p.status)) say(`has ${about} completing it, ${p.status}`);
          if (Number(session.amount) !== amount) say(`has session ${session.id} of ${session.amount}, paid ${amount}`);
        }
      }
    }
  }
  return problems;
}
