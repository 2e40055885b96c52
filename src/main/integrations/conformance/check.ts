/**
 * The conformance check of one transcript: import it with the real importer into a throwaway data home and
 * workspace, read the session back, and compare with what the raw file holds (rawClaude.ts). A file passes
 * when its newest message is shown, every successful edit is rebuilt or reported, and nothing is hidden
 * except on a real rewind.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { resolveWorkspace } from '../../engine/workspace';
import { WorkspaceEngine } from '../../engine/workspaceEngine';
import { findAgentFiles, importClaudeCodeDetailed } from '../claude-code/import';
import { auditClineTask } from '../cline/audit';
import { importCline } from '../cline/import';
import { countClaudeTranscript } from './rawClaude';

export interface ConformanceRow {
  file: string;
  agent: 'claude-code' | 'cline';
  /** Set when the import refused the file (the message says why); the other numbers are then zero. */
  error?: string;
  typedInFile: number;
  typedShown: number;
  newestShown: boolean | null;
  hiddenRewind: number;
  hiddenOther: number;
  /** Places in the raw file where a typed prompt was sent again (rewinds the hidden lines can come from). */
  resentPoints: number;
  edits: { inFile: number; rebuilt: number; missing: number; onRewound: number; unaccounted: number };
  ms: number;
  peakRssMb: number;
  problems: string[];
}

function emptyRow(file: string, agent: ConformanceRow['agent']): ConformanceRow {
  return {
    file,
    agent,
    typedInFile: 0,
    typedShown: 0,
    newestShown: null,
    hiddenRewind: 0,
    hiddenOther: 0,
    resentPoints: 0,
    edits: { inFile: 0, rebuilt: 0, missing: 0, onRewound: 0, unaccounted: 0 },
    ms: 0,
    peakRssMb: 0,
    problems: [],
  };
}

/** Runs `fn` while sampling the process's resident memory; returns its result, the time and the peak. */
async function measured<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number; peakRssMb: number }> {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const t0 = performance.now();
  try {
    const value = await fn();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { value, ms: Math.round(performance.now() - t0), peakRssMb: Math.round(peak / 2 ** 20) };
  } finally {
    clearInterval(timer);
  }
}

/** Claude Code's config folder for a transcript under `<config>/projects/<folder>/`, for its file-history. */
function configDirOf(file: string, fallback: string): string {
  const project = dirname(file);
  return basename(dirname(project)) === 'projects' ? dirname(dirname(project)) : fallback;
}

export async function checkClaudeTranscript(file: string): Promise<ConformanceRow> {
  const tmp = mkdtempSync(join(tmpdir(), 'retrace-conformance-'));
  const row = emptyRow(file, 'claude-code');
  try {
    const raw = await countClaudeTranscript(
      file,
      findAgentFiles(file).map((a) => a.path),
    );
    row.typedInFile = raw.typedPrompts;
    row.resentPoints = raw.resentPoints;
    row.edits.inFile = raw.successfulEdits.size;
    const dataHome = join(tmp, 'data');
    const workspace = join(tmp, 'workspace');
    mkdirSync(workspace);
    let run;
    try {
      run = await measured(() =>
        importClaudeCodeDetailed({
          file,
          cwd: workspace,
          dataHome,
          env: { ...process.env, CLAUDE_CONFIG_DIR: configDirOf(file, join(tmp, 'claude')) },
        }),
      );
    } catch (e) {
      row.error = (e as Error).message;
      // A file with no main-thread conversation (a sub-agent's file, sidechain lines only) has nothing to show.
      if (raw.talkLines > 0) row.problems.push(`import failed: ${row.error}`);
      return row;
    }
    row.ms = run.ms;
    row.peakRssMb = run.peakRssMb;
    const { result, hiddenTalk, edits } = run.value;

    const engine = new WorkspaceEngine(await resolveWorkspace(workspace, { dataHome }));
    const visible = (await engine.sessions.read(result.session)).messages.filter((m) => !m.hidden);
    row.typedShown = visible.filter((m) => m.role === 'user').length;
    if (raw.newest) {
      const unit = new Set(raw.newest.unit);
      row.newestShown = visible.some((m) => m.meta?.sourceId !== undefined && unit.has(m.meta.sourceId));
    }
    row.hiddenRewind = hiddenTalk.rewind;
    row.hiddenOther = hiddenTalk.other;
    const accounted = new Set<string>();
    for (const e of edits) {
      if (!raw.successfulEdits.has(e.toolUseId)) continue;
      accounted.add(e.toolUseId);
      if (e.status === 'rebuilt') row.edits.rebuilt++;
      else if (e.status === 'missing') row.edits.missing++;
      else row.edits.onRewound++;
    }
    row.edits.unaccounted = [...raw.successfulEdits].filter((id) => !accounted.has(id)).length;

    if (row.newestShown === false) row.problems.push('the newest message is not shown');
    if (row.edits.unaccounted > 0) row.problems.push(`${row.edits.unaccounted} edit(s) neither rebuilt nor reported`);
    if (row.hiddenOther > 0) row.problems.push(`${row.hiddenOther} line(s) hidden without a rewind`);
    if (row.hiddenRewind > 0 && raw.resentPoints === 0)
      row.problems.push(`${row.hiddenRewind} line(s) hidden as rewound, but no prompt was ever sent again`);
    return row;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * A Cline task folder through `importCline` (its public entry point). The file's side comes from
 * `auditClineTask`, which reads ui_messages.json without the importer's code; the two meet through each
 * imported message's `meta.sourceId` (the Cline `ts`).
 */
export async function checkClineTask(taskDir: string): Promise<ConformanceRow> {
  const tmp = mkdtempSync(join(tmpdir(), 'retrace-conformance-'));
  const row = emptyRow(taskDir, 'cline');
  try {
    const audit = auditClineTask(taskDir);
    row.typedInFile = audit.typedPrompts;
    row.edits.inFile = audit.edits.length;
    const dataHome = join(tmp, 'data');
    const workspace = join(tmp, 'workspace');
    mkdirSync(workspace);
    let run;
    try {
      run = await measured(() => importCline({ taskDir, cwd: workspace, dataHome }));
    } catch (e) {
      row.error = (e as Error).message;
      row.problems.push(`import failed: ${row.error}`);
      return row;
    }
    row.ms = run.ms;
    row.peakRssMb = run.peakRssMb;
    const engine = new WorkspaceEngine(await resolveWorkspace(workspace, { dataHome }));
    const messages = (await engine.sessions.read(run.value.session)).messages;
    const visible = messages.filter((m) => !m.hidden);
    const bySource = new Map(visible.map((m) => [m.meta?.sourceId, m]));
    row.typedShown = visible.filter((m) => m.role === 'user').length;
    row.hiddenOther = run.value.hidden;
    row.newestShown = audit.newestMessage === null ? null : bySource.has(audit.newestMessage);
    for (const edit of audit.edits) {
      const m = bySource.get(edit.id);
      if (m?.meta?.reconstructed?.missing.includes(edit.path)) row.edits.missing++;
      else if (m?.hash) row.edits.rebuilt++;
      else row.edits.unaccounted++;
    }
    if (row.newestShown === false) row.problems.push('the newest message is not shown');
    if (row.hiddenOther > 0) row.problems.push(`${row.hiddenOther} message(s) hidden (Cline has no rewinds)`);
    if (row.typedShown < row.typedInFile) row.problems.push('typed prompts missing');
    if (row.edits.unaccounted > 0) row.problems.push(`${row.edits.unaccounted} edit(s) neither rebuilt nor reported`);
    return row;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
