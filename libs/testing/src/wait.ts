/**
 * Polls `condition` until it holds, at most `timeoutMs`; fails naming what it waited for. For what
 * happens asynchronously (an event consumed, a task settled): behaviour, not wall-clock.
 */
export async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
