/**
 * The idempotency key of a payout's confirmation dialog (docs/dashboard.md#confirmations), shared by the browser's
 * tabs through localStorage so that the same payout confirmed twice is one payout (docs/payments.md#idempotency).
 */

/** How long a confirmed payout's idempotency key is kept for another tab's dialog of the same payout, in ms. */
const INTENT_TTL_MS = 15 * 60 * 1000;

/**
 * The idempotency key of a payout dialog being opened: the key another open dialog (this tab or another of the same
 * browser) already holds for the same environment, amount, currency and destination, else a new one from `fresh`,
 * remembered in localStorage (shared by the browser's tabs) so that a second tab confirming the same payout sends the
 * same key and the API answers the first payout again (docs/payments.md#idempotency).
 */
export function payoutIntentKey(intent: string, fresh: () => string, now = Date.now()): string {
  const slot = `paycollect:payout-intent:${intent}`;
  try {
    const stored = JSON.parse(localStorage.getItem(slot) ?? 'null') as { key: string; at: number } | null;
    if (stored && now - stored.at < INTENT_TTL_MS) return stored.key;
    const key = fresh();
    localStorage.setItem(slot, JSON.stringify({ key, at: now }));
    return key;
  } catch {
    return fresh();
  }
}

/** Forgets the key of `intent` once its payout is answered, so the next payout of the same kind is a new one. */
export function forgetPayoutIntent(intent: string): void {
  try {
    localStorage.removeItem(`paycollect:payout-intent:${intent}`);
  } catch {
    // Storage refused: nothing was kept.
  }
}
