/** The conformance rows as text: one line per file, then the totals. */
import type { ConformanceRow } from './check';

export function formatRows(rows: ConformanceRow[]): string {
  const head = [
    'file',
    'typed file/shown',
    'newest shown',
    'hidden rewind/other',
    'edits file: rebuilt/missing/rewound/UNACCOUNTED',
    'ms',
    'peak RSS MB',
    'verdict',
  ];
  const lines = rows.map((r) => [
    r.file,
    `${r.typedInFile}/${r.typedShown}`,
    r.newestShown === null ? 'n/a' : r.newestShown ? 'yes' : 'NO',
    `${r.hiddenRewind}/${r.hiddenOther}`,
    `${r.edits.inFile}: ${r.edits.rebuilt}/${r.edits.missing}/${r.edits.onRewound}/${r.edits.unaccounted}`,
    String(r.ms),
    String(r.peakRssMb),
    r.problems.length > 0 ? `FAIL: ${r.problems.join('; ')}` : r.error ? `ok (not imported: ${r.error})` : 'ok',
  ]);
  const sum = (f: (r: ConformanceRow) => number) => rows.reduce((a, r) => a + f(r), 0);
  const total = [
    `TOTAL (${rows.length} transcripts)`,
    `${sum((r) => r.typedInFile)}/${sum((r) => r.typedShown)}`,
    `${sum((r) => (r.newestShown === false ? 1 : 0))} not shown`,
    `${sum((r) => r.hiddenRewind)}/${sum((r) => r.hiddenOther)}`,
    `${sum((r) => r.edits.inFile)}: ${sum((r) => r.edits.rebuilt)}/${sum((r) => r.edits.missing)}/${sum((r) => r.edits.onRewound)}/${sum((r) => r.edits.unaccounted)}`,
    String(sum((r) => r.ms)),
    String(Math.max(0, ...rows.map((r) => r.peakRssMb))),
    `${sum((r) => (r.problems.length > 0 ? 1 : 0))} failing`,
  ];
  return [head, ...lines, total].map((cols) => cols.join(' | ')).join('\n');
}
