/** A small line of recent values; the figures beside it carry the meaning, so it is labelled, not read out point by point. */
export function Sparkline({ values, max, label }: { values: number[]; max: number; label: string }) {
  if (values.length < 2) return null;
  const width = 120;
  const height = 28;
  const step = width / (values.length - 1);
  const points = values
    .map((v, i) => `${(i * step).toFixed(1)},${(height - (Math.min(v, max) / max) * height).toFixed(1)}`)
    .join(' ');
  return (
    <svg
      className="sparkline"
      viewBox={`0 0 ${width} ${height}`}
      width={width}
      height={height}
      role="img"
      aria-label={label}
    >
      <polyline points={points} fill="none" stroke="currentColor" strokeWidth="1.5" />
    </svg>
  );
}
