import type { TextareaHTMLAttributes } from 'react';
import { LabelledControl, type LabelledControlProps } from './LabelledControl.tsx';

/** A labelled text area (several lines of input), with its hint and its error. */
export function TextAreaField(props: LabelledControlProps & Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'id'>) {
  return <LabelledControl field={props} render={(textarea) => <textarea {...textarea} />} />;
}
