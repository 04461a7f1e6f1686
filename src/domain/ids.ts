/**
 * Resource ids: a prefix plus random base62 characters (docs/api.md#secret-keys, docs/payments.md#payment-record).
 * Pure: the caller supplies the
 * random bytes (node:crypto in the API, never Math.random outside a workflow).
 */

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Id prefixes of every resource kind. */
export const ID_PREFIXES = {
  payment: 'pay_',
  refund: 'ref_',
  event: 'evt_',
  developer: 'dev_',
  merchant: 'mer_',
  apiKey: 'key_',
  webhook: 'whk_',
  delivery: 'dlv_',
  document: 'doc_',
  liveAccessRequest: 'req_',
  auditEntry: 'act_',
  member: 'mem_',
  invitation: 'inv_',
  journal: 'jrn_',
  balanceTransaction: 'txn_',
  adjustment: 'adj_',
  reconciliationRun: 'rcr_',
  reconciliationException: 'rex_',
  payout: 'po_',
  payoutDestination: 'dst_',
  checkoutSession: 'cs_',
  paymentLink: 'plink_',
} as const;

/** Length of the random part of ids (docs/payments.md#payment-record: 24). */
export const ID_RANDOM_LENGTH = 24;

/**
 * Encodes `length` base62 characters from uniformly random bytes by rejection sampling (bytes ≥ 248
 * are skipped so every character is equally likely).
 * @param randomBytes returns `n` random bytes; called again when a batch runs out
 */
export function randomBase62(length: number, randomBytes: (n: number) => Uint8Array): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= 248) continue;
      out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** Encodes the first bytes of a digest as base62 (for ids derived deterministically, docs/payments.md#events). */
export function base62FromDigest(digest: Uint8Array, length: number): string {
  let value = 0n;
  for (const byte of digest) value = (value << 8n) | BigInt(byte);
  let out = '';
  for (let i = 0; i < length; i += 1) {
    out = BASE62[Number(value % 62n)] + out;
    value /= 62n;
  }
  return out;
}

/** True when `value` is `prefix` followed by exactly 24 base62 characters. */
export function isWellFormedId(value: string, prefix: string): boolean {
  return value.startsWith(prefix) && /^[0-9A-Za-z]{24}$/.test(value.slice(prefix.length));
}
