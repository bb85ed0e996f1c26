/**
 * Polls `check` until it returns a value (not undefined) and returns it, or fails naming what did not
 * happen and the last error seen. `failed` (a process that exited, say) ends the wait at once.
 */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 60000,
  failed?: Promise<never>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(`${what} did not happen within ${timeoutMs / 1000} s (last: ${String(last)})`);
    await Promise.race([new Promise((resolve) => setTimeout(resolve, 250)), ...(failed ? [failed] : [])]);
  }
}
