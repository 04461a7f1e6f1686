/**
 * The API's forms of account security (docs/security.md): sign-in challenges, two-factor enrolment and status,
 * team members and invitations, and restricted keys as issued.
 */
import { ROLES } from '../domain/access';
import { z } from '../lib/zod';
import { keySummary, session } from './developer';
import { timestamp } from './timestamp';

/** What `POST /v1/auth/login` answers when two-factor is on (docs/security.md#two-factor). */
export const loginChallenge = z.object({
  two_factor_required: z.literal(true),
  /** Send it back with a code to `POST /v1/auth/login/2fa` within 5 minutes. */
  challenge: z.string(),
});

/** Enrolment: the base32 secret to type in, and the `otpauth://` URI the QR code holds. */
export const twoFactorEnrolment = z.object({ secret: z.string(), otpauth_uri: z.string() });

/** Confirmation: the ten recovery codes, shown once, and a new session. */
export const twoFactorConfirmation = session.extend({ recovery_codes: z.array(z.string()) });

/** Two-factor status of the signed-in person. */
export const twoFactorStatus = z.object({ enabled: z.boolean(), recovery_codes_left: z.number().int() });

/** A team member (docs/security.md#team-members). */
export const member = z.object({
  id: z.string(),
  developer_id: z.string(),
  email: z.string(),
  name: z.string(),
  role: z.enum(ROLES),
  two_factor_enabled: z.boolean(),
  created_at: timestamp,
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
  merchant_id: z.string(),
  business_name: z.string().nullable(),
  role: z.enum(ROLES),
});

/** An invitation (docs/security.md#invitations), never its token. */
export const invitation = z.object({
  id: z.string(),
  email: z.string(),
  role: z.enum(ROLES),
  expires_at: timestamp,
  created_at: timestamp,
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
export const acceptance = session.extend({ member });

/** A restricted key as created or rolled: the listed form plus its secret, shown once. */
export const issuedRestrictedKey = z.object({
  key: keySummary.extend({ secret: z.string() }),
  previous_key_expires_at: timestamp.optional(),
});
