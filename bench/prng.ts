/**
 * A small seeded PRNG (splitmix32 to seed, xorshift128 to draw), so a seed always yields the same workspace and
 * the same sequence of edits on every machine. Not for cryptography.
 */
export class Prng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  constructor(seed: number) {
    let x = seed >>> 0;
    const next = (): number => {
      x = (x + 0x9e3779b9) >>> 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.s0 = next() || 1;
    this.s1 = next();
    this.s2 = next();
    this.s3 = next();
  }

  /** A uniform 32-bit unsigned integer. */
  u32(): number {
    let t = this.s3;
    const s = this.s0;
    this.s3 = this.s2;
    this.s2 = this.s1;
    this.s1 = s;
    t ^= t << 11;
    t ^= t >>> 8;
    this.s0 = (t ^ s ^ (s >>> 19)) >>> 0;
    return this.s0;
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.u32() / 4294967296;
  }

  /** Uniform integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.float() * (max - min + 1));
  }

  /** Log-uniform integer in [min, max]: many small values, a long tail — like file sizes in a project. */
  logInt(min: number, max: number): number {
    return Math.round(Math.exp(Math.log(min) + this.float() * (Math.log(max) - Math.log(min))));
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.float() * items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }

  /** `size` incompressible bytes. */
  bytes(size: number): Buffer {
    const words = new Uint32Array(Math.ceil(size / 4));
    for (let i = 0; i < words.length; i++) words[i] = this.u32();
    return Buffer.from(words.buffer, 0, size);
  }
}

/** A stable 32-bit seed derived from a base seed and a label (e.g. "edit-17"). */
export function deriveSeed(seed: number, label: string): number {
  let h = (seed ^ 0x811c9dc5) >>> 0;
  for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}
