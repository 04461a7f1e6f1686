/**
 * Idempotency keys (docs/payments.md#idempotency): who owns a key, and the first answer every
 * replay repeats. A key belongs to one merchant and environment; the HTTP side (the header, the
 * request hash, the replayed response) is src/api/middleware/idempotency.ts.
 */
import {
  claimIdempotencyKey,
  findIdempotencyKey,
  releaseIdempotencyKey,
  saveIdempotentResponse,
  type KeyScope,
} from '../db/idempotency-keys';
import type { Db } from '../db/knex';
import { DomainError } from '../domain/errors';
import type { Principal } from '../domain/principal';

/** How long a key replays its first response (docs/payments.md#idempotency: 24 h), in milliseconds. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;
/**
 * How long a claim without an answer belongs to its request before the same request may take it over
 * (docs/payments.md#idempotency: 30 s), in milliseconds.
 */
export const IDEMPOTENCY_LEASE_MS = 30_000;
/** How long a request waits for a concurrent one holding its key, in milliseconds. */
const WAIT_FOR_OWNER_MS = 30_000;
const POLL_MS = 25;

/**
 * What became of a claim: this request owns the key now (`first` when the key was not on record, so nothing was started
 * from it within its window), or the key's first answer is to be replayed.
 */
export type Claim = { kind: 'claimed'; first: boolean } | { kind: 'replay'; status: number; bodyJson: string | null };

function scopeOf(owner: Principal, key: string): KeyScope {
  return { merchantId: owner.merchantId, environment: owner.environment, key };
}

/**
 * Claims `key` for the request whose hash is `requestHash`: a new key, one past its 24 h window, or
 * one this same request claimed earlier without answering, once its lease (`leaseMs`) ran out.
 * While another request with the same hash holds the key unanswered, waits (up to 30 s, polling
 * every 25 ms) for its answer; a key released meanwhile is claimed again.
 * @returns `claimed` (answer with {@link saveFirstAnswer} or {@link releaseClaim}), or the stored
 *   first answer to replay
 * @throws DomainError `idempotency_key_reused` (409) when the key was used with another request;
 *   `conflict` (409) when the request holding it has not answered within the wait
 */
export async function claimOrReplay(
  db: Db,
  owner: Principal,
  key: string,
  requestHash: string,
  leaseMs: number = IDEMPOTENCY_LEASE_MS,
): Promise<Claim> {
  const scope = scopeOf(owner, key);
  const deadline = Date.now() + WAIT_FOR_OWNER_MS;
  for (;;) {
    const claimed = await claimIdempotencyKey(
      db,
      scope,
      requestHash,
      new Date(Date.now() - IDEMPOTENCY_WINDOW_MS),
      new Date(Date.now() - leaseMs),
    );
    if (claimed) return { kind: 'claimed', first: claimed === 'first' };
    const stored = await findIdempotencyKey(db, scope);
    if (!stored) continue; // released by a refused owner: claim it again
    if (stored.request_hash !== requestHash) {
      throw new DomainError('idempotency_key_reused', 'this Idempotency-Key was used with a different request');
    }
    if (stored.response_status !== null)
      return { kind: 'replay', status: stored.response_status, bodyJson: stored.response_body };
    if (Date.now() > deadline)
      throw new DomainError('conflict', 'a request with this Idempotency-Key is still in progress');
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * Stores the claimed key's first answer (status and JSON text, exactly as sent), which every replay repeats. A single
 * write.
 */
export async function saveFirstAnswer(
  db: Db,
  owner: Principal,
  key: string,
  status: number,
  bodyJson: string,
): Promise<void> {
  await saveIdempotentResponse(db, scopeOf(owner, key), status, bodyJson);
}

/**
 * Gives a claimed key up, for a request refused before any side effect, so that it can be retried at once. A single
 * write.
 */
export async function releaseClaim(db: Db, owner: Principal, key: string): Promise<void> {
  await releaseIdempotencyKey(db, scopeOf(owner, key));
}
