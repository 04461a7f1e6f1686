/**
 * The route docs of one feature (src/api/openapi.ts builds the document from every feature's): Two-factor sign-in,
 * switching merchants, signing out, invitations, the password.
 */
import { z } from '../../lib/zod';
import { environmentOnlyQuery } from '../schemas/developer';
import { changePasswordBody } from '../schemas/auth';
import {
  acceptInvitationBody,
  confirmCodeBody,
  loginSecondFactorBody,
  switchBody,
  verifyCodeBody,
} from '../schemas/security';
import * as out from '../../views';
import * as example from '../schemas/examples';
import type { CodeDoc } from '../schemas/error-docs';
import { answer, type RouteDoc } from './shared';

/** A code as an authenticator app shows it, for the examples. */
const CODE_EXAMPLE = '123456';
/** A code refused for too many wrong ones before it. */
const TOO_MANY_WRONG_CODES: CodeDoc = { code: 'rate_limited', when: 'Too many wrong codes.' };
/** A code asked of an account whose two-factor sign-in is off. */
const TWO_FACTOR_OFF: CodeDoc = { code: 'conflict', when: 'Two-factor sign-in is off.' };

/** Two-factor sign-in, switching merchants, signing out, invitations, the password. */
export const securityRouteDocs: RouteDoc[] = [
  {
    operationId: 'completeTwoFactorLogin',
    method: 'post',
    path: '/v1/auth/login/2fa',
    tag: 'Auth',
    summary: 'Finish a two-factor sign-in',
    description:
      'When `POST /v1/auth/login` answered `two_factor_required`, send its `challenge` (valid 5 minutes) with the current 6-digit code from your authenticator app, or one of your recovery codes. A code works once: the same code is refused until the next one shows. Five wrong codes in 15 minutes lock the account for the rest of the window; an address that sends twenty is locked too.',
    body: loginSecondFactorBody,
    bodyExample: { challenge: 'eyJhbGciOiJIUzI1NiJ9.challenge.signature', code: CODE_EXAMPLE },
    success: answer('Session token', out.session, 'Logged in', example.session),
    codes: [
      {
        code: 'unauthorized',
        when: 'The code is wrong, already used or expired, or the challenge has expired.',
        message: 'the code is wrong, expired or already used; enter the current code from your app',
      },
      { code: 'rate_limited', when: 'Too many wrong codes for this account or address.' },
    ],
  },
  {
    operationId: 'switchMerchant',
    method: 'post',
    path: '/v1/auth/switch',
    tag: 'Auth',
    summary: 'Switch merchant',
    description:
      'For a person in several teams: answers a session token for another merchant they belong to. A two-factor confirmation carries over.',
    security: ['session'],
    body: switchBody,
    bodyExample: { merchant_id: example.ids.merchant },
    success: answer('Session token for that merchant', out.session, 'Switched merchant', example.session),
    codes: [{ code: 'forbidden', when: 'You are not a member of that merchant.' }],
  },
  {
    operationId: 'signOutEverywhere',
    method: 'post',
    path: '/v1/auth/sign-out-everywhere',
    tag: 'Auth',
    summary: 'Sign out everywhere',
    description:
      'Ends every session token of yours, in every merchant, this one included: for a lost laptop or a shared browser.',
    security: ['session'],
    success: answer(
      'Signed out',
      z.object({
        signed_out: z.literal(true).openapi({ description: 'Always `true`: every session of yours has ended' }),
      }),
      'Signed out everywhere',
      { signed_out: true },
    ),
  },
  {
    operationId: 'acceptInvitation',
    method: 'post',
    path: '/v1/auth/invitations/{token}/accept',
    tag: 'Team',
    summary: 'Accept an invitation',
    description:
      'The `token` is the last part of the link in the invitation e-mail, valid 72 hours and once. Signed in (session token), you join as you are, if your e-mail is the invited one; otherwise send `name` and `password` to create your account under the invited e-mail. Answers your membership and a session in that merchant.',
    body: acceptInvitationBody,
    bodyExample: { name: 'Kofi Mensah', password: 'correct horse battery' },
    success: answer(
      'Membership and session',
      out.acceptance,
      'Invitation accepted',
      { ...example.session, member: example.member },
      201,
    ),
    errors: [401],
    codes: [
      { code: 'forbidden', when: 'You are signed in with another e-mail than the invited one.' },
      {
        code: 'conflict',
        when: 'The link was used already or has expired, or the e-mail is already registered (sign in first).',
      },
    ],
  },
  {
    operationId: 'retrieveTwoFactor',
    method: 'get',
    path: '/v1/developer/2fa',
    tag: 'Security',
    summary: 'Two-factor status',
    description: 'Whether two-factor sign-in is on for you, and how many recovery codes you have left.',
    security: ['session'],
    query: environmentOnlyQuery,
    success: answer('Status', out.twoFactorStatus, 'Two-factor status', { enabled: true, recovery_codes_left: 9 }),
  },
  {
    operationId: 'enrollTwoFactor',
    method: 'post',
    path: '/v1/developer/2fa/enroll',
    tag: 'Security',
    summary: 'Start two-factor enrolment',
    description:
      'Answers a new TOTP secret (RFC 6238: SHA-1, 6 digits, 30 seconds) and its `otpauth://` URI for a QR code. Nothing changes until you confirm a first code; enrolling again replaces a secret not yet confirmed.',
    security: ['session'],
    success: answer('Secret and URI', out.twoFactorEnrolment, 'Scan the code, then confirm it', example.enrolment, 201),
    codes: [{ code: 'conflict', when: 'Two-factor sign-in is already on.' }],
  },
  {
    operationId: 'confirmTwoFactor',
    method: 'post',
    path: '/v1/developer/2fa/confirm',
    tag: 'Security',
    summary: 'Confirm two-factor enrolment',
    description:
      'Send the code your app shows: two-factor sign-in is on from now. The answer holds ten recovery codes, each good once, shown only here, and a new session token; your other sessions end.',
    security: ['session'],
    body: confirmCodeBody,
    bodyExample: { code: CODE_EXAMPLE },
    success: answer('Recovery codes and session', out.twoFactorConfirmation, 'Two-factor sign-in is on', {
      ...example.session,
      recovery_codes: example.recoveryCodes,
    }),
    codes: [
      { code: 'validation_error', when: 'The code is wrong or expired.' },
      { code: 'conflict', when: 'No enrolment is waiting, or two-factor sign-in is already on.' },
      TOO_MANY_WRONG_CODES,
    ],
  },
  {
    operationId: 'verifyTwoFactor',
    method: 'post',
    path: '/v1/developer/2fa/verify',
    tag: 'Security',
    summary: 'Confirm a code (step-up)',
    description:
      'Live key rolls, restricted live keys, team changes, turning two-factor off and live payout destinations need a code confirmed in the last 5 minutes. Send one here: the answer is a session token that carries the confirmation.',
    security: ['session'],
    body: verifyCodeBody,
    bodyExample: { code: CODE_EXAMPLE },
    success: answer('Session token, confirmed now', out.session, 'Code confirmed', example.session),
    codes: [
      { code: 'validation_error', when: 'The code is wrong, already used or expired.' },
      TWO_FACTOR_OFF,
      TOO_MANY_WRONG_CODES,
    ],
  },
  {
    operationId: 'disableTwoFactor',
    method: 'delete',
    path: '/v1/developer/2fa',
    tag: 'Security',
    summary: 'Turn two-factor off',
    description:
      'Needs a code confirmed in the last 5 minutes. Forgets the secret and the recovery codes; your other sessions end and a new session token is answered.',
    security: ['session'],
    success: answer('Session token', out.session, 'Two-factor sign-in is off', example.session),
    codes: [{ code: 'forbidden', when: 'No code was confirmed in the last 5 minutes.' }, TWO_FACTOR_OFF],
  },
  {
    operationId: 'changePassword',
    method: 'post',
    path: '/v1/developer/password',
    tag: 'Security',
    summary: 'Change your password',
    description:
      'Send your current password and the new one (10 to 200 characters, as at registration). With two-factor sign-in on, a code confirmed in the last 5 minutes is needed first (`POST /v1/developer/2fa/verify`). Every session of yours ends, in every merchant, this one included: sign in again elsewhere; the answer is a new session token for here. The change is written to the activity log, never the password.',
    security: ['session'],
    body: changePasswordBody,
    bodyExample: { current_password: 'a long password', new_password: 'an even longer password' },
    success: answer(
      'New session token; every earlier one is refused from now on',
      out.session,
      'Password changed',
      example.session,
    ),
    codes: [
      {
        code: 'validation_error',
        when: 'The current password is wrong, or the new one is shorter than 10 characters, longer than 200 or the same as the current one.',
        message: 'current_password is not your current password',
      },
      { code: 'forbidden', when: 'Two-factor sign-in is on and no code was confirmed in the last 5 minutes.' },
    ],
  },
];
