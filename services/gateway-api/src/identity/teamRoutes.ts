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
import type { MemberRow, TeamRow } from './identityStore.ts';
import { toMemberView, toTeamView } from './identityViews.ts';

/**
 * Teams and memberships. Global admins manage every team; a team admin manages the members of their
 * team; a team member reads their team. Every membership change evicts the member's cached sessions on
 * every replica, so the new role applies from the next request.
 */
export function teamRoutes(deps: IdentityRouteDeps) {
  const { store, broadcast, logger } = deps;
  const notFound = () => new AppError('not_found', 'No such team');
  const notAMember = () => new AppError('not_found', 'This user is not a member of the team');
  const evictUser = (userId: string) => broadcast.invalidate({ kind: 'user', user_id: userId });
  type Input = Parameters<typeof auditContextOf>[0];
  type Tx = Parameters<Parameters<typeof store.inTransaction>[0]>[0];

  /**
   * Changes a team (`change` answers null when there is no such team), audited in the same transaction
   * with the team as it was before the change.
   */
  async function changeTeam<T>(
    input: Input & { params: { teamId: string } },
    change: (tx: Tx) => Promise<T | null>,
    entry: (before: TeamRow, changed: T) => Pick<AuditRecord, 'action' | 'details'>,
  ): Promise<T> {
    return store.inTransaction(async (tx) => {
      const before = await tx.getTeam(input.params.teamId);
      const changed = await change(tx);
      if (!before || !changed) throw notFound();
      await tx.audit({
        ...auditContextOf(input),
        ...entry(before, changed),
        target: { kind: 'team', id: before.id },
        team_id: before.id,
      });
      return changed;
    });
  }

  /** Adds a member with `tx.addMember` and audits it in the same transaction; the entry's details carry the role. */
  async function addMemberAudited(
    tx: Tx,
    input: Input,
    member: { teamId: string; userId: string; role: Parameters<Tx['addMember']>[2] },
    details: AuditRecord['details'],
  ): Promise<void> {
    await tx.addMember(member.teamId, member.userId, member.role);
    await tx.audit({
      ...auditContextOf(input),
      action: 'team.member_added',
      target: { kind: 'user', id: member.userId },
      team_id: member.teamId,
      details: { ...details, role: member.role },
    });
  }

  /**
   * Changes a member's role or removes them, audited in the same transaction, then evicts their cached
   * sessions. Anyone but a global team manager must leave the team a team admin.
   */
  async function changeMembership(
    input: Input & { params: { teamId: string; userId: string } },
    change: Parameters<typeof store.changeMember>[2],
    entry: (before: MemberRow) => Pick<AuditRecord, 'action' | 'details'>,
  ): Promise<void> {
    const { params, identity } = input;
    const keepAnAdmin = !hasGlobalPermission(identity, 'teams.manage');
    await store.inTransaction(async (tx) => {
      const before = await tx.getMember(params.teamId, params.userId);
      if (!before || !(await tx.changeMember(params.teamId, params.userId, change, { keepAnAdmin }))) {
        throw notAMember();
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
            await addMemberAudited(
              tx,
              input,
              { teamId: created.id, userId: creator, role: 'team_admin' },
              { reason: 'created the team' },
            );
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
        const team = await changeTeam(
          input,
          (tx) => tx.updateTeam(params.teamId, body),
          (before, updated) => ({
            action: 'team.updated',
            details: { slug: updated.slug, name: updated.name, previous: { slug: before.slug, name: before.name } },
          }),
        );
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
        const members = await changeTeam(
          input,
          (tx) => tx.deleteTeam(params.teamId),
          (team, removed) => ({
            action: 'team.deleted',
            details: { slug: team.slug, name: team.name, members: removed.length },
          }),
        );
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
        await store.inTransaction((tx) =>
          addMemberAudited(
            tx,
            input,
            { teamId: params.teamId, userId: user.id, role: body.role },
            { email: user.email },
          ),
        );
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
        if (!member) throw notAMember();
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
