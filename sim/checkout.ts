/**
 * Checkout sessions in the simulator's workload (docs/simulation.md#checkout-sessions): a merchant's create through
 * the service function the API's route calls (`createCheckoutSession`), or a payment link's opening (sim/links.ts),
 * then the payer's attempts as the hosted page makes them (`startCheckoutAttempt`: mobile money, or a card in a dollar
 * session, docs/simulation.md#card-sessions), a retry on the same session after each failed one up to a drawn number
 * of tries, and sometimes the merchant's expire (`expireCheckoutSession`); and the invariants of docs/checkout.md about
 * them, of docs/payment-links.md about the links, and of what the page would show (sim/page.ts), checked after every
 * step and at rest.
 *
 * The driver's stream draws each session's create (sim/run.ts); everything after it (its tries, each attempt's
 * operator, the payer's pauses, the merchant's expire) comes from the session's own stream, `checkout:c12`, so the
 * driver draws the same numbers whatever the sessions' payments did.
 */
import type { Db } from '../src/db/knex';
import { findCheckoutSessionById } from '../src/db/checkout-sessions';
import { DUPLICATE_REFUND_REASON, MAX_CHECKOUT_ATTEMPTS, type CheckoutAttempt } from '../src/domain/checkout-table';
import type { ProviderCode } from '../src/domain/catalogue';
import { DomainError } from '../src/domain/errors';
import { ID_PREFIXES } from '../src/domain/ids';
import { deriveId } from '../src/lib/ids';
import type { AmountRange } from '../src/domain/payment-link';
import {
  createCheckoutSession,
  expireCheckoutSession,
  startCheckoutAttempt,
  type CheckoutAttemptInput,
  type CheckoutServiceDeps,
} from '../src/services/checkout-service';
import { createLinkBook, type LinkTerms } from './links';
import type { OperatorBooks } from './operator';
import { pageProblems } from './page';
import { draws, type Draws } from './random';

/** A session the run created, as the driver follows it. */
interface Followed {
  id: string;
  /** `c12`: the driver's label; its attempts are `c12a0`, `c12a1` … (a rush's second payer's: `c12b`, `c12ba0` …) */
  label: string;
  /** The number the driver gave it (shared with the run's payments' `p` labels). */
  n: number;
  /** Its attempts' numbers are `phoneOf(…, base + k)`: unique to the session and the attempt. */
  base: number;
  merchantId: string;
  /** USD: a card session (cards take it, mobile money in Rwanda and Kenya does not). */
  currency: 'RWF' | 'KES' | 'USD';
  /** The session's description, which a card attempt's payment carries to the operator (its label's key). */
  description: string;
  /** The terms of the link that opened it (sim/links.ts); undefined: the merchant's own session. */
  link?: LinkTerms;
  /** The session's own stream. */
  d: Draws;
  /** How many attempts the payer makes at most. */
  tries: number;
  /** Each attempt's drawn plan (drawn once, in order, whatever the attempt's fate). */
  plans: Plan[];
  /** Attempts the payer made (refused ones included). */
  made: number;
  /** The payer's next attempt not before (simulated epoch milliseconds). */
  nextAtMs: number;
  /** When the merchant expires it (simulated epoch milliseconds); undefined: never. */
  expireAtMs?: number;
  /** No more attempts or expires to make: the session left `open`. */
  done: boolean;
}

/** An attempt's drawn plan: the operator (a card's is `card_gateway`), the payer's pause after it, a chosen amount. */
interface Plan {
  provider: ProviderCode;
  pauseMs: number;
  /** The amount the payer chooses on a link's session with a range (minor units). */
  amount?: number;
}

/** What the driver needs of the run. */
export interface CheckoutContext {
  seed: number;
  deps: CheckoutServiceDeps;
  operator: OperatorBooks;
  /** The run's labels by id (violations name ids with them). */
  labels: Map<string, string>;
  /** The order of the run's payments by id (refund and cancel targets are picked in it). */
  order: Map<string, number>;
  /** The driver's reading of the test server's clock (simulated epoch milliseconds). */
  now(): number;
  /** The test server's clock now (simulated epoch milliseconds). */
  serverNow(): Promise<number>;
}

/** The session's checks: after every step, and at rest (docs/simulation.md#invariants). */
export interface CheckoutDriver {
  /**
   * Creates session number `n` for `merchantId` from the driver's draws of a payment (its amount, currency, the first
   * attempt's operator and its life, `expiryMinutes`), and makes the payer's first attempt.
   * @returns the step's action
   */
  open(input: {
    n: number;
    merchantId: string;
    amount: number;
    currency: string;
    provider: ProviderCode;
    expiryMinutes: number;
  }): Promise<string>;
  /** The payers' retries and the merchants' expires that are due. @returns what was done, for the log */
  pump(): Promise<string[]>;
  /** The sessions still open. */
  openSessions(): Promise<number>;
  /** Broken promises of docs/checkout.md: those that hold after every step, and with `atRest` those of the end. */
  problems(atRest: boolean): Promise<string[]>;
  /** Counts for the seed's line. */
  counts(): Promise<Record<string, number>>;
}

/**
 * What the payer's number looks like at `provider`: unique to `slot`, the session's number times ten plus the attempt's
 * (`mobile_money_c`: a Liberian number, which no operator of a generic payment serves).
 */
function phoneOf(provider: ProviderCode, slot: number): string {
  const digits = String(slot % 100_000).padStart(5, '0');
  if (provider === 'mobile_money_b') return `+2507280${digits}`;
  if (provider === 'mpesa') return `+2547120${digits}`;
  if (provider === 'mobile_money_c') return `+2318800${digits}`;
  return `+2507880${digits}`;
}

/** A payment status that holds the payer's money (a refunded one collected it first). */
const COLLECTED = ['completed', 'refunded'];

/** The share of the checkout steps (of RWF and KES) that open a payment link instead of a merchant's own session. */
const LINK_SHARE = 0.35;

/** How many attempts a payer makes at most. */
const drawTries = (d: Draws) =>
  d.weighted([
    [1, 30],
    [2, 30],
    [3, 25],
    [5, 15],
  ] as const);

/** An amount a payer chooses in `range`, minor units: whole hundreds (whole shillings, which M-Pesa takes). */
const chosenAmount = (d: Draws, range: AmountRange) =>
  d.int(Math.ceil(range.min / 100), Math.floor(range.max / 100)) * 100;

/** The checkout sessions of one run (see the module's comment). */
export function createCheckoutDriver(ctx: CheckoutContext): CheckoutDriver {
  const { operator, labels } = ctx;
  // Sessions are stamped with the test server's clock, the one their workflows expire them by.
  const deps: CheckoutServiceDeps = { ...ctx.deps, clock: ctx.now };
  const db: Db = deps.db;
  const sessions: Followed[] = [];
  const links = createLinkBook(ctx.seed, deps, labels);
  /** Broken promises the driver saw in an answer itself. */
  const seen: string[] = [];
  const tally: Record<string, number> = {};
  const count = (what: string) => (tally[what] = (tally[what] ?? 0) + 1);
  /** The merchant's secret key, as the API's routes hand it to the service. */
  const owner = (s: Followed) => ({
    merchantId: s.merchantId,
    environment: 'sandbox' as const,
    developerId: s.merchantId,
    via: 'key' as const,
  });

  /** Follows a new session from now on. */
  const follow = (init: Omit<Followed, 'plans' | 'made' | 'nextAtMs' | 'done'>): Followed => {
    const s: Followed = { ...init, plans: [], made: 0, nextAtMs: 0, done: false };
    if (s.id) labels.set(s.id, s.label);
    sessions.push(s);
    count('sessions');
    return s;
  };

  /** Names the payment of attempt `k` of `s` (and its duplicate refund) once its id is known. */
  const name = (s: Followed, k: number, paymentId: string) => {
    if (labels.has(paymentId)) return;
    const label = `${s.label}a${k}`;
    labels.set(paymentId, label);
    ctx.order.set(paymentId, s.n + (k + 1) / 100);
    operator.label(paymentId, label);
    // The session's refund of a duplicate (src/activities/checkout-activities.ts) derives its id from the payment.
    const refundId = deriveId(ID_PREFIXES.refund, `checkout-duplicate:${paymentId}`);
    labels.set(refundId, `${label}rd`);
    operator.label(refundId, `${label}rd`);
  };

  /** The plan of the payer's attempt `k` at `s`, drawn once from the session's stream, in order. */
  const planOf = (s: Followed, k: number): Plan => {
    const known = s.plans[k];
    if (known) return known;
    // A card session's payer tries another card, or three times in ten a mobile-money number (Liberia's, whose wallets
    // hold dollars): the session takes no mobile money in USD (docs/simulation.md#card-sessions).
    const provider: ProviderCode =
      s.currency === 'USD'
        ? s.d.chance(0.3)
          ? 'mobile_money_c'
          : 'card_gateway'
        : s.currency === 'KES'
          ? 'mpesa'
          : s.d.chance(0.75)
            ? 'momo'
            : 'mobile_money_b';
    const plan: Plan = { provider, pauseMs: s.d.int(5, 600) * 1000 };
    if (s.link?.amountRange) plan.amount = chosenAmount(s.d, s.link.amountRange);
    s.plans[k] = plan;
    return plan;
  };

  /** The payer's next attempt at `s`, as the hosted page sends it. @returns what happened */
  const attempt = async (s: Followed): Promise<string> => {
    const k = s.made;
    // Drawn once per attempt, in order: a retry the session refused (one in flight) is the same attempt again.
    const plan = planOf(s, k);
    const card = plan.provider === 'card_gateway';
    const phone = phoneOf(plan.provider, s.base + k);
    // A card's payment names no number: the operator takes its label from the session's description instead.
    operator.labelCustomer(card ? s.description : phone, `${s.label}a${k}`);
    const input: CheckoutAttemptInput = {
      ...(card ? { paymentMethod: 'card' as const } : { paymentMethod: 'mobile_money' as const, phoneNumber: phone }),
      ...(plan.amount === undefined ? {} : { amount: plan.amount }),
      ...(s.link?.collect.includes('name') ? { name: `Payer ${s.label}a${k}` } : {}),
      ...(s.link?.collect.includes('email') ? { email: `${s.label}a${k}@payers.example` } : {}),
    };
    try {
      const { payment, operator: asked } = await startCheckoutAttempt(deps, s.id, input);
      s.made++;
      name(s, k, payment.id);
      count('attempts');
      if (k > 0) count('retries');
      if (card) {
        count('card attempts');
        // What the page's card form confirms with (docs/hosted-page.md#card): the gateway's client secret.
        if (asked !== null || payment.nextAction?.type !== 'card_confirm')
          seen.push(
            `checkout session ${s.id} answered card attempt ${payment.id} with operator ${asked} and next action ` +
              `${JSON.stringify(payment.nextAction)}, not the card's client secret`,
          );
      }
      s.nextAtMs = ctx.now() + plan.pauseMs;
      return `${s.label}a${k} ${plan.provider}→${payment.status}`;
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      if (error.code === 'checkout_session_attempt_in_progress') return `${s.label}a${k}→${error.code} (later)`;
      if (
        error.code === 'checkout_session_not_open' ||
        error.code === 'checkout_session_attempts_exhausted' ||
        error.code === 'payment_link_inactive' ||
        error.code === 'payment_link_exhausted'
      )
        s.done = true;
      else if (
        error.code === 'provider_unavailable' ||
        error.code === 'service_unavailable' ||
        (error.code === 'validation_error' && plan.provider === 'mobile_money_c')
      ) {
        // The page said so; the payer tries again later (an unanswered attempt may have begun: its payment shows).
        s.made++;
        s.nextAtMs = ctx.now() + plan.pauseMs;
      } else throw error;
      count(`attempts refused ${error.code}`);
      return `${s.label}a${k}→${error.code}`;
    }
  };

  /** The payments of `s` by attempt, named by their number (the payer's number is the attempt's). */
  const nameStored = async (s: Followed) => {
    const rows = (await db('payments').where('checkout_session', s.id).select('id', 'customer_phone')) as {
      id: string;
      customer_phone: string | null;
    }[];
    for (const row of rows)
      for (let k = 0; k < s.plans.length; k++)
        if (row.customer_phone === phoneOf(s.plans[k].provider, s.base + k)) name(s, k, row.id);
  };

  const pumpOne = async (s: Followed): Promise<string | undefined> => {
    await nameStored(s);
    const session = await findCheckoutSessionById(db, s.id);
    if (!session) return undefined;
    if (session.status !== 'open') {
      s.done = true;
      return undefined;
    }
    if (s.expireAtMs !== undefined && s.expireAtMs <= ctx.now()) {
      try {
        await expireCheckoutSession(deps, owner(s), s.id);
        count('expired by the merchant');
        s.done = true;
        return `${s.label} expired by the merchant`;
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        if (error.code === 'checkout_session_not_open') s.done = true;
        else if (error.code !== 'checkout_session_attempt_in_progress') throw error;
        count(`expires refused ${error.code}`);
        return `${s.label} expire→${error.code}`;
      }
    }
    const inFlight = session.attempts.some((a: CheckoutAttempt) => a.status === 'pending');
    if (s.made < s.tries && !inFlight && s.nextAtMs <= ctx.now()) return attempt(s);
    return undefined;
  };

  return {
    async open({ n, merchantId, amount, currency, provider, expiryMinutes }) {
      const label = `c${n}`;
      const d = draws(ctx.seed, `checkout:${label}`);
      const kes = currency === 'KES';
      // A card's draw makes a card session, in dollars (cards take no RWF or KES).
      const card = provider === 'card_gateway';
      const tries = drawTries(d);
      const merchantExpires = d.chance(0.2);
      const expireAfterMs = d.int(2, 90) * 60_000;
      // The first attempt through the operator the driver drew.
      const first: Plan = {
        provider: kes ? 'mpesa' : card ? 'card_gateway' : provider === 'mobile_money_b' ? 'mobile_money_b' : 'momo',
        pauseMs: d.int(5, 600) * 1000,
      };
      const serverMs = await ctx.serverNow();
      // Drawn after every draw of a merchant's own session, so that those keep theirs.
      if (!card && d.chance(LINK_SHARE)) {
        const payers = d.chance(0.3) ? 2 : 1;
        const opening = await links.open({ merchantId, currency: kes ? 'KES' : 'RWF', amount, d, payers });
        const followed = opening.opened.flatMap((o, i): Followed[] => {
          if (!('sessionId' in o)) return [];
          const own = i === 0 ? d : draws(ctx.seed, `checkout:${label}b`);
          const s = follow({
            id: o.sessionId,
            label: i === 0 ? label : `${label}b`,
            n,
            base: n * 10 + 5 * i,
            merchantId,
            currency: kes ? 'KES' : 'RWF',
            description: '',
            link: opening.terms,
            d: own,
            tries: i === 0 ? tries : drawTries(own),
          });
          s.plans.push(i === 0 ? first : { ...first, pauseMs: own.int(5, 600) * 1000 });
          if (opening.terms.amountRange) s.plans[0].amount = chosenAmount(own, opening.terms.amountRange);
          return [s];
        });
        count(payers === 2 ? 'link rushes' : 'link steps of one payer');
        // The payers at one link submit at once: their places are reserved under the link's lock one after another.
        const attempts = await Promise.all(followed.map((s) => attempt(s)));
        const closed = opening.opened.flatMap((o) => ('closed' in o ? [o.closed] : []));
        return (
          `link ${opening.label} opened by ${payers} as ${followed.map((s) => s.label).join(', ') || 'none'}` +
          `${closed.length ? ` (closed: ${closed.join(', ')})` : ''}: ${attempts.join(', ')}` +
          (opening.deactivated ? `; ${opening.label} deactivated` : '')
        );
      }
      const s = follow({
        id: '',
        label,
        n,
        base: n * 10,
        merchantId,
        currency: card ? 'USD' : kes ? 'KES' : 'RWF',
        description: `simulated ${label}`,
        d,
        tries,
      });
      s.plans.push(first);
      // 36 minutes to 2 hours after the server's now: the driver stamps the session with the server's clock.
      const lifeS = (30 + 3 * expiryMinutes) * 60;
      const request = {
        amount,
        currency: s.currency,
        description: s.description,
        successUrl: 'http://localhost/thanks',
        expiresIn: lifeS,
      };
      // A create not confirmed in time (503) is sent again under the same idempotency key, as a merchant's back end
      // does: it reattaches to the same session.
      const key = `${ctx.seed}:${label}:${process.pid}:${Date.now()}`;
      const create = async (tries: number): Promise<Awaited<ReturnType<typeof createCheckoutSession>>> => {
        try {
          return await createCheckoutSession(deps, owner(s), request, key);
        } catch (error) {
          if (tries <= 1 || !(error instanceof DomainError) || error.code !== 'service_unavailable') throw error;
          count('creates sent again');
          return create(tries - 1);
        }
      };
      const session = await create(3);
      s.id = session.id;
      labels.set(session.id, label);
      if (merchantExpires) s.expireAtMs = serverMs + expireAfterMs;
      if (card) count('card sessions');
      const attempted = await attempt(s);
      return `checkout ${label} of ${amount} ${s.currency} (${s.tries} tries, ${lifeS / 60} min): ${attempted}`;
    },

    async pump() {
      const done: string[] = [];
      for (const s of sessions) {
        if (s.done) continue;
        const action = await pumpOne(s);
        if (action) done.push(action);
      }
      return done;
    },

    async openSessions() {
      if (sessions.length === 0) return 0;
      const [row] = (await db('checkout_sessions')
        .whereIn(
          'id',
          sessions.map((s) => s.id),
        )
        .where('status', 'open')
        .count('* as n')) as { n: string }[];
      return Number(row.n);
    },

    async problems(atRest) {
      const watched = sessions.filter((s) => s.id !== '' && (atRest || !s.done)).map((s) => s.id);
      return [
        ...seen.splice(0),
        ...(await checkoutProblems(db, sessions, atRest)),
        ...(await links.problems(atRest)),
        ...(await pageProblems(db, watched)),
      ];
    },

    async counts() {
      const byStatus = (await db('checkout_sessions')
        .whereIn(
          'id',
          sessions.map((s) => s.id),
        )
        .groupBy('status')
        .select('status', db.raw('count(*)::int as n'))) as { status: string; n: number }[];
      // The late successes of superseded attempts: a collected payment besides the one that completed its session.
      const [duplicates] = (await db('payments as p')
        .join('checkout_sessions as s', 's.id', 'p.checkout_session')
        .whereIn(
          's.id',
          sessions.map((x) => x.id),
        )
        .whereIn('p.status', COLLECTED)
        .whereRaw('p.id is distinct from s.payment')
        .count('* as n')) as { n: string }[];
      return {
        ...tally,
        ...(await links.counts()),
        ...Object.fromEntries(byStatus.map((r) => [`sessions ${r.status}`, r.n])),
        ...(Number(duplicates.n) > 0 ? { duplicates: Number(duplicates.n) } : {}),
      };
    },
  };
}

/**
 * The promises of docs/checkout.md#states about the run's `sessions`, from the database. After every step: each
 * payment of a session is one of its attempts (admitted before it was created), at most 10 of them, at most one open
 * at a time; a complete session names the payment that completed it, one of its own, which collected; an open or
 * expired one names none; each final status has its event (written with it). At rest besides: no session open, each
 * attempt's outcome as the session knows it agrees with its payment, an expired session holds no collected payment,
 * and a complete one exactly one: every other attempt that collected (the late success of a superseded attempt) is a
 * duplicate, refunded in full with reason `duplicate`, or where that refund was not possible the reconciliation
 * exception `duplicate_checkout_payment`.
 */
async function checkoutProblems(db: Db, sessions: readonly Followed[], atRest: boolean): Promise<string[]> {
  const ids = sessions.map((s) => s.id).filter((id) => id !== '');
  if (ids.length === 0) return [];
  const rows = (await db('checkout_sessions').whereIn('id', ids).select('id', 'status', 'payment', 'attempts')) as {
    id: string;
    status: string;
    payment: string | null;
    attempts: CheckoutAttempt[];
  }[];
  const payments = (await db('payments')
    .whereIn('checkout_session', ids)
    .select('id', 'checkout_session', 'status', 'amount')) as {
    id: string;
    checkout_session: string;
    status: string;
    amount: string;
  }[];
  const refunds = (await db('refunds')
    .whereIn(
      'payment_id',
      payments.map((p) => p.id),
    )
    .select('id', 'payment_id', 'status', 'amount', 'reason')) as {
    id: string;
    payment_id: string;
    status: string;
    amount: string;
    reason: string | null;
  }[];
  const exceptions = new Set(
    (
      (await db('reconciliation_exceptions')
        .whereIn(
          'key',
          payments.map((p) => `duplicate_checkout_payment:${p.id}`),
        )
        .select('key')) as { key: string }[]
    ).map((e) => e.key),
  );
  const events = new Set(
    (
      (await db('events').whereIn('object_id', ids).select('object_id', 'type')) as {
        object_id: string;
        type: string;
      }[]
    ).map((e) => `${e.object_id}:${e.type}`),
  );
  const problems: string[] = [];
  for (const session of rows) {
    const say = (what: string) => problems.push(`checkout session ${session.id} (${session.status}) ${what}`);
    const own = payments.filter((p) => p.checkout_session === session.id);
    const admitted = new Set(session.attempts.map((a) => a.payment));
    for (const p of own) if (!admitted.has(p.id)) say(`has payment ${p.id}, which it never admitted as an attempt`);
    if (session.attempts.length > MAX_CHECKOUT_ATTEMPTS) say(`has ${session.attempts.length} attempts`);
    const open = own.filter((p) => p.status === 'pending' || p.status === 'processing');
    if (open.length > 1) say(`has ${open.length} attempts open at once: ${open.map((p) => p.id).join(', ')}`);
    const named = own.find((p) => p.id === session.payment);
    if (session.status === 'complete') {
      if (!named) say(`names payment ${session.payment}, not one of its attempts`);
      else if (!COLLECTED.includes(named.status)) say(`names payment ${named.id}, which is ${named.status}`);
      if (!events.has(`${session.id}:checkout.session.completed`)) say('has no checkout.session.completed event');
    } else if (session.payment !== null) say(`names payment ${session.payment}`);
    if (session.status === 'expired' && !events.has(`${session.id}:checkout.session.expired`))
      say('has no checkout.session.expired event');
    if (!atRest) continue;
    if (session.status === 'open') say('is still open at rest');
    for (const a of session.attempts) {
      const p = own.find((x) => x.id === a.payment);
      const collected = p !== undefined && COLLECTED.includes(p.status);
      const agrees = a.status === 'succeeded' ? collected : a.status === 'failed' ? !collected : false;
      if (!agrees) say(`knows attempt ${a.payment} as ${a.status}, whose payment is ${p?.status ?? 'not stored'}`);
    }
    const kept = own.filter((p) => COLLECTED.includes(p.status));
    if (session.status === 'expired' && kept.length > 0)
      say(`holds collected payments ${kept.map((p) => p.id).join(', ')}`);
    for (const p of kept) {
      if (p.id === session.payment) continue;
      const its = refunds.filter((r) => r.payment_id === p.id);
      const refunded = its.some(
        (r) =>
          r.reason === DUPLICATE_REFUND_REASON && r.status === 'completed' && Number(r.amount) === Number(p.amount),
      );
      const known = session.attempts.find((a) => a.payment === p.id)?.status ?? 'unknown';
      if (!refunded && !exceptions.has(`duplicate_checkout_payment:${p.id}`))
        say(
          `was paid twice: ${p.id} ${p.status} (${known} to the session; refunds: ${
            its.map((r) => `${r.id} ${r.amount} ${r.status} ${r.reason ?? 'no reason'}`).join(', ') || 'none'
          }) besides ${session.payment}, neither refunded in full as a duplicate nor a duplicate_checkout_payment ` +
            `exception`,
        );
    }
  }
  return problems;
}
