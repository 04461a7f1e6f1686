/**
 * The API process's cache of secret-key lookups (docs/api.md#credentials): a request with a key this process read
 * less than {@link KEY_CACHE_SECONDS} ago is authenticated and rate-limited without a query. Bounded (least recently
 * used out, {@link KEY_CACHE_ENTRIES}); unknown keys are never kept, so a guessed key always costs its query and never
 * pushes a real one out for long. A key's own expiry (a rolled key's grace period) ends its entry at that moment. In
 * the process that revokes or rolls a key, or changes its merchant's plan or its `refuse_when_provider_down` setting
 * (docs/availability.md#api-create), the merchant's entries go at once; every other process sees the change within
 * {@link KEY_CACHE_SECONDS}.
 */
import { LRUCache } from 'lru-cache';
import type { KeyLookup } from '../db/developers';

/** How long a key lookup is kept, in seconds: the longest a revoked or rolled-out key keeps working elsewhere. */
export const KEY_CACHE_SECONDS = 5;

/** The most lookups one process keeps (a few MB at most). */
export const KEY_CACHE_ENTRIES = 10_000;

interface Entry {
  lookup: KeyLookup;
  merchantId: string;
}

const cache = new LRUCache<string, Entry>({ max: KEY_CACHE_ENTRIES, ttl: KEY_CACHE_SECONDS * 1000 });

/**
 * The lookup of the key whose SHA-256 is `keyHash`: from the cache while it is fresh, else from `load`, kept when the
 * key exists. An active key with an expiry is kept no longer than until that expiry.
 * @param load the database read (one query)
 * @returns undefined for an unknown key
 */
export async function cachedKeyLookup(
  keyHash: string,
  load: (keyHash: string) => Promise<KeyLookup | undefined>,
): Promise<KeyLookup | undefined> {
  const hit = cache.get(keyHash);
  if (hit) return hit.lookup;
  const lookup = await load(keyHash);
  if (!lookup) return undefined;
  const untilExpiryMs = lookup.owner && lookup.expiresAt ? Date.parse(lookup.expiresAt) - Date.now() : Infinity;
  const ttl = Math.min(KEY_CACHE_SECONDS * 1000, untilExpiryMs);
  if (ttl > 0) cache.set(keyHash, { lookup, merchantId: lookup.merchantId }, { ttl });
  return lookup;
}

/** Drops this process's lookups of `merchantId`'s keys: called after a revoke, a roll or a plan change. */
export function forgetKeysOf(merchantId: string): void {
  for (const [hash, entry] of cache.entries()) if (entry.merchantId === merchantId) cache.delete(hash);
}
