import type { ReactNode } from 'react';
import {
  ForgotPasswordPage,
  InvitationPage,
  RegisterPage,
  ResetPasswordPage,
  VerifyEmailPage,
} from '../pages/AccountFlowPages.tsx';
import { AccountPage } from '../pages/AccountPage.tsx';
import { AuditPage } from '../pages/AuditPage.tsx';
import { CataloguePage } from '../pages/CataloguePage.tsx';
import { ConnectPage } from '../pages/ConnectPage.tsx';
import { InstallationPage } from '../pages/InstallationPage.tsx';
import { InstallationsPage } from '../pages/InstallationsPage.tsx';
import { JobsPage } from '../pages/JobsPage.tsx';
import { LoginPage } from '../pages/LoginPage.tsx';
import { NotFoundPage } from '../pages/NotFoundPage.tsx';
import { OverviewPage } from '../pages/OverviewPage.tsx';
import { PeoplePage } from '../pages/PeoplePage.tsx';
import { SatellitePage } from '../pages/SatellitePage.tsx';
import { SatellitesPage } from '../pages/SatellitesPage.tsx';
import { SettingsPage } from '../pages/SettingsPage.tsx';
import { TeamPage } from '../pages/TeamPage.tsx';
import { TeamsPage } from '../pages/TeamsPage.tsx';
import { Layout } from './Layout.tsx';
import { matchPath, navigate, useLocation } from './router.tsx';
import { loginPathFor, SessionProvider } from './session.tsx';

type Route = { path: string; render: (params: Record<string, string>) => ReactNode };

const routes: Route[] = [
  { path: '/', render: () => <OverviewPage /> },
  { path: '/settings', render: () => <SettingsPage /> },
  { path: '/teams', render: () => <TeamsPage /> },
  { path: '/teams/:teamId', render: (p) => <TeamPage teamId={p.teamId as string} /> },
  { path: '/satellites', render: () => <SatellitesPage /> },
  { path: '/satellites/:satelliteId', render: (p) => <SatellitePage satelliteId={p.satelliteId as string} /> },
  { path: '/catalogue', render: () => <CataloguePage /> },
  { path: '/installations', render: () => <InstallationsPage /> },
  {
    path: '/teams/:teamId/installations/:installationId',
    render: (p) => <InstallationPage teamId={p.teamId as string} installationId={p.installationId as string} />,
  },
  { path: '/connect', render: () => <ConnectPage /> },
  { path: '/jobs', render: () => <JobsPage /> },
  { path: '/audit', render: () => <AuditPage /> },
  { path: '/people', render: () => <PeoplePage /> },
  { path: '/account', render: () => <AccountPage /> },
];

function routeFor(location: string): ReactNode {
  for (const route of routes) {
    const params = matchPath(route.path, location);
    if (params) return route.render(params);
  }
  return <NotFoundPage />;
}

export function App() {
  const location = useLocation();
  return (
    <SessionProvider>
      {(state, session, onLogin) => {
        if (state.status === 'loading') {
          return (
            <p className="loading" role="status">
              Loading…
            </p>
          );
        }
        if (location.startsWith('/login')) return <LoginPage onLogin={onLogin} loggedIn={session !== null} />;
        // Pages reached before signing in, most from a mailed link.
        const path = location.split('?')[0];
        if (path === '/register') return <RegisterPage />;
        if (path === '/verify-email') return <VerifyEmailPage onLogin={onLogin} />;
        if (path === '/forgot-password') return <ForgotPasswordPage />;
        if (path === '/reset-password') return <ResetPasswordPage />;
        if (path === '/invitation') return <InvitationPage onLogin={onLogin} signedInAs={session?.me.email ?? null} />;
        if (!session) {
          // Rendered once; the effect of navigating replaces the address so Back does not loop.
          queueMicrotask(() => navigate(loginPathFor(window.location), { replace: true }));
          return null;
        }
        return <Layout key={session.me.id}>{routeFor(location)}</Layout>;
      }}
    </SessionProvider>
  );
}
