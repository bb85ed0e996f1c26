import type { ReactNode } from 'react';
import type { ApiError } from '../api/client.ts';
import { ErrorMessage } from './ErrorMessage.tsx';

type Action = { run: () => Promise<unknown>; pending: boolean; error: ApiError | undefined };

/** A button for what cannot be undone: it asks `question` first, and shows why the action failed above it. */
export function DangerButton({
  action,
  question,
  children,
}: {
  action: Action;
  question: string;
  children: ReactNode;
}) {
  return (
    <>
      <ErrorMessage error={action.error} />
      <button
        type="button"
        className="danger"
        disabled={action.pending}
        onClick={() => {
          if (window.confirm(question)) void action.run();
        }}
      >
        {children}
      </button>
    </>
  );
}
