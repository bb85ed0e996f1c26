import { type ReactNode, useEffect, useState } from 'react';
import { Link, useLocation } from './router.tsx';
import { useSession } from './session.tsx';

type NavItem = { to: string; label: string; show: boolean };

/** The frame of every logged-in page: a skip link, the navigation (a menu button on narrow screens), the page. */
export function Layout({ children }: { children: ReactNode }) {
  const session = useSession();
  const location = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: close the menu whenever the page changes
  useEffect(() => setMenuOpen(false), [location]);

  const items: NavItem[] = [
    { to: '/', label: 'Overview', show: true },
    { to: '/catalogue', label: 'Catalogue', show: true },
    { to: '/installations', label: 'Installations', show: true },
    { to: '/satellites', label: 'Satellites', show: true },
    { to: '/connect', label: 'Connect a client', show: true },
    { to: '/teams', label: 'Teams', show: true },
    { to: '/settings', label: 'Settings', show: session.can('settings.view') },
    { to: '/jobs', label: 'Jobs', show: session.can('jobs.view') },
    { to: '/people', label: 'People', show: session.can('users.view') },
    // Global admins read the whole log; a team's admins their team's entries.
    {
      to: '/audit',
      label: 'Audit',
      show: session.can('audit.view') || session.me.memberships.some((m) => m.permissions.includes('audit.view')),
    },
    { to: '/account', label: 'Your account', show: true },
  ];
  const path = location.split('?')[0] ?? '/';
  // An installation's page lives under its team's path but belongs to Installations.
  const section = /^\/teams\/[^/]+\/installations\//.test(path) ? '/installations' : path;
  const isCurrent = (to: string) => (to === '/' ? section === '/' : section === to || section.startsWith(`${to}/`));

  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/" className="brand">
          Orbital
        </Link>
        <button
          type="button"
          className="menu-button secondary"
          aria-expanded={menuOpen}
          aria-controls="main-nav"
          onClick={() => setMenuOpen((open) => !open)}
        >
          Menu
        </button>
        <nav id="main-nav" aria-label="Main" className={menuOpen ? 'open' : undefined}>
          <ul>
            {items
              .filter((item) => item.show)
              .map((item) => (
                <li key={item.to}>
                  <Link to={item.to} aria-current={isCurrent(item.to) ? 'page' : undefined}>
                    {item.label}
                  </Link>
                </li>
              ))}
          </ul>
          <div className="account">
            <span className="muted" title={session.me.email}>
              {session.me.name}
              {session.isAdmin ? ' (admin)' : ''}
            </span>
            <button type="button" className="secondary" onClick={() => void session.logout()}>
              Log out
            </button>
          </div>
        </nav>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
