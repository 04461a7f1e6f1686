/**
 * What the hosted page would show of the run's checkout sessions (docs/simulation.md#the-hosted-page), read in-process
 * as its routes read it, without the HTTP server: the page's view of a session (`readPageSession` and
 * `toCheckoutSessionPublicView`, what `GET /v1/checkout/sessions/{id}/public` answers) and the first message of its
 * live status stream (`readCheckoutLiveState`, what `GET /v1/checkout/sessions/{id}/events` sends first and on every
 * change), compared with the session and its attempts' payments.
 */
import { readCheckoutLiveState } from '../src/db/checkout-sessions';
import type { Db } from '../src/db/knex';
import { findPaymentById } from '../src/db/payments';
import { MAX_CHECKOUT_ATTEMPTS } from '../src/domain/checkout-table';
import { readPageSession } from '../src/services/checkout-page-service';
import { toCheckoutSessionPublicView } from '../src/views/checkout';

/** A payment status that is not final yet. */
const OPEN = ['pending', 'processing'];

/**
 * The page's disagreements with sessions `ids`: the stream's status is the session's and its attempt the latest
 * attempt's payment (status and failure code, `pending` while not stored yet); the view's status is the stream's, its
 * amount a customer-chosen one's latest attempt's while open and a complete session's what its payment collected, and
 * it shows an attempt in progress while the latest attempt's payment is open. A session or payment that changed while
 * it was read (the workflows run beside the driver) is left for the next step.
 */
export async function pageProblems(db: Db, ids: readonly string[]): Promise<string[]> {
  const problems: string[] = [];
  for (const id of ids) {
    const say = (what: string) => problems.push(`the page of checkout session ${id} ${what}`);
    const before = await readCheckoutLiveState(db, id);
    const read = await readPageSession({ db }, id);
    if (!before || !read) {
      say('finds no session');
      continue;
    }
    const { session, merchantName } = read;
    const latest = session.attempts.at(-1);
    const payment = latest ? await findPaymentById(db, latest.payment) : undefined;
    const paid = session.payment ? await findPaymentById(db, session.payment) : undefined;
    const after = await readCheckoutLiveState(db, id);
    const again = await readPageSession({ db }, id);
    if (JSON.stringify(before) !== JSON.stringify(after) || again?.session.updatedAt !== session.updatedAt) continue;
    const live = before;
    if (live.status !== session.status) say(`streams status ${live.status}, the session is ${session.status}`);
    if (!latest) {
      if (live.attempt !== null) say(`streams attempt ${JSON.stringify(live.attempt)} of a session without attempts`);
    } else {
      const expected = { status: payment?.status ?? 'pending', failure_code: payment?.failureCode ?? null };
      if (JSON.stringify(live.attempt) !== JSON.stringify(expected))
        say(
          `streams attempt ${JSON.stringify(live.attempt)}, its payment ${latest.payment} is ${JSON.stringify(expected)}`,
        );
    }
    const view = toCheckoutSessionPublicView(session, merchantName, MAX_CHECKOUT_ATTEMPTS);
    if (view.status !== live.status) say(`shows status ${view.status}, its stream ${live.status}`);
    // A customer-chosen amount is the latest attempt's until the session completes (docs/payment-links.md#amounts).
    if (session.amountRange && latest && session.status === 'open' && view.amount !== latest.amount)
      say(`shows amount ${view.amount}, its latest attempt's is ${latest.amount}`);
    if (!view.attempt_in_progress && payment && OPEN.includes(payment.status))
      say(`shows no attempt in progress while its payment ${payment.id} is ${payment.status}`);
    if (session.status === 'complete' && paid && paid.amount !== view.amount)
      say(`shows amount ${view.amount}, its payment ${paid.id} collected ${paid.amount}`);
  }
  return problems;
}
