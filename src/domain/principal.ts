/**
 * Who is calling the API: the merchant and environment every query is scoped to
 * (docs/api.md#merchants-and-environments, docs/api.md#credentials).
 */
import type { Environment } from './environment';

/** The authenticated caller: a secret key (`keyId` set) or a developer's session token. */
export interface Principal {
  merchantId: string;
  developerId: string;
  environment: Environment;
  via: 'key' | 'session';
  keyId?: string;
}
