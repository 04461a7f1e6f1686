/**
 * Bodies of the account security endpoints (docs/security.md): two-factor codes, sign-in challenges, switching
 * merchant, invitations and members, restricted keys.
 */
import { z } from '../../lib/zod';
import { ROLES, SCOPES } from '../../domain/access';
import { loginBody, newPassword } from './auth';

const code = z.string().regex(/^\d{6}$/, 'code must be 6 digits');
const recoveryCode = z.string().trim().min(10).max(20);
const merchantId = z.string().regex(/^mer_[0-9A-Za-z]{1,64}$/, 'merchant_id must be a merchant id (mer_…)');

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
  .strictObject({ challenge: z.string().min(1).max(2000), ...secondFactorFields })
  .refine(exactlyOneFactor, ONE_FACTOR);

/** `POST /v1/developer/2fa/verify` (docs/security.md#step-up): a code or recovery code. */
export const verifyCodeBody = z.strictObject(secondFactorFields).refine(exactlyOneFactor, ONE_FACTOR);

/** `POST /v1/developer/2fa/confirm` (docs/security.md#two-factor): the first code from the app. */
export const confirmCodeBody = z.strictObject({ code });

/** `POST /v1/auth/switch` (docs/security.md#team-members). */
export const switchBody = z.strictObject({ merchant_id: merchantId });

/** `POST /v1/developer/team/invitations` (docs/security.md#invitations). */
export const invitationBody = z.strictObject({
  email: z
    .email()
    .max(254)
    .transform((value) => value.trim().toLowerCase()),
  role: z.enum(ROLES),
});

/**
 * `POST /v1/auth/invitations/{token}/accept` (docs/security.md#invitations): a new person's name and password;
 * empty for a person signed in with a session token.
 */
export const acceptInvitationBody = z.strictObject({
  name: z.string().trim().min(1).max(200).optional(),
  password: newPassword.optional(),
});

/** `PATCH /v1/developer/team/members/{id}` (docs/security.md#roles). */
export const changeMemberBody = z.strictObject({ role: z.enum(ROLES) });

/** `POST /v1/developer/keys` (docs/security.md#restricted-keys). */
export const createRestrictedKeyBody = z.strictObject({
  name: z.string().trim().min(1).max(100),
  environment: z.enum(['sandbox', 'live']),
  scopes: z
    .array(z.enum(SCOPES))
    .min(1)
    .max(SCOPES.length)
    .refine((scopes) => new Set(scopes).size === scopes.length, 'scopes must not repeat'),
});

/** `POST /v1/developer/keys/restricted/{id}/roll` (docs/security.md#restricted-keys). */
export const rollRestrictedKeyBody = z.strictObject({
  expires_in_hours: z.number().int().min(0).max(720).default(24),
});
