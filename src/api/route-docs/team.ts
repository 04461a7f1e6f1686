/**
 * The route docs of one feature (src/api/openapi.ts builds the document from every feature's): Team members and
 * invitations.
 */
import { z } from '../../lib/zod';
import { environmentOnlyQuery } from '../schemas/developer';
import { changeMemberBody, invitationBody } from '../schemas/security';
import * as out from '../../views';
import * as example from '../schemas/examples';
import type { CodeDoc } from '../schemas/error-docs';
import { listAnswer, answer, type RouteDoc } from './shared';

/** Why a change of a member's role or membership is refused. */
const MEMBER_CHANGE_CODES: CodeDoc[] = [
  { code: 'forbidden', when: 'Your role cannot make this change, or no code was confirmed in the last 5 minutes.' },
  { code: 'conflict', when: 'It would leave the merchant without an owner.' },
];

/** Team members and invitations. */
export const teamRouteDocs: RouteDoc[] = [
  {
    operationId: 'listTeamMembers',
    method: 'get',
    path: '/v1/developer/team/members',
    tag: 'Team',
    summary: 'List team members',
    description: "The merchant's members and their roles, and the merchants you belong to (for switching).",
    security: ['session'],
    query: environmentOnlyQuery,
    success: answer(
      'Members',
      z.object({
        members: z.array(out.member).openapi({ description: "The merchant's members and their roles" }),
        merchants: z
          .array(out.membership)
          .openapi({ description: 'Every merchant you belong to, with your role there (for switching)' }),
      }),
      'Members retrieved',
      {
        members: [example.member],
        merchants: [{ merchant_id: example.ids.merchant, business_name: 'Amina Shop', role: 'developer' }],
      },
    ),
  },
  {
    operationId: 'updateTeamMember',
    method: 'patch',
    path: '/v1/developer/team/members/{id}',
    tag: 'Team',
    summary: "Change a member's role",
    description:
      'Owners and admins; only an owner changes an owner or makes one, and the last owner cannot be demoted. Needs a two-factor code from the last 5 minutes when two-factor is on.',
    security: ['session'],
    body: changeMemberBody,
    bodyExample: { role: 'viewer' },
    success: answer('The member', out.member, 'Role changed', { ...example.member, role: 'viewer' }),
    codes: MEMBER_CHANGE_CODES,
  },
  {
    operationId: 'removeTeamMember',
    method: 'delete',
    path: '/v1/developer/team/members/{id}',
    tag: 'Team',
    summary: 'Remove a member',
    description:
      "Owners and admins; only an owner removes an owner, and the last owner cannot leave. The member's next request in this merchant is refused.",
    security: ['session'],
    success: answer('The removed member', out.member, 'Member removed', example.member),
    codes: MEMBER_CHANGE_CODES,
  },
  {
    operationId: 'listInvitations',
    method: 'get',
    path: '/v1/developer/team/invitations',
    tag: 'Team',
    summary: 'List open invitations',
    description: 'Invitations not yet accepted, newest first, with when their link expires.',
    security: ['session'],
    query: environmentOnlyQuery,
    success: listAnswer(
      'Invitations',
      'invitations',
      out.invitation,
      'Invitations sent and not yet accepted',
      example.invitation,
    ),
  },
  {
    operationId: 'createInvitation',
    method: 'post',
    path: '/v1/developer/team/invitations',
    tag: 'Team',
    summary: 'Invite a member',
    description:
      'E-mails a link valid 72 hours, once. Owners and admins; only an owner invites an owner. Needs a two-factor code from the last 5 minutes when two-factor is on.',
    security: ['session'],
    body: invitationBody,
    bodyExample: { email: 'kofi@example.com', role: 'developer' },
    success: answer('The invitation', out.invitation, 'Invitation sent', example.invitation, 201),
    codes: [
      { code: 'forbidden', when: 'Your role cannot invite this role, or no code was confirmed in the last 5 minutes.' },
    ],
  },
];
