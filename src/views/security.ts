/**
 * The API's forms of account security (docs/security.md): sign-in challenges, two-factor enrolment and status,
 * team members and invitations, and restricted keys as issued.
 */
import { ROLES } from '../domain/access';
import { z } from '../lib/zod';
import { keySummary, session } from './developer';
import { timestamp } from './timestamp';
import { nullableText } from './fields';

/** What `POST /v1/auth/login` answers when two-factor is on (docs/security.md#two-factor). */
export const loginChallenge = z.object({
  two_factor_required: z
    .literal(true)
    .openapi({ description: 'Two-factor sign-in is on: no session yet, send a code with the `challenge`' }),
  /** Send it back with a code to `POST /v1/auth/login/2fa` within 5 minutes. */
  challenge: z.string().openapi({
    description: 'Send it with the current code to `POST /v1/auth/login/2fa` within 5 minutes; it is no session',
  }),
});

/** Enrolment: the base32 secret to type in, and the `otpauth://` URI the QR code holds. */
export const twoFactorEnrolment = z.object({
  secret: z.string().openapi({ description: 'The secret in base32, to type into an authenticator app by hand' }),
  otpauth_uri: z
    .string()
    .openapi({ description: 'The same secret as an `otpauth://totp/…` URI, for a QR code the app scans' }),
});

/** Confirmation: the ten recovery codes, shown once, and a new session. */
export const twoFactorConfirmation = session.extend({
  recovery_codes: z.array(z.string()).openapi({
    description: 'Ten recovery codes, each good once in place of a code if the phone is lost; shown only here',
  }),
});

/** Two-factor status of the signed-in person. */
export const twoFactorStatus = z.object({
  enabled: z.boolean().openapi({ description: 'Whether sign-in asks you for a code' }),
  recovery_codes_left: z.number().int().openapi({ description: 'Recovery codes not used yet (0 to 10)' }),
});

/** The role of a member, as every answer describes it. */
const role = z
  .enum(ROLES)
  .openapi({ description: '`owner`, `admin`, `developer` or `viewer` (what each may do: Roles)' });

/** A team member (docs/security.md#team-members). */
export const member = z.object({
  id: z.string().openapi({ description: 'Membership id, `mem_…`: the id to change or remove the member by' }),
  developer_id: z.string().openapi({ description: "The person's developer id, `dev_…` (activity log actors name it)" }),
  email: z.string().openapi({ description: "The person's e-mail" }),
  name: z.string().openapi({ description: "The person's name" }),
  role,
  two_factor_enabled: z.boolean().openapi({ description: 'Whether the person has two-factor sign-in on' }),
  created_at: timestamp.openapi({ description: 'When the person joined the team (ISO 8601, UTC)' }),
});

/** A member as answered. */
export type MemberView = z.output<typeof member>;

/** What the member view reads of a stored member. */
export type MemberSource = Omit<MemberView, 'created_at'> & { created_at: Date };

/** The API form of a member. */
export function memberView(row: MemberSource): MemberView {
  return {
    id: row.id,
    developer_id: row.developer_id,
    email: row.email,
    name: row.name,
    role: row.role,
    two_factor_enabled: Boolean(row.two_factor_enabled),
    created_at: row.created_at.toISOString(),
  };
}

/** One of the caller's merchants (for switching). */
export const membership = z.object({
  merchant_id: z.string().openapi({ description: 'The merchant id, `mer_…`, to send to `POST /v1/auth/switch`' }),
  business_name: nullableText("The merchant's business name; null when not given"),
  role: z.enum(ROLES).openapi({ description: 'Your role in that merchant' }),
});

/** An invitation (docs/security.md#invitations), never its token. */
export const invitation = z.object({
  id: z.string().openapi({ description: 'Invitation id, `inv_…`' }),
  email: z.string().openapi({ description: 'The e-mail invited: only this person can accept' }),
  role: z.enum(ROLES).openapi({ description: 'The role the person gets on accepting' }),
  expires_at: timestamp.openapi({ description: 'When the link stops working, 72 hours after sending (ISO 8601, UTC)' }),
  created_at: timestamp.openapi({ description: 'When it was sent (ISO 8601, UTC)' }),
});

/** An invitation as answered. */
export type InvitationView = z.output<typeof invitation>;

/** The API form of an invitation. */
export function invitationView(
  row: Omit<InvitationView, 'expires_at' | 'created_at'> & { expires_at: Date; created_at: Date },
): InvitationView {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    expires_at: row.expires_at.toISOString(),
    created_at: row.created_at.toISOString(),
  };
}

/** An accepted invitation: the membership and a session in the merchant. */
export const acceptance = session.extend({
  member: member.openapi({ description: 'Your membership in the merchant that invited you' }),
});

/** A restricted key as created or rolled: the listed form plus its secret, shown once. */
export const issuedRestrictedKey = z.object({
  key: keySummary
    .extend({
      secret: z.string().openapi({ description: 'The key `rk_sandbox_…` or `rk_live_…`, shown only here: store it' }),
    })
    .openapi({ description: 'The key, with its secret this once' }),
  previous_key_expires_at: timestamp
    .optional()
    .openapi({ description: 'After a roll: when the key it replaces stops working (ISO 8601, UTC)' }),
});
