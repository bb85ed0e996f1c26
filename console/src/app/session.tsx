import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import { ApiError, api, type MeView, setUnauthenticatedHandler } from '../api/client.ts';
import { navigate } from './router.tsx';

type GlobalPermission = MeView['permissions'][number];
type TeamPermission = MeView['memberships'][number]['permissions'][number];

export type Session = {
  me: MeView;
  isAdmin: boolean;
  can: (permission: GlobalPermission) => boolean;
  /** Whether the user holds a permission in a team (global admins hold every one in every team). */
  canInTeam: (teamId: string, permission: TeamPermission) => boolean;
  refresh: () => Promise<void>;
  logout: () => Promise<void>;
};

type SessionState = { status: 'loading' } | { status: 'anonymous' } | { status: 'ready'; me: MeView };

const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a logged-in page');
  return session;
}

/**
 * Pages a person reaches before signing in (most from a mailed link): a 401 there is expected (nobody
 * is signed in yet) and must not send them to the login page.
 */
export const pagesBeforeSignIn: ReadonlySet<string> = new Set([
  '/register',
  '/verify-email',
  '/forgot-password',
  '/reset-password',
  '/invitation',
]);

function loginPathFor(location: Location): string {
  const next = location.pathname + location.search;
  return next === '/' || next.startsWith('/login') ? '/login' : `/login?next=${encodeURIComponent(next)}`;
}

/**
 * Who is logged in (GET /api/users/me), for every page. A 401 anywhere (the session expired or was
 * revoked) sends the person to the login page, and back where they were once logged in again.
 */
export function SessionProvider(props: {
  children: (state: SessionState, session: Session | null, onLogin: () => Promise<void>) => ReactNode;
}) {
  const [state, setState] = useState<SessionState>({ status: 'loading' });

  const refresh = useCallback(async () => {
    try {
      setState({ status: 'ready', me: await api.me() });
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) setState({ status: 'anonymous' });
      else throw error;
    }
  }, []);

  useEffect(() => {
    setUnauthenticatedHandler(() => {
      setState({ status: 'anonymous' });
      const path = window.location.pathname;
      if (!path.startsWith('/login') && !pagesBeforeSignIn.has(path)) {
        navigate(loginPathFor(window.location), { replace: true });
      }
    });
    refresh().catch(() => setState({ status: 'anonymous' }));
  }, [refresh]);

  const session = useMemo<Session | null>(() => {
    if (state.status !== 'ready') return null;
    const { me } = state;
    const isAdmin = me.global_role === 'global_admin';
    return {
      me,
      isAdmin,
      can: (permission) => me.permissions.includes(permission),
      canInTeam: (teamId, permission) =>
        isAdmin || Boolean(me.memberships.find((m) => m.team_id === teamId)?.permissions.includes(permission)),
      refresh,
      logout: async () => {
        await api.logout().catch(() => undefined);
        setState({ status: 'anonymous' });
        navigate('/login', { replace: true });
      },
    };
  }, [state, refresh]);

  return <SessionContext.Provider value={session}>{props.children(state, session, refresh)}</SessionContext.Provider>;
}

export { loginPathFor };
