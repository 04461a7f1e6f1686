/**
 * The provider request log in PostgreSQL (`provider_requests`, docs/providers.md#m-pesa): the
 * {@link ProviderRequestLog} the API and the workers share, so a claim made by one process holds in every other.
 */
import type { ProviderRequestLog } from '../domain/provider-requests';
import type { Db } from './knex';

/** The request log on `db`: one row per provider and key, claimed by an insert that a repeated key leaves alone. */
export function createProviderRequestLog(db: Db): ProviderRequestLog {
  return {
    async claim(provider, key) {
      const inserted = await db('provider_requests')
        .insert({ provider, request_key: key })
        .onConflict(['provider', 'request_key'])
        .ignore()
        .returning('request_key');
      return inserted.length === 1;
    },
    async recordReference(provider, key, reference) {
      await db('provider_requests').where({ provider, request_key: key }).whereNull('reference').update({ reference });
      const row = await db('provider_requests').where({ provider, request_key: key }).first('reference');
      return row ? (row.reference as string) : undefined;
    },
    async find(provider, key) {
      const row = await db('provider_requests').where({ provider, request_key: key }).first('reference');
      return row ? { reference: (row.reference as string | null) ?? null } : undefined;
    },
  };
}
