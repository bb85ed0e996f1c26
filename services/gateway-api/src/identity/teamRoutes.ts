import { hasGlobalPermission } from '@orbital/access';
import { type AuditRecord, auditContextOf } from '@orbital/audit';
import {
  addMemberBody,
  createTeamBody,
  memberView,
  teamView,
  updateMemberBody,
  updateTeamBody,
} from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import { z } from 'zod';
import { defineRoute } from '../http/defineRoute.ts';
import { memberParams, teamParams } from '../http/pathParams.ts';
import { globalAccess, signedIn, teamInPath } from '../http/routeAccess.ts';
import type { IdentityRouteDeps } from './identityRouteDeps.ts';
import type { MemberRow } from './identityStore.ts';
import { toMemberView, toTeamView } from './identityViews.ts';

/**
 * Teams and memberships. Global admins manage every team; a team admin manages the members of their
 * team; a team member reads their team. Every membership change evicts the member's cached sessions on
 * every replica, so the new role applies from the next request.
 */
export function teamRoutes(deps: IdentityRouteDeps) {
  const { store, broadcast, logger } = deps;
  const notFound = () => new AppError('not_found', 'No such team');
  const evictUser = (userId: string) => broadcast.invalidate({ kind: 'user', user_id: userId });

  /**
   * Changes a member's role or removes them, audited in the same transaction, then evicts their cached
   * sessions. Anyone but a global team manager must leave the team a team admin.
   */
  async function changeMembership(
    input: Parameters<typeof auditContextOf>[0] & { params: { teamId: string; userId: string } },
    change: Parameters<typeof store.changeMember>[2],
    entry: (before: MemberRow) => Pick<AuditRecord, 'action' | 'details'>,
  ): Promise<void> {
    const { params, identity } = input;
    const keepAnAdmin = !hasGlobalPermission(identity, 'teams.manage');
    await store.inTransaction(async (tx) => {
      const before = await tx.getMember(params.teamId, params.userId);
      if (!before || !(await tx.changeMember(params.teamId, params.userId, change, { keepAnAdmin }))) {
        throw new AppError('not_found', 'This user is not a member of the team');
      }
      await tx.audit({
        ...auditContextOf(input),
        ...entry(before),
        target: { kind: 'user', id: params.userId },
        team_id: params.teamId,
      });
    });
    await evictUser(params.userId);
  }

  return [
    defineRoute({
      method: 'GET',
      url: '/api/teams',
      summary: 'Teams: every team for a global admin, your teams otherwise',
      tags: ['teams'],
      access: signedIn,
      response: z.array(teamView),
      async handler({ identity }) {
        // Not a permission check: the route admits any signed-in user, and what they see is narrowed here.
        if (identity.kind !== 'user') throw new AppError('forbidden');
        const teams = hasGlobalPermission(identity, 'teams.manage')
          ? await store.listTeams()
          : await store.listTeamsOf(identity.user_id);
        return teams.map(toTeamView);
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/api/teams',
      summary: 'Create a team',
      tags: ['teams'],
      access: globalAccess('teams.manage'),
      body: createTeamBody,
      response: teamView,
      successStatus: 201,
      async handler(input) {
        // The person who creates a team is its first team admin: a new team is never without one, and it
        // shows among their teams (a global admin manages every team anyway; this makes it theirs).
        const creator = input.identity.kind === 'user' ? input.identity.user_id : null;
        const team = await store.inTransaction(async (tx) => {
          const created = await tx.createTeam(input.body);
          await tx.audit({
            ...auditContextOf(input),
            action: 'team.created',
            target: { kind: 'team', id: created.id },
            team_id: created.id,
            details: { slug: created.slug, name: created.name },
          });
          if (creator) {
            await tx.addMember(created.id, creator, 'team_admin');
            await tx.audit({
              ...auditContextOf(input),
              action: 'team.member_added',
              target: { kind: 'user', id: creator },
              team_id: created.id,
              details: { role: 'team_admin', reason: 'created the team' },
            });
          }
          return created;
        });
        if (creator) await evictUser(creator);
        return toTeamView(team);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/teams/:teamId',
      summary: 'One team',
      tags: ['teams'],
      access: teamInPath('team.view'),
      params: teamParams,
      response: teamView,
      async handler({ params }) {
        const team = await store.getTeam(params.teamId);
        if (!team) throw notFound();
        return toTeamView(team);
      },
    }),
    defineRoute({
      method: 'PUT',
      url: '/api/teams/:teamId',
      summary: 'Rename a team or change its slug',
      tags: ['teams'],
      access: globalAccess('teams.manage'),
      params: teamParams,
      body: updateTeamBody,
      response: teamView,
      async handler(input) {
        const { params, body } = input;
        const team = await store.inTransaction(async (tx) => {
          const before = await tx.getTeam(params.teamId);
          const updated = await tx.updateTeam(params.teamId, body);
          if (!before || !updated) throw notFound();
          await tx.audit({
            ...auditContextOf(input),
            action: 'team.updated',
            target: { kind: 'team', id: updated.id },
            team_id: updated.id,
            details: { slug: updated.slug, name: updated.name, previous: { slug: before.slug, name: before.name } },
          });
          return updated;
        });
        return toTeamView(team);
      },
    }),
    defineRoute({
      method: 'DELETE',
      url: '/api/teams/:teamId',
      summary: 'Delete a team and its memberships',
      tags: ['teams'],
      access: globalAccess('teams.manage'),
      params: teamParams,
      response: z.object({ deleted: z.literal(true) }),
      async handler(input) {
        const { params } = input;
        const members = await store.inTransaction(async (tx) => {
          const team = await tx.getTeam(params.teamId);
          const removed = await tx.deleteTeam(params.teamId);
          if (!team || !removed) throw notFound();
          await tx.audit({
            ...auditContextOf(input),
            action: 'team.deleted',
            target: { kind: 'team', id: team.id },
            team_id: team.id,
            details: { slug: team.slug, name: team.name, members: removed.length },
          });
          return removed;
        });
        for (const userId of members) await evictUser(userId);
        logger.info({ event: 'identity.team_deleted', team_id: params.teamId }, 'team deleted');
        return { deleted: true as const };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/teams/:teamId/members',
      summary: 'The members of a team',
      tags: ['teams'],
      access: teamInPath('team.view'),
      params: teamParams,
      response: z.array(memberView),
      async handler({ params }) {
        if (!(await store.getTeam(params.teamId))) throw notFound();
        return (await store.listMembers(params.teamId)).map(toMemberView);
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/api/teams/:teamId/members',
      summary: 'Add a user to a team, by user id or e-mail address',
      tags: ['teams'],
      access: teamInPath('team.manage_members'),
      params: teamParams,
      body: addMemberBody,
      response: memberView,
      successStatus: 201,
      async handler(input) {
        const { params, body } = input;
        if (!(await store.getTeam(params.teamId))) throw notFound();
        const user = body.user_id ? await store.getUser(body.user_id) : await store.findUserByEmail(body.email ?? '');
        if (!user) throw new AppError('not_found', 'No such user');
        await store.inTransaction(async (tx) => {
          await tx.addMember(params.teamId, user.id, body.role);
          await tx.audit({
            ...auditContextOf(input),
            action: 'team.member_added',
            target: { kind: 'user', id: user.id },
            team_id: params.teamId,
            details: { email: user.email, role: body.role },
          });
        });
        await evictUser(user.id);
        const member = await store.getMember(params.teamId, user.id);
        if (!member) throw new AppError('conflict', 'The membership was removed while it was being added');
        return toMemberView(member);
      },
    }),
    defineRoute({
      method: 'PUT',
      url: '/api/teams/:teamId/members/:userId',
      summary: "Change a member's role",
      tags: ['teams'],
      access: teamInPath('team.manage_members'),
      params: memberParams,
      body: updateMemberBody,
      response: memberView,
      async handler(input) {
        const { params, body } = input;
        await changeMembership(input, { role: body.role }, (before) => ({
          action: 'team.member_role_changed',
          details: { email: before.email, role: body.role, previous_role: before.role },
        }));
        const member = await store.getMember(params.teamId, params.userId);
        if (!member) throw new AppError('not_found', 'This user is not a member of the team');
        return toMemberView(member);
      },
    }),
    defineRoute({
      method: 'DELETE',
      url: '/api/teams/:teamId/members/:userId',
      summary: 'Remove a member from a team',
      tags: ['teams'],
      access: teamInPath('team.manage_members'),
      params: memberParams,
      response: z.object({ removed: z.literal(true) }),
      async handler(input) {
        await changeMembership(input, { remove: true }, (before) => ({
          action: 'team.member_removed',
          details: { email: before.email, role: before.role },
        }));
        return { removed: true as const };
      },
    }),
  ];
}
