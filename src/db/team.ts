/**
 * Repository of team members and invitations (docs/security.md#team-members): who belongs to which merchant
 * with which role. A person is a `developers` row; a merchant's own account is the row that registered it.
 */
import type { Knex } from 'knex';
import type { Role } from '../domain/access';
import type { Db } from './knex';
import { NEWEST_FIRST } from './cursor-pages';

/** A member as stored, with the person's e-mail and name. */
export interface MemberRow {
  id: string;
  merchant_id: string;
  developer_id: string;
  role: Role;
  created_at: Date;
  email: string;
  name: string;
  two_factor_enabled: boolean;
}

function membersQuery(db: Db | Knex.Transaction) {
  return db('team_members as m')
    .join('developers as p', 'p.id', 'm.developer_id')
    .select(
      'm.id',
      'm.merchant_id',
      'm.developer_id',
      'm.role',
      'm.created_at',
      'p.email',
      'p.name',
      db.raw('(p.totp_enabled_at is not null) as two_factor_enabled'),
    );
}

/** The merchant's members, oldest first. */
export async function listMembers(db: Db, merchantId: string): Promise<MemberRow[]> {
  return membersQuery(db)
    .where('m.merchant_id', merchantId)
    .orderBy([{ column: 'm.created_at' }, { column: 'm.id' }]);
}

/** The member `id` of the merchant, if any. */
export async function findMember(db: Db, merchantId: string, id: string): Promise<MemberRow | undefined> {
  return membersQuery(db).where({ 'm.merchant_id': merchantId, 'm.id': id }).first();
}

/** The memberships of a person, oldest first (the first is the default at sign-in). */
export async function listMembershipsOf(
  db: Db,
  personId: string,
): Promise<{ merchant_id: string; role: Role; business_name: string | null }[]> {
  return db('team_members as m')
    .join('developers as a', 'a.merchant_id', 'm.merchant_id')
    .where('m.developer_id', personId)
    .orderBy([{ column: 'm.created_at' }, { column: 'm.id' }])
    .select('m.merchant_id', 'm.role', 'a.business_name');
}

/** What a session needs to know about its person in its merchant (one read per request). */
export interface SessionMembership {
  role: Role;
  /** The merchant's own account (the developer that registered it). */
  accountId: string;
  /** The person's session generation: tokens of another one are refused. */
  sessionGeneration: number;
  twoFactorEnabled: boolean;
}

/** The person's membership of the merchant; undefined when they are not (or no longer) a member. */
export async function findSessionMembership(
  db: Db,
  personId: string,
  merchantId: string,
): Promise<SessionMembership | undefined> {
  const row = await db('team_members as m')
    .join('developers as p', 'p.id', 'm.developer_id')
    .join('developers as a', 'a.merchant_id', 'm.merchant_id')
    .where({ 'm.developer_id': personId, 'm.merchant_id': merchantId })
    .first('m.role', 'a.id as account_id', 'p.session_generation', 'p.totp_enabled_at');
  if (!row) return undefined;
  return {
    role: row.role,
    accountId: row.account_id,
    sessionGeneration: row.session_generation,
    twoFactorEnabled: row.totp_enabled_at !== null,
  };
}

/** Adds a member (a no-op when the person already is one). @returns true when it was added */
export async function insertMember(
  db: Db | Knex.Transaction,
  member: { id: string; merchantId: string; personId: string; role: Role },
): Promise<boolean> {
  const rows = await db('team_members')
    .insert({ id: member.id, merchant_id: member.merchantId, developer_id: member.personId, role: member.role })
    .onConflict(['merchant_id', 'developer_id'])
    .ignore()
    .returning('id');
  return rows.length > 0;
}

/**
 * Changes a member's role or removes it (`role` null) unless that leaves the merchant without an owner
 * (docs/security.md#roles). The merchant's owners are locked for the check, so two owners demoting each
 * other at once cannot both succeed.
 * @returns 'done', 'missing' (no such member), or 'last_owner'
 */
export async function changeMember(
  db: Db,
  merchantId: string,
  memberId: string,
  role: Role | null,
): Promise<'done' | 'missing' | 'last_owner'> {
  return db.transaction(async (trx) => {
    const owners: { id: string }[] = await trx('team_members')
      .where({ merchant_id: merchantId, role: 'owner' })
      .forUpdate()
      .select('id');
    const member = await trx('team_members').where({ merchant_id: merchantId, id: memberId }).forUpdate().first();
    if (!member) return 'missing';
    const staysOwner = role === 'owner';
    if (member.role === 'owner' && !staysOwner && owners.length <= 1) return 'last_owner';
    if (role === null) await trx('team_members').where({ id: memberId }).delete();
    else await trx('team_members').where({ id: memberId }).update({ role });
    return 'done';
  });
}

/** An invitation as stored (never its token, only the token's hash). */
export interface InvitationRow {
  id: string;
  merchant_id: string;
  email: string;
  role: Role;
  invited_by: string;
  expires_at: Date;
  accepted_at: Date | null;
  created_at: Date;
}

/** Stores an invitation. */
export async function insertInvitation(
  db: Db,
  invitation: {
    id: string;
    merchantId: string;
    email: string;
    role: Role;
    tokenHash: string;
    invitedBy: string;
    expiresAt: Date;
  },
): Promise<InvitationRow> {
  const [row] = await db('team_invitations')
    .insert({
      id: invitation.id,
      merchant_id: invitation.merchantId,
      email: invitation.email,
      role: invitation.role,
      token_hash: invitation.tokenHash,
      invited_by: invitation.invitedBy,
      expires_at: invitation.expiresAt,
    })
    .returning(['id', 'merchant_id', 'email', 'role', 'invited_by', 'expires_at', 'accepted_at', 'created_at']);
  return row as InvitationRow;
}

/** The merchant's invitations not yet accepted, newest first. */
export async function listOpenInvitations(db: Db, merchantId: string): Promise<InvitationRow[]> {
  return db('team_invitations')
    .where({ merchant_id: merchantId })
    .whereNull('accepted_at')
    .orderBy(NEWEST_FIRST)
    .select('id', 'merchant_id', 'email', 'role', 'invited_by', 'expires_at', 'accepted_at', 'created_at');
}

/** The invitation whose token hashes to `tokenHash`, accepted or not. */
export async function findInvitationByTokenHash(db: Db, tokenHash: string): Promise<InvitationRow | undefined> {
  return db('team_invitations')
    .where({ token_hash: tokenHash })
    .first('id', 'merchant_id', 'email', 'role', 'invited_by', 'expires_at', 'accepted_at', 'created_at');
}

/**
 * Marks the invitation accepted by `personId` and makes them a member, in `trx`, only if it is still open
 * and unexpired: of two acceptances at once, one wins (docs/security.md#invitations).
 * @returns the member id, or undefined when the invitation was already used or has expired
 */
export async function acceptInvitation(
  trx: Knex.Transaction,
  invitation: InvitationRow,
  personId: string,
  memberId: string,
): Promise<string | undefined> {
  const taken = await trx('team_invitations')
    .where({ id: invitation.id })
    .whereNull('accepted_at')
    .where('expires_at', '>', trx.fn.now())
    .update({ accepted_at: trx.fn.now(), accepted_by: personId });
  if (taken === 0) return undefined;
  const added = await insertMember(trx, {
    id: memberId,
    merchantId: invitation.merchant_id,
    personId,
    role: invitation.role,
  });
  if (added) return memberId;
  const existing = await trx('team_members')
    .where({ merchant_id: invitation.merchant_id, developer_id: personId })
    .first('id');
  return existing?.id as string;
}
