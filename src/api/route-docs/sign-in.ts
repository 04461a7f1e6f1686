/**
 * The route docs of one feature (src/api/openapi.ts builds the document from every feature's): Registration and sign-
 * in.
 */
import { z } from '../../lib/zod';
import { registerBody } from '../schemas/auth';
import { loginWithMerchantBody } from '../schemas/security';
import * as out from '../../views';
import * as example from '../schemas/examples';
import { answer, type RouteDoc } from './shared';

/** Registration and sign-in. */
export const signInRouteDocs: RouteDoc[] = [
  {
    method: 'post',
    path: '/v1/auth/register',
    operationId: 'registerDeveloper',
    tag: 'Auth',
    summary: 'Register a developer account',
    description:
      "Creates your account and merchant (`mer_…`) and answers a session token and your first sandbox secret key. The key's secret is shown only in this answer: store it. Passwords have 10 to 200 characters.",
    body: registerBody,
    bodyExample: {
      email: 'amina@example.com',
      password: 'correct horse battery',
      name: 'Amina Uwase',
      business_name: 'Kigali Books',
    },
    success: answer(
      'Developer, session token and the first sandbox key (its secret shown once)',
      z.object({
        developer: out.developer,
        ...out.session.shape,
        api_key: z
          .object({
            id: z.string().openapi({ description: 'Key id, `key_…`' }),
            environment: z
              .literal('sandbox')
              .openapi({ description: 'Always `sandbox`: live keys come with live access' }),
            secret: z.string().openapi({ description: 'The secret key `sk_sandbox_…`, shown only here: store it' }),
            last4: z.string().openapi({ description: 'Its last 4 characters, as key lists show it' }),
          })
          .openapi({ description: 'Your first sandbox secret key' }),
      }),
      'Developer registered',
      {
        developer: example.developer,
        token: example.session.token,
        expires_at: example.session.expires_at,
        api_key: {
          id: example.ids.apiKey,
          environment: 'sandbox',
          secret: example.exampleSecretKey,
          last4: example.exampleSecretKey.slice(-4),
        },
      },
      201,
    ),
    codes: [
      {
        code: 'conflict',
        when: 'An account with this e-mail address exists already.',
        message: 'a developer with this email is already registered',
      },
    ],
  },
  {
    method: 'post',
    path: '/v1/auth/login',
    operationId: 'createSession',
    tag: 'Auth',
    summary: 'Log in',
    description:
      'Answers a session token for the dashboard endpoints, valid for one hour, in `merchant_id` (default the first merchant you joined). With two-factor sign-in on, answers `{two_factor_required: true, challenge}` instead. A wrong e-mail address and a wrong password get the same answer.',
    body: loginWithMerchantBody,
    bodyExample: { email: 'amina@example.com', password: 'correct horse battery' },
    success: answer(
      'Session token; with two-factor sign-in on, a challenge to send with a code to `POST /v1/auth/login/2fa`',
      z.union([out.session, out.loginChallenge]),
      'Logged in',
      example.session,
    ),
    errors: [401],
    codes: [
      {
        code: 'unauthorized',
        when: 'The e-mail address or the password is wrong.',
        message: 'email or password is incorrect',
      },
      { code: 'forbidden', when: 'You are not a member of the `merchant_id` you asked for.' },
    ],
  },
];
