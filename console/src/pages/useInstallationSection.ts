import { useSession } from '../app/session.tsx';
import { useLoad } from '../app/useLoad.ts';

/**
 * What a section of an installation's page is given: whose installation, and whether its server is
 * online (it lists its tools again when it comes online, so the section loads again).
 */
export type InstallationSectionProps = { teamId: string; installationId: string; online: boolean };

/** A section's data, loaded again when the server comes online, and whether the person may change it. */
export function useInstallationSection<T>(
  { teamId, installationId, online }: InstallationSectionProps,
  load: (teamId: string, installationId: string) => Promise<T>,
) {
  const session = useSession();
  const loaded = useLoad(() => load(teamId, installationId), [teamId, installationId, online]);
  return { loaded, canManage: session.canInTeam(teamId, 'installations.manage') };
}
