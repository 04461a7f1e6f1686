/**
 * Bodies of the account security endpoints (docs/security.md): two-factor codes, sign-in challenges, switching
 * merchant, invitations and members, restricted keys.
 */
import { z } from '../../lib/zod';
import { emailAddress, trimmedText } from './fields';
import { ROLES, SCOPES } from '../../domain/access';
import { loginBody, newPassword } from './auth';
import { rollKeyBody } from './developer';

const code = z
  .string()
  .regex(/^\d{6}$/, 'code must be 6 digits')
  .openapi({ description: 'The 6-digit code your authenticator app shows now' });
const recoveryCode = z
  .string()
  .trim()
  .min(10)
  .max(20)
  .openapi({ description: 'One of your recovery codes (`xxxxx-xxxxx`), in place of a code; each works once' });
const merchantId = z
  .string()
  .regex(/^mer_[0-9A-Za-z]{1,64}$/, 'merchant_id must be a merchant id (mer_…)')
  .openapi({ description: 'The merchant to act in, `mer_…`, for a person in several teams (default: your first)' });
const role = z
  .enum(ROLES)
  .openapi({ description: '`owner`, `admin`, `developer` or `viewer` (what each may do: Roles)' });

/** Sign-in (docs/security.md#team-members): e-mail, password and, for a person in several merchants, which. */
export const loginWithMerchantBody = loginBody.extend({ merchant_id: merchantId.optional() });

/** A second factor: a 6-digit code or a recovery code, exactly one. */
const secondFactorFields = { code: code.optional(), recovery_code: recoveryCode.optional() };

function exactlyOneFactor(body: { code?: string; recovery_code?: string }): boolean {
  return (body.code === undefined) !== (body.recovery_code === undefined);
}
const ONE_FACTOR = { message: 'send exactly one of code and recovery_code', path: ['code'] };

/** `POST /v1/auth/login/2fa` (docs/security.md#two-factor): the challenge and a code or recovery code. */
export const loginSecondFactorBody = z
  .strictObject({
    challenge: z
      .string()
      .min(1)
      .max(2000)
      .openapi({ description: 'The `challenge` `POST /v1/auth/login` answered, within 5 minutes' }),
    ...secondFactorFields,
  })
  .refine(exactlyOneFactor, ONE_FACTOR);

/** `POST /v1/developer/2fa/verify` (docs/security.md#step-up): a code or recovery code. */
export const verifyCodeBody = z.strictObject(secondFactorFields).refine(exactlyOneFactor, ONE_FACTOR);

/** `POST /v1/developer/2fa/confirm` (docs/security.md#two-factor): the first code from the app. */
export const confirmCodeBody = z.strictObject({ code });

/** `POST /v1/auth/switch` (docs/security.md#team-members). */
export const switchBody = z.strictObject({
  merchant_id: merchantId.openapi({ description: 'The merchant to switch to, `mer_…`: one you are a member of' }),
});

/** `POST /v1/developer/team/invitations` (docs/security.md#invitations). */
export const invitationBody = z.strictObject({
  email: emailAddress.openapi({ description: 'The e-mail to send the link to; only this person can accept it' }),
  role: role.openapi({ description: 'The role the person gets on accepting (an admin cannot invite owners)' }),
});

/**
 * `POST /v1/auth/invitations/{token}/accept` (docs/security.md#invitations): a new person's name and password;
 * empty for a person signed in with a session token.
 */
export const acceptInvitationBody = z.strictObject({
  name: trimmedText(200)
    .optional()
    .openapi({ description: 'Not signed in: your name, for the account made under the invited e-mail' }),
  password: newPassword
    .optional()
    .openapi({ description: 'Not signed in: the password of your new account, 10 to 200 characters' }),
});

/** `PATCH /v1/developer/team/members/{id}` (docs/security.md#roles). */
export const changeMemberBody = z.strictObject({
  role: role.openapi({ description: 'The new role (only owners give or take `owner`)' }),
});

/** `POST /v1/developer/keys` (docs/security.md#restricted-keys). */
export const createRestrictedKeyBody = z.strictObject({
  name: trimmedText(100).openapi({
    description: 'A name to know the key by (who or what uses it), 1 to 100 characters',
  }),
  environment: z
    .enum(['sandbox', 'live'])
    .openapi({ description: '`sandbox`, or `live` once live access is granted (needs a recent two-factor code)' }),
  scopes: z
    .array(z.enum(SCOPES))
    .min(1)
    .max(SCOPES.length)
    .refine((scopes) => new Set(scopes).size === scopes.length, 'scopes must not repeat')
    .openapi({ description: 'What the key may do, each scope once; anything else answers 403 `forbidden`' }),
});

/**
 * `POST /v1/developer/keys/restricted/{id}/roll` (docs/security.md#restricted-keys): how long the replaced key still
 * works, as for secret keys.
 */
export const rollRestrictedKeyBody = rollKeyBody;
