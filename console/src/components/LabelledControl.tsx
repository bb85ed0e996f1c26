import { type ReactNode, useId } from 'react';

export type LabelledControlProps = {
  label: ReactNode;
  hint?: ReactNode;
  /** The server's message for this control, shown under it and announced. */
  error?: string | undefined;
  id?: string | undefined;
};

/** What a control needs to be tied to its label, its hint and its error. */
type ControlLinks = { id: string; 'aria-invalid': true | undefined; 'aria-describedby': string | undefined };

/**
 * The frame of every form control in the console: its label, hint and error, the last two tied to the
 * control for screen readers, so an input, a select and a text area read alike. `field` holds the
 * frame's props and the control's own; `render` draws the control with its own and the links.
 */
export function LabelledControl<Control>({
  field,
  check = false,
  render,
}: {
  field: LabelledControlProps & Control;
  /** A checkbox: its label sits beside it. */
  check?: boolean;
  render: (control: Omit<Control, keyof LabelledControlProps> & ControlLinks) => ReactNode;
}) {
  const { label, hint, error, id, ...control } = field;
  const generated = useId();
  const controlId = id ?? generated;
  const hintId = `${controlId}-hint`;
  const errorId = `${controlId}-error`;
  const describedBy = [hint ? hintId : null, error ? errorId : null].filter(Boolean).join(' ') || undefined;
  const links: ControlLinks = {
    id: controlId,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': describedBy,
  };
  return (
    <div className={check ? 'field field-check' : 'field'}>
      <label htmlFor={controlId}>{label}</label>
      {render({ ...links, ...control })}
      {hint ? (
        <p className="hint" id={hintId}>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p className="field-error" id={errorId} role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
