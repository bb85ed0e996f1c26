import type { ReactNode } from 'react';
import type { ApiError } from '../api/client.ts';
import { ErrorMessage } from './ErrorMessage.tsx';

type Sending = { pending: boolean; error: ApiError | undefined; fieldNames?: readonly string[] };

/**
 * The end of a form that sends one action: what went wrong (a field's own error shows at its field,
 * the rest here), then the submit button, saying so while it is busy, and any buttons beside it.
 */
export function FormEnd({
  form,
  label,
  busyLabel = label,
  disabled = false,
  fieldsShown = form.fieldNames ?? true,
  children,
}: {
  form: Sending;
  label: string;
  busyLabel?: string;
  disabled?: boolean;
  /** Which field errors the form shows at its fields; by default those of the form's own values. */
  fieldsShown?: boolean | readonly string[];
  children?: ReactNode;
}) {
  return (
    <>
      <ErrorMessage error={form.error} fieldsShown={fieldsShown} />
      <div className="row">
        <button type="submit" disabled={form.pending || disabled}>
          {form.pending ? busyLabel : label}
        </button>
        {children}
      </div>
    </>
  );
}
