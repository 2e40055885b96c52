/**
 * Poll until `probe` returns a truthy value, and return it. Not a timing assertion: the limit only keeps a broken
 * run finite, and its error names what never came.
 */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  limitMs = 20_000,
): Promise<T> {
  const until = Date.now() + limitMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > until) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
