import { useEffect } from 'react';
import type { BlameLine } from '../../../shared/model';
import { select, selectSession, useStore } from '../store';
import { loadBlame, useBlame, type StepWords } from '../store/blame';

/**
 * Who last changed each line of the selected file as it is now: a gutter per line (step, prompt or agent),
 * whose hover shows the prompt and the step, and whose click selects that checkpoint in the timeline.
 */
export function BlameView() {
  const workspace = useStore((s) => s.workspace?.id ?? null);
  const path = useStore((s) => s.selectedPath);
  // Reload when the file's content or the timeline changes (a new checkpoint, a restore).
  const fileKey = useStore((s) => s.fileKey);
  const checkpoints = useStore((s) => s.checkpoints.length);
  const { lines, text, words, error } = useBlame();

  useEffect(() => {
    if (workspace && path) void loadBlame(workspace, path);
  }, [workspace, path, fileKey, checkpoints]);

  if (!path) return null;
  return (
    <section className="blame" aria-label={`Blame of ${path}`}>
      <p className="blame-note">Who last changed each line of {path} as it is now.</p>
      {error && (
        <p className="diff-notice">
          Could not blame {path}: {error.message} ({error.code})
        </p>
      )}
      {!error && !lines && <p className="diff-notice">Loading the blame…</p>}
      {lines && (
        <ol className="blame-lines" aria-label="Blame lines">
          {lines.map((l) => (
            <li key={l.line} className={`blame-line blame-${l.origin}`}>
              <GutterCell line={l} words={l.message ? words[l.message] : undefined} />
              <span className="blame-no" aria-hidden="true">
                {l.line}
              </span>
              <code className="blame-text">{text?.[l.line - 1] ?? ''}</code>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

function GutterCell({ line, words }: { line: BlameLine; words: StepWords | undefined }) {
  const stepNo = useStore((s) => {
    if (!line.hash || line.session !== s.sessionId) return -1;
    return s.checkpoints.findIndex((c) => c.hash === line.hash);
  });
  const label = gutterLabel(line, stepNo);
  if (!line.hash) {
    return (
      <span className="blame-gutter" title={label}>
        {label}
      </span>
    );
  }
  const hover = [
    words?.prompt ? `Prompt: ${firstLine(words.prompt)}` : null,
    words ? `Step: ${firstLine(words.step)}` : null,
    `Checkpoint ${line.hash.slice(0, 7)}${line.session ? ` in ${line.session}` : ''}`,
  ]
    .filter(Boolean)
    .join('\n');
  return (
    <button
      type="button"
      className="blame-gutter"
      title={hover}
      aria-label={`Line ${line.line}: ${label}. ${hover.replace(/\n/g, '. ')}`}
      onClick={() => void jumpTo(line)}
    >
      {label}
    </button>
  );
}

/** "Step 3 · claude-code", "Step 2 · prompt", "baseline", "not saved yet". */
function gutterLabel(l: BlameLine, stepNo: number): string {
  if (l.origin === 'baseline') return 'baseline';
  if (!l.hash) return 'not saved yet';
  const step = stepNo >= 0 ? `Step ${stepNo + 1}` : l.hash.slice(0, 7);
  const who = l.origin === 'agent' ? (l.agent ?? 'agent') : l.role === 'user' ? 'prompt' : 'person';
  return `${step} · ${who}`;
}

function firstLine(s: string): string {
  const line = s.trim().split('\n')[0] ?? '';
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}

/** Select the line's checkpoint in the timeline (switching session first when it is another session's). */
async function jumpTo(l: BlameLine): Promise<void> {
  if (!l.hash) return;
  if (l.session && l.session !== useStore.getState().sessionId) await selectSession(l.session);
  const i = useStore.getState().checkpoints.findIndex((c) => c.hash === l.hash);
  if (i >= 0) select(i);
}
