/**
 * The team (docs/security.md#team-members) under `/v1/developer/team`, session token only: members, invitations,
 * role changes and removals. Which roles may call each is in the access table (docs/security.md#roles).
 */
import type Router from '@koa/router';
import {
  changeRole,
  invite,
  listInvitations,
  listMyMerchants,
  listTeam,
  removeMember,
  type TeamDeps,
} from '../../services/team-service';
import { respond } from '../envelope';
import { principalOf, sessionRouter } from '../middleware/auth';
import { jsonBody } from '../middleware/json-body';
import { environmentOnlyQuery } from '../schemas/developer';
import { changeMemberBody, invitationBody } from '../schemas/security';
import { parseOrThrow } from '../schemas/validate';

/** Team routes. */
export function teamRoutes(deps: TeamDeps): Router {
  const router = sessionRouter('/v1/developer/team', deps);

  /** Members → 200 envelope `{members, merchants}` (`merchants`: the caller's own memberships, for switching). */
  router.get('/members', async (ctx) => {
    parseOrThrow(environmentOnlyQuery, ctx.query);
    const owner = principalOf(ctx);
    respond(ctx, 200, 'Members retrieved', {
      members: await listTeam(deps, owner),
      merchants: await listMyMerchants(deps, owner),
    });
  });

  /**
   * Change a member's role `{role}` → 200 envelope with the member. Errors: 400; 403 `forbidden` (an admin and
   * an owner, or no recent two-factor code); 404; 409 `conflict` for the last owner.
   */
  router.patch('/members/:id', jsonBody(), async (ctx) => {
    const body = parseOrThrow(changeMemberBody, ctx.request.body);
    const member = await changeRole(deps, principalOf(ctx), String(ctx.params.id), body.role, ctx.ip);
    respond(ctx, 200, 'Role changed', member);
  });

  /** Remove a member → 200 envelope with the removed member. Errors: as the role change. */
  router.delete('/members/:id', jsonBody(), async (ctx) => {
    respond(ctx, 200, 'Member removed', await removeMember(deps, principalOf(ctx), String(ctx.params.id), ctx.ip));
  });

  /** Open invitations → 200 envelope `{invitations}`. */
  router.get('/invitations', async (ctx) => {
    parseOrThrow(environmentOnlyQuery, ctx.query);
    respond(ctx, 200, 'Invitations retrieved', { invitations: await listInvitations(deps, principalOf(ctx)) });
  });

  /**
   * Invite `{email, role}` → 201 envelope with the invitation; the link goes by e-mail, good for 72 hours, once.
   * Errors: 400; 403 `forbidden` (an admin inviting an owner, or no recent two-factor code).
   */
  router.post('/invitations', jsonBody(), async (ctx) => {
    const body = parseOrThrow(invitationBody, ctx.request.body);
    respond(ctx, 201, 'Invitation sent', await invite(deps, principalOf(ctx), body, ctx.ip));
  });

  return router;
}
