/**
 * Team members (docs/security.md#team-members): a merchant's people and their roles, invitations by e-mail
 * (a link good for 72 hours, once), accepting them by registering or signing in, changing roles and removing
 * members. The last owner can neither leave nor be demoted; only owners touch owners; every team change needs
 * a two-factor code from the last 5 minutes (docs/security.md#step-up) and is written to the audit log.
 */
import { randomBytes } from 'node:crypto';
import type { Config } from '../config';
import { findDeveloperById, insertPerson } from '../db/developers';
import { isUniqueViolation, type Db } from '../db/knex';
import {
  acceptInvitation as acceptInvitationRow,
  changeMember,
  findInvitationByTokenHash,
  findMember,
  insertInvitation,
  listMembers,
  listMembershipsOf,
  listOpenInvitations,
  type MemberRow,
} from '../db/team';
import { mayAssignRole, type Role } from '../domain/access';
import { orNotFound, DomainError } from '../domain/errors';
import { ID_PREFIXES, randomBase62 } from '../domain/ids';
import type { Principal } from '../domain/principal';
import { newId, sha256Hex } from '../lib/ids';
import { createMailer } from '../lib/mailer';
import { hashPassword } from '../lib/passwords';
import { signSessionToken, type SessionToken } from '../lib/session-tokens';
import { invitationView, memberView, type InvitationView, type MemberView } from '../views/security';
import { actorOf, auditMerchantWide } from './audit';
import { requireRecentTwoFactor } from './two-factor-service';

/** What the team needs: the database, mail settings and session settings. */
export interface TeamDeps {
  db: Db;
  config: Pick<
    Config,
    'JWT_SECRET' | 'SESSION_TTL_SECONDS' | 'SMTP_URL' | 'MAIL_OUTBOX_DIR' | 'MAIL_FROM' | 'PUBLIC_BASE_URL'
  >;
}

/** How long an invitation link works (docs/security.md#invitations): 72 hours, in milliseconds. */
export const INVITATION_TTL_MS = 72 * 3600_000;

/** The merchant's members, oldest first. */
export async function listTeam(deps: Pick<TeamDeps, 'db'>, owner: Principal): Promise<MemberView[]> {
  return (await listMembers(deps.db, owner.merchantId)).map(memberView);
}

/** The merchant's invitations not yet accepted (expired ones included, with their `expires_at`). */
export async function listInvitations(deps: Pick<TeamDeps, 'db'>, owner: Principal): Promise<InvitationView[]> {
  return (await listOpenInvitations(deps.db, owner.merchantId)).map(invitationView);
}

/** The role of the caller, who must be a signed-in person. @throws DomainError `forbidden` (403) */
function callerRole(owner: Principal): Role {
  if (!owner.member) throw new DomainError('forbidden', 'team changes are made by a signed-in person');
  return owner.member.role;
}

async function auditTeam(
  deps: Pick<TeamDeps, 'db'>,
  owner: Principal,
  action: 'team.member_invited' | 'team.role_changed' | 'team.member_removed',
  target: string,
  ip: string,
): Promise<void> {
  await auditMerchantWide(
    deps.db,
    { merchantId: owner.merchantId, actor: actorOf(owner), action, target, ip },
    owner.origin,
  );
}

/**
 * Invites `email` with `role` (docs/security.md#invitations): stores the invitation (its token only hashed) and
 * e-mails the link `<PUBLIC_BASE_URL>/dashboard/invitations/<token>`, good for 72 hours, once.
 * @throws DomainError `forbidden` (403) when an admin invites an owner or without a recent two-factor code
 */
export async function invite(
  deps: TeamDeps,
  owner: Principal,
  input: { email: string; role: Role },
  ip: string,
): Promise<InvitationView> {
  if (!mayAssignRole(callerRole(owner), input.role))
    throw new DomainError('forbidden', 'only an owner can invite an owner');
  requireRecentTwoFactor(owner);
  const token = randomBase62(40, randomBytes);
  const row = await insertInvitation(deps.db, {
    id: newId(ID_PREFIXES.invitation),
    merchantId: owner.merchantId,
    email: input.email,
    role: input.role,
    tokenHash: sha256Hex(token),
    invitedBy: owner.member?.personId ?? owner.developerId,
    expiresAt: new Date(Date.now() + INVITATION_TTL_MS),
  });
  const inviter = await findDeveloperById(deps.db, owner.member?.personId ?? owner.developerId);
  const account = await findDeveloperById(deps.db, owner.developerId);
  const link = `${deps.config.PUBLIC_BASE_URL ?? ''}/dashboard/invitations/${token}`;
  await createMailer(deps.config).send({
    to: [input.email],
    subject: `${inviter?.name ?? 'A colleague'} invites you to ${account?.business_name ?? account?.name ?? 'their team'} on PayCollect`,
    text: [
      `${inviter?.name ?? 'A colleague'} (${inviter?.email ?? ''}) invites you to join ${account?.business_name ?? account?.name ?? 'their team'} on PayCollect as ${input.role}.`,
      '',
      `Accept within 72 hours: ${link}`,
      '',
      'The link works once. If you did not expect this, ignore this e-mail.',
    ].join('\n'),
    messageId: `<team.${row.id}.invitation@paycollect>`,
    date: new Date().toISOString(),
  });
  await auditTeam(deps, owner, 'team.member_invited', row.id, ip);
  return invitationView(row);
}

/**
 * Gives member `memberId` of the caller's merchant the role `role`, or removes them for null, with the checks every
 * team change makes (docs/security.md#roles, docs/security.md#step-up), and writes `team.role_changed` or
 * `team.member_removed` to the audit log.
 * @returns the member as they were before the change
 * @throws DomainError `not_found` (404) for an unknown member; `forbidden` (403) when an admin touches an owner or
 *   makes one, or without a two-factor code from the last 5 minutes; `conflict` (409) for the last owner's demotion
 *   or leaving
 */
async function setMemberRole(
  deps: Pick<TeamDeps, 'db'>,
  owner: Principal,
  memberId: string,
  role: Role | null,
  ip: string,
): Promise<MemberRow> {
  const member = orNotFound(await findMember(deps.db, owner.merchantId, memberId), 'member', memberId);
  const mine = callerRole(owner);
  if (role === null && !mayAssignRole(mine, member.role))
    throw new DomainError('forbidden', 'only an owner can remove an owner');
  if (role !== null && (!mayAssignRole(mine, role) || !mayAssignRole(mine, member.role)))
    throw new DomainError('forbidden', 'only an owner can change an owner or make one');
  requireRecentTwoFactor(owner);
  const outcome = await changeMember(deps.db, owner.merchantId, memberId, role);
  if (outcome === 'missing') throw new DomainError('not_found', `no member with id ${memberId}`);
  if (outcome === 'last_owner')
    throw new DomainError(
      'conflict',
      role === null
        ? 'the last owner cannot leave; make another member owner first'
        : 'the last owner cannot be demoted; make another member owner first',
    );
  await auditTeam(deps, owner, role === null ? 'team.member_removed' : 'team.role_changed', memberId, ip);
  return member;
}

/**
 * Changes a member's role (docs/security.md#roles).
 * @throws DomainError `not_found` (404) for an unknown member; `forbidden` (403) when an admin touches an
 *   owner or makes one, without a recent two-factor code; `conflict` (409) for the last owner's demotion
 */
export async function changeRole(
  deps: Pick<TeamDeps, 'db'>,
  owner: Principal,
  memberId: string,
  role: Role,
  ip: string,
): Promise<MemberView> {
  const member = await setMemberRole(deps, owner, memberId, role, ip);
  return memberView({ ...member, role });
}

/**
 * Removes a member (docs/security.md#team-members); their sessions in this merchant stop at their next request.
 * A member may remove themselves (leave) whatever their role.
 * @throws DomainError as {@link changeRole}; `conflict` (409) for the last owner
 */
export async function removeMember(
  deps: Pick<TeamDeps, 'db'>,
  owner: Principal,
  memberId: string,
  ip: string,
): Promise<MemberView> {
  return memberView(await setMemberRole(deps, owner, memberId, null, ip));
}

/** The answer of an accepted invitation: the membership and a session in the merchant. */
export interface Acceptance extends SessionToken {
  member: MemberView;
}

/**
 * Accepts an invitation (docs/security.md#invitations), once, within 72 hours: a signed-in person (`personId`)
 * whose e-mail is the invited one joins as they are; otherwise a new person registers with `name` and
 * `password` under the invited e-mail. Answers a session in the merchant.
 * @throws DomainError `not_found` (404) for an unknown link; `conflict` (409) for a link already used or expired,
 *   or an e-mail already registered (sign in first); `forbidden` (403) for a signed-in person of another e-mail;
 *   `validation_error` (400) when a new person sends no name or password
 */
export async function acceptInvitation(
  deps: TeamDeps,
  token: string,
  who: { personId: string } | { name?: string; password?: string },
  ip: string,
  origin: Principal['origin'],
): Promise<Acceptance> {
  const invitation = await findInvitationByTokenHash(deps.db, sha256Hex(token));
  if (!invitation) throw new DomainError('not_found', 'no such invitation');
  if (invitation.accepted_at) throw new DomainError('conflict', 'this invitation was already used');
  if (invitation.expires_at.getTime() <= Date.now())
    throw new DomainError('conflict', 'this invitation has expired; ask for a new one');
  const memberId = newId(ID_PREFIXES.member);
  let personId: string;
  let generation = 0;
  let accepted: string | undefined;
  if ('personId' in who) {
    const person = await findDeveloperById(deps.db, who.personId);
    if (!person || person.email !== invitation.email)
      throw new DomainError('forbidden', 'this invitation is for another e-mail address');
    personId = person.id;
    generation = person.session_generation;
    accepted = await deps.db.transaction((trx) => acceptInvitationRow(trx, invitation, personId, memberId));
  } else {
    if (!who.name || !who.password)
      throw new DomainError('validation_error', 'name and password (at least 10 characters) are required', [
        { field: who.name ? 'password' : 'name', message: 'required to register' },
      ]);
    const passwordHash = await hashPassword(who.password);
    personId = newId(ID_PREFIXES.developer);
    const name = who.name;
    try {
      // The person and the membership are written together: a used or expired link rolls both back.
      accepted = await deps.db.transaction(async (trx) => {
        await insertPerson(trx, { id: personId, email: invitation.email, passwordHash, name });
        const taken = await acceptInvitationRow(trx, invitation, personId, memberId);
        if (!taken) throw new DomainError('conflict', 'this invitation was already used or has expired');
        return taken;
      });
    } catch (error) {
      if (isUniqueViolation(error))
        throw new DomainError('conflict', 'this e-mail is already registered; sign in, then accept the invitation');
      throw error;
    }
  }
  if (!accepted) throw new DomainError('conflict', 'this invitation was already used or has expired');
  await auditMerchantWide(
    deps.db,
    {
      merchantId: invitation.merchant_id,
      actor: { type: 'developer', id: personId },
      action: 'team.member_joined',
      target: accepted,
      ip,
    },
    origin,
  );
  const member = await findMember(deps.db, invitation.merchant_id, accepted);
  const session = await signSessionToken(
    { personId, merchantId: invitation.merchant_id, generation },
    deps.config.JWT_SECRET,
    deps.config.SESSION_TTL_SECONDS,
  );
  return { ...session, member: memberView(member as MemberRow) };
}

/** The merchants a person belongs to, oldest membership first (the dashboard's merchant switch). */
export async function listMyMerchants(
  deps: Pick<TeamDeps, 'db'>,
  owner: Principal,
): Promise<{ merchant_id: string; business_name: string | null; role: Role }[]> {
  if (!owner.member) return [];
  return listMembershipsOf(deps.db, owner.member.personId);
}
