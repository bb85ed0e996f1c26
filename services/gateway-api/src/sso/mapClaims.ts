import type { GlobalRole, OidcRoleMapping, TeamRole } from '@orbital/contracts';
import type { TeamTarget } from './readSignInSettings.ts';

/**
 * The values of a claim as a list of strings: a string, or an array of strings (other items ignored).
 * A claim is looked up by its exact name first (namespaced claims such as `https://example.com/groups`
 * hold dots), then as a dotted path into nested objects (Keycloak's `realm_access.roles`).
 */
export function claimValues(claims: Record<string, unknown>, name: string): string[] {
  let value: unknown = claims[name];
  if (value === undefined && name.includes('.')) {
    value = name.split('.').reduce<unknown>((node, part) => {
      return node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
    }, claims);
  }
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return [];
}

/** A mapping's entry for a claim value; a value such as `constructor` never reaches Object's prototype. */
const own = <T>(mapping: Record<string, T>, value: string): T | undefined =>
  Object.hasOwn(mapping, value) ? mapping[value] : undefined;

/** The global role the claim gives: global_admin when any value maps to it, global_user otherwise. */
export function mappedGlobalRole(claims: Record<string, unknown>, claim: string, mapping: OidcRoleMapping): GlobalRole {
  const admin = claimValues(claims, claim).some((value) => own(mapping, value) === 'global_admin');
  return admin ? 'global_admin' : 'global_user';
}

export type MappedTeams = {
  /** Every team slug the mapping names: the teams whose membership follows the claim. */
  managed: string[];
  /** The role in each team the claim gives (team_admin wins over team_user); a managed team absent here is left. */
  roles: Map<string, TeamRole>;
};

export function mappedTeams(
  claims: Record<string, unknown>,
  claim: string,
  mapping: Record<string, TeamTarget[]>,
): MappedTeams {
  const managed = [...new Set(Object.values(mapping).flatMap((targets) => targets.map((t) => t.slug)))].sort();
  const roles = new Map<string, TeamRole>();
  for (const value of claimValues(claims, claim)) {
    for (const target of own(mapping, value) ?? []) {
      if (roles.get(target.slug) !== 'team_admin') roles.set(target.slug, target.role);
    }
  }
  return { managed, roles };
}
