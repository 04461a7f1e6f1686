/**
 * The route docs of one feature (src/api/openapi.ts builds the document from every feature's): Restricted keys:
 * create, roll, revoke.
 */
import { createRestrictedKeyBody, rollRestrictedKeyBody } from '../schemas/security';
import * as out from '../../views';
import * as example from '../schemas/examples';
import { answer, type RouteDoc } from './shared';

/** Restricted keys: create, roll, revoke. */
export const restrictedKeyRouteDocs: RouteDoc[] = [
  {
    operationId: 'createRestrictedKey',
    method: 'post',
    path: '/v1/developer/keys',
    tag: 'Keys',
    summary: 'Create a restricted key',
    description:
      'A key `rk_sandbox_…` or `rk_live_…` that holds only `scopes` (`payments:read`, `payments:write`, `refunds:write`, `payouts:read`, `payouts:write`, `balance:read`, `webhooks:write`); an endpoint outside them answers 403 `forbidden` naming the scope it needs. The secret is shown only in this answer. Same rate limits and environments as secret keys.',
    security: ['session'],
    body: createRestrictedKeyBody,
    bodyExample: { name: 'Checkout server', environment: 'sandbox', scopes: ['payments:write', 'payments:read'] },
    success: answer(
      'The key, shown once',
      out.issuedRestrictedKey,
      'Restricted key created',
      { key: example.restrictedKey },
      201,
    ),
    codes: [
      {
        code: 'forbidden',
        when: 'Your role cannot create keys, or a live key without a code confirmed in the last 5 minutes.',
      },
      { code: 'conflict', when: 'A live key before live access is approved.' },
    ],
  },
  {
    operationId: 'rollRestrictedKey',
    method: 'post',
    path: '/v1/developer/keys/restricted/{id}/roll',
    tag: 'Keys',
    summary: 'Roll a restricted key',
    description:
      'A new key with the same name, scopes and environment, shown only in this answer; the old one works `expires_in_hours` more (default 24, 0 = stop now).',
    security: ['session'],
    body: rollRestrictedKeyBody,
    bodyExample: { expires_in_hours: 0 },
    success: answer(
      'The new key, shown once',
      out.issuedRestrictedKey,
      'Key rolled',
      {
        key: example.restrictedKey,
        previous_key_expires_at: '2026-11-25T12:00:00.000Z',
      },
      201,
    ),
  },
  {
    operationId: 'revokeRestrictedKey',
    method: 'delete',
    path: '/v1/developer/keys/{id}',
    tag: 'Keys',
    summary: 'Revoke a restricted key',
    description: 'The key stops at once. Secret keys are replaced by rolling them instead.',
    security: ['session'],
    success: answer('The revoked key', out.keySummary, 'Key revoked', {
      ...example.restrictedKeySummary,
      status: 'revoked',
    }),
    codes: [{ code: 'conflict', when: 'The key is a secret key.' }],
  },
];
