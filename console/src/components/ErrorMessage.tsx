import type { ApiError } from '../api/client.ts';

/**
 * An API error for the whole form or page. Field errors are shown at their fields (`fieldsShown`: all
 * of them, or those of the fields named); this lists the others, says what went wrong overall and,
 * when the API says what to do next, that too.
 */
export function ErrorMessage({
  error,
  fieldsShown = false,
}: {
  error: ApiError | undefined;
  fieldsShown?: boolean | readonly string[];
}) {
  if (!error) return null;
  const shown = (name: string) => (typeof fieldsShown === 'boolean' ? fieldsShown : fieldsShown.includes(name));
  const unshown = Object.entries(error.fields).filter(([name]) => !shown(name));
  return (
    <div className="error-box" role="alert">
      <p>{error.message}</p>
      {unshown.length > 0 ? (
        <ul>
          {unshown.map(([name, message]) => (
            <li key={name}>
              <code>{name}</code>: {message}
            </li>
          ))}
        </ul>
      ) : null}
      {error.instructions ? <p>{error.instructions}</p> : null}
    </div>
  );
}
