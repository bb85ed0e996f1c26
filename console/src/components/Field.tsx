import type { InputHTMLAttributes } from 'react';
import { LabelledControl, type LabelledControlProps } from './LabelledControl.tsx';

type FieldProps = LabelledControlProps & Omit<InputHTMLAttributes<HTMLInputElement>, 'id'>;

/** A labelled input with its hint and its error. */
export function Field(props: FieldProps) {
  return <LabelledControl field={props} check={props.type === 'checkbox'} render={(input) => <input {...input} />} />;
}

/** What a new password must be, said where a person chooses their own. */
export const passwordHint = 'At least 12 characters; a pass phrase is best.';

/**
 * A password being chosen (`choosing`: the browser may offer to generate and save one) or given (the
 * browser may fill in the saved one).
 */
export function PasswordField({ choosing = false, ...field }: Omit<FieldProps, 'type'> & { choosing?: boolean }) {
  return <Field type="password" autoComplete={choosing ? 'new-password' : 'current-password'} {...field} />;
}
