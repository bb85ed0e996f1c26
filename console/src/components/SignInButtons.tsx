import type { SignInMethods } from '../api/client.ts';

/**
 * "Sign in with GitHub" and "Sign in with <SSO>": links to the gateway's start of each sign-in that is on
 * (the methods answer lists only those enabled and configured). The browser leaves for the provider and
 * comes back to `next`, a path of this console (an invitation's page accepts it once signed in).
 */
export function SignInButtons({ methods, next }: { methods: SignInMethods | undefined; next: string }) {
  const providers = [methods?.repohost, methods?.oidc].filter((p): p is NonNullable<typeof p> => Boolean(p));
  if (providers.length === 0) return null;
  return (
    <div className="sign-in-providers">
      {providers.map((provider) => (
        <a
          key={provider.start_url}
          className="button secondary"
          href={`${provider.start_url}?next=${encodeURIComponent(next)}`}
        >
          Sign in with {provider.name}
        </a>
      ))}
    </div>
  );
}
