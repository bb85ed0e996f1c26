/**
 * One readable line per log event, for a person watching `npm start` in a terminal: time, process,
 * level and message, then the event's own fields as key=value. Lines that are not pino JSON (a stack
 * printed by Node, a tool's output) pass through as they are.
 */
const levelNames: Record<number, string> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};
/** Fields every line has, already shown in the line's head, or only noise to a reader. */
const omitted = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'name', 'service', 'v']);

function shown(value: unknown): string {
  if (typeof value === 'string') return /^[\w./:@-]*$/.test(value) && value !== '' ? value : JSON.stringify(value);
  if (typeof value === 'object' && value !== null) {
    const text = JSON.stringify(value);
    return text.length > 160 ? `${text.slice(0, 157)}...` : text;
  }
  return String(value);
}

export function formatLogLine(processName: string, line: string, width: number, colour = false): string {
  const head = processName.padEnd(width);
  let event: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(line);
    if (typeof parsed !== 'object' || parsed === null || !('level' in parsed)) return `${head}  ${line}`;
    event = parsed as Record<string, unknown>;
  } catch {
    return `${head}  ${line}`;
  }
  // pino writes epoch milliseconds by default; the services write ISO 8601.
  const at = typeof event.time === 'number' || typeof event.time === 'string' ? new Date(event.time) : null;
  const time = at && !Number.isNaN(at.getTime()) ? at.toTimeString().slice(0, 8) : '';
  const level = levelNames[Number(event.level)] ?? String(event.level);
  const fields = Object.entries(event)
    .filter(([key, value]) => !omitted.has(key) && value !== undefined && value !== null)
    .map(
      ([key, value]) => `${key}=${shown(key === 'err' ? ((value as { message?: unknown }).message ?? value) : value)}`,
    );
  const levelText = level.padEnd(5);
  const paint = (code: number, text: string) => (colour ? `\u001b[${code}m${text}\u001b[0m` : text);
  const levelShown =
    level === 'error' || level === 'fatal'
      ? paint(31, levelText)
      : level === 'warn'
        ? paint(33, levelText)
        : paint(2, levelText);
  return [time, paint(36, head), levelShown, String(event.msg ?? ''), ...fields]
    .filter((part) => part !== '')
    .join('  ');
}
