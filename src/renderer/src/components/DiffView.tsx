import { useEffect, useMemo, useState } from 'react';
import { markDiffShown } from '../perf';
import { toggleInline, useStore } from '../store';
import { toggleWordWrap, useFiles } from '../store/files';
import { HunkActions } from './HunkActions';
import { useBlame } from '../store/blame';
import { svgSides } from '../svgSides';
import { BlameToggle } from './BlameToggle';
import { LazyBinaryImageDiff, LazyBlameView, LazyImageDiff, LazyMonacoDiff } from './lazyViews';
import { LazySlot } from './LazySlot';

/** The selected file's diff: Monaco side by side (or inline), or a plain notice for binary / oversized files. */
export function DiffView() {
  const summary = useStore((s) => s.summary);
  const file = useStore((s) => s.file);
  const fileKey = useStore((s) => s.fileKey);
  const selectedPath = useStore((s) => s.selectedPath);
  const inline = useStore((s) => s.inline);
  const hasCheckpoint = useStore((s) => s.selected >= 0);
  const diffError = useStore((s) => s.diffError);
  const oldPath = useStore((s) => s.summary?.files.find((f) => f.path === s.selectedPath)?.oldPath);
  const wordWrap = useFiles((s) => s.wordWrap);
  // The Blame toggle shows the selected file's blame in place of the diff (BlameView.tsx).
  const blameOn = useBlame((s) => s.on) && selectedPath !== null;

  let notice: string | null = null;
  // A binary file may be a picture: the Image diff shows it, or falls back to this notice.
  let binaryNotice: string | null = null;
  if (!hasCheckpoint) notice = 'No checkpoint selected: this session has no checkpoints yet.';
  else if (diffError && (!summary || !file))
    notice = `Could not load the diff: ${diffError.message} (${diffError.code})`;
  else if (!summary) notice = 'Loading the diff…';
  else if (summary.files.length === 0) notice = 'No files changed in this comparison.';
  else if (!file) notice = `Loading ${selectedPath ?? ''}…`;
  else if (file.binary) binaryNotice = `${file.path} is a binary file: no text diff to show.`;
  else if (file.tooLarge) notice = `${file.path} is too large to show here.`;
  const showEditor = notice === null && binaryNotice === null && file !== null;
  // An SVG is text and a picture: both show.
  const svg = useMemo(() => (showEditor && file ? svgSides(file) : null), [showEditor, file]);

  // Monaco (most of the page's JavaScript) loads once a checkpoint is selected and that first view has been
  // painted, so the timeline never waits for it; from then on the one editor stays.
  const [editorWanted, setEditorWanted] = useState(false);
  useEffect(() => {
    if (!hasCheckpoint || editorWanted) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Called just before the next paint; the timeout runs after it.
    const frame = requestAnimationFrame(() => (timer = setTimeout(() => setEditorWanted(true))));
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, [hasCheckpoint, editorWanted]);

  // A notice is the "diff shown" for binary and oversized files.
  useEffect(() => {
    if (summary && (summary.files.length === 0 || file?.binary || file?.tooLarge)) markDiffShown();
  }, [summary, file]);

  return (
    <div className="diff-pane">
      <Provenance />
      <div className="diff-toolbar">
        <span className="diff-path">{selectedPath ?? ''}</span>
        <button type="button" className="toggle" aria-pressed={inline} onClick={toggleInline}>
          Inline
        </button>
        <button type="button" className="toggle" aria-pressed={wordWrap} onClick={toggleWordWrap}>
          Word wrap
        </button>
        <BlameToggle />
      </div>
      {blameOn && (
        <LazySlot fallback={null}>
          <LazyBlameView />
        </LazySlot>
      )}
      {binaryNotice !== null && file && !blameOn && (
        <LazySlot fallback={<p className="diff-notice">{binaryNotice}</p>}>
          <LazyBinaryImageDiff
            file={file}
            contentKey={fileKey}
            notice={binaryNotice}
            {...(oldPath ? { oldPath } : {})}
          />
        </LazySlot>
      )}
      {notice !== null && !blameOn && <p className="diff-notice">{notice}</p>}
      {notice === null && !blameOn && <HunkActions />}
      {svg && !blameOn && (
        <LazySlot fallback={null}>
          <LazyImageDiff key={fileKey} sides={svg} />
        </LazySlot>
      )}
      {editorWanted && (
        <LazySlot fallback={showEditor && !blameOn ? <p className="diff-notice">Loading the diff…</p> : null}>
          <LazyMonacoDiff
            visible={showEditor && !blameOn}
            file={showEditor ? file : null}
            contentKey={fileKey}
            inline={inline}
            wordWrap={wordWrap}
          />
        </LazySlot>
      )}
    </div>
  );
}

/** Imported checkpoints say which files were rebuilt from the transcript, and which could not be. */
function Provenance() {
  const reconstructed = useStore((s) => {
    const cp = s.checkpoints[s.selected];
    return cp ? s.messages[cp.index]?.meta?.reconstructed : undefined;
  });
  if (!reconstructed) return null;
  const { files, missing } = reconstructed;
  return (
    <p className="provenance">
      {files.length > 0 && `Rebuilt from the transcript: ${files.join(', ')}.`}
      {missing.length > 0 && ` Could not rebuild: ${missing.join(', ')}.`}
    </p>
  );
}
