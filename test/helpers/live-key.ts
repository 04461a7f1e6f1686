/**
 * A live secret key for a test merchant, inserted directly (the live access review grants them in the product,
 * docs/live-access.md#approval).
 */
import { newId } from '../../src/lib/ids';
import { issueSecretKey } from '../../src/lib/secret-keys';
import { getStack } from './stack';

/** Inserts a live key for `merchantId` and returns its secret. */
export async function insertLiveKey(merchantId: string): Promise<string> {
  const { db } = await getStack();
  const key = issueSecretKey('live');
  await db('api_keys').insert({
    id: newId('key_'),
    merchant_id: merchantId,
    environment: 'live',
    key_hash: key.hash,
    last4: key.last4,
  });
  return key.secret;
}
