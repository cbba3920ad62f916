// Waiting for a condition in integration tests: poll until it holds or a generous deadline passes,
// then let the test assert on state. Deadlines are failure detectors, never measurements.
import { setTimeout as delay } from 'node:timers/promises';

export async function eventually<T>(
  describe: string,
  probe: () => Promise<T | undefined> | T | undefined,
  { timeoutMs = 60_000, intervalMs = 100 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const reason = lastError instanceof Error ? `; last error: ${lastError.message}` : '';
      throw new Error(`timed out waiting for ${describe}${reason}`);
    }
    await delay(intervalMs);
  }
}
