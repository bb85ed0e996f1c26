import { type AnchorHTMLAttributes, type MouseEvent, useSyncExternalStore } from 'react';

/**
 * Client-side routing on the History API: a handful of paths, so a few lines instead of a routing
 * library. gateway-api answers every console path with index.html, so a reload or a shared link lands
 * on the same page.
 */
const changeEvent = 'orbital:navigate';

function subscribe(onChange: () => void): () => void {
  window.addEventListener('popstate', onChange);
  window.addEventListener(changeEvent, onChange);
  return () => {
    window.removeEventListener('popstate', onChange);
    window.removeEventListener(changeEvent, onChange);
  };
}

const currentLocation = () => window.location.pathname + window.location.search;

/** The current path and query (`/teams/1?tab=members`). */
export function useLocation(): string {
  return useSyncExternalStore(subscribe, currentLocation);
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === currentLocation()) return;
  if (options.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  window.dispatchEvent(new Event(changeEvent));
  window.scrollTo(0, 0);
}

/** Matches `/teams/:teamId` against a path; the parameters by name, or null. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/').filter(Boolean);
  const have = (path.split('?')[0] ?? '').split('/').filter(Boolean);
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (const [i, part] of want.entries()) {
    const actual = have[i] as string;
    if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(actual);
    else if (part !== actual) return null;
  }
  return params;
}

export function queryParam(location: string, name: string): string | null {
  return new URLSearchParams(location.split('?')[1] ?? '').get(name);
}

type LinkProps = AnchorHTMLAttributes<HTMLAnchorElement> & { to: string };

/** An ordinary link (open in a new tab works) that navigates in place on a plain click. */
export function Link({ to, onClick, ...rest }: LinkProps) {
  function handle(event: MouseEvent<HTMLAnchorElement>) {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    event.preventDefault();
    navigate(to);
  }
  return <a href={to} onClick={handle} {...rest} />;
}
