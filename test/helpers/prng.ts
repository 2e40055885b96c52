/** A small seeded PRNG (mulberry32) so randomised trials are reproducible from the printed seed. */
export interface Prng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max]. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
}

export function prng(seed: number): Prng {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)]!,
  };
}

/** Seed from RETRACE_TEST_SEED when set (to replay a failure), else a fixed default. */
export function testSeed(fallback: number): number {
  const env = process.env.RETRACE_TEST_SEED;
  return env && /^\d+$/.test(env) ? Number(env) : fallback;
}
