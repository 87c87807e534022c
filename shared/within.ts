/**
 * Whether `work` finished within `ms`: true once it resolves, false when the time is up first (the
 * work goes on; nothing waits for it). Rejects as `work` does. The timer holds no process open.
 */
export async function within(ms: number, work: Promise<unknown>): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([work.then(() => true), new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)).unref?.())]);
  } finally {
    clearTimeout(timer);
  }
}
