/**
 * Credentials (D4): secret keys as `Authorization: Bearer sk_…` (generic family) or `X-API-Key`
 * (merchant-scoped family). Missing or malformed → 401 `unauthorized`; unknown, rolled-out or revoked
 * key → 401 `invalid_api_key`. The key decides merchant and environment.
 */
import type { Middleware } from 'koa';
import { findKeyOwnerByHash, type KeyOwner } from '../../db/developers';
import type { Db } from '../../db/knex';
import { DomainError } from '../../domain/errors';
import { hashSecretKey, SECRET_KEY_PATTERN } from '../../lib/secret-keys';

/** Resolves a presented secret key to its owner. @throws DomainError invalid_api_key */
async function ownerOf(db: Db, secret: string): Promise<KeyOwner> {
  if (!SECRET_KEY_PATTERN.test(secret)) throw new DomainError('invalid_api_key', 'the API key is not valid');
  const owner = await findKeyOwnerByHash(db, hashSecretKey(secret));
  if (!owner) throw new DomainError('invalid_api_key', 'the API key is not valid');
  return owner;
}

/** `Authorization: Bearer <secret key>`; sets `ctx.state.owner`. */
export function bearerSecretKey(db: Db): Middleware {
  return async (ctx, next) => {
    const header = ctx.get('authorization');
    const match = /^Bearer ([^\s]+)$/.exec(header);
    if (!match) throw new DomainError('unauthorized', 'send your secret key as "Authorization: Bearer sk_…"');
    ctx.state.owner = await ownerOf(db, match[1] as string);
    await next();
  };
}
