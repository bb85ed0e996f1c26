/** A timestamp as the person's local time, with the exact ISO value on hover and for machines. */
export function When({ at }: { at: string | null | undefined }) {
  if (!at) return <span className="muted">never</span>;
  const date = new Date(at);
  return (
    <time dateTime={at} title={at}>
      {date.toLocaleString()}
    </time>
  );
}
