/**
 * Claude Code versions the importer knows. A transcript written by a newer one is imported as far as it is
 * understood, with a warning saying so (its format may have changed in ways this importer cannot see).
 */

/** The newest Claude Code version whose transcript shapes this importer was checked against (FORMATS.md). */
export const NEWEST_KNOWN_VERSION = '2.1.220';

/** Compare dotted versions numerically ('2.1.114' > '2.1.50'); non-numeric parts compare as 0. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((s) => Number.parseInt(s, 10) || 0);
  const pb = b.split(/[.-]/).map((s) => Number.parseInt(s, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
