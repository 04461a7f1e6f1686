/**
 * The route docs of one feature (src/api/openapi.ts builds the document from every feature's): Secret keys: list and
 * roll.
 */
import { z } from '../../lib/zod';
import { environmentOnlyQuery, rollKeyBody } from '../schemas/developer';
import * as out from '../../views';
import * as example from '../schemas/examples';
import { answer, listAnswer, type RouteDoc } from './shared';

/** Secret keys: list and roll. */
export const secretKeyRouteDocs: RouteDoc[] = [
  {
    method: 'get',
    path: '/v1/developer/keys',
    operationId: 'listApiKeys',
    tag: 'Keys',
    summary: 'List secret keys',
    description: 'Your secret keys, masked; never their secrets. Session token only.',
    security: ['session'],
    query: environmentOnlyQuery,
    success: listAnswer('Keys', 'keys', out.keySummary, 'Your secret and restricted keys, masked', example.keySummary),
  },
  {
    method: 'post',
    path: '/v1/developer/keys/{environment}/roll',
    operationId: 'rollApiKeys',
    tag: 'Keys',
    summary: 'Roll the secret keys',
    description:
      'Creates a new key for the environment, shown only in this answer, and lets the previous keys work for `expires_in_hours` more (default 24, 0 = stop now). Session token only.',
    security: ['session'],
    body: rollKeyBody,
    bodyExample: { expires_in_hours: 24 },
    success: answer(
      'The new key, shown once',
      z.object({
        key: z
          .object({
            id: z.string().openapi({ description: 'The new key id, `key_…`' }),
            environment: z.string().openapi({ description: '`sandbox` or `live`, as the path named' }),
            secret: z.string().openapi({ description: 'The new secret key `sk_…`, shown only here: store it' }),
            last4: z.string().openapi({ description: 'Its last 4 characters, as key lists show it' }),
            created_at: z.string().openapi({ description: 'When it was made (ISO 8601, UTC)' }),
          })
          .openapi({ description: 'The new secret key, with its secret this once' }),
        previous_keys_expire_at: z.string().openapi({
          description: 'When the keys it replaces stop working, `expires_in_hours` from now (ISO 8601, UTC)',
        }),
      }),
      'Key rolled',
      {
        key: {
          id: example.ids.apiKey,
          environment: 'sandbox',
          secret: example.exampleSecretKey,
          last4: example.exampleSecretKey.slice(-4),
          created_at: '2026-11-24T12:00:00.000Z',
        },
        previous_keys_expire_at: '2026-11-25T12:00:00.000Z',
      },
      201,
    ),
    codes: [
      {
        code: 'conflict',
        when: 'The environment has no active key to roll (live before approval).',
        message: 'there is no active live key to roll',
      },
    ],
  },
];
