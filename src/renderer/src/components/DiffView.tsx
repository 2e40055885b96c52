import { Suspense, useEffect, useLayoutEffect, useMemo, useRef } from 'react';
import type { FileContents } from '../../../shared/model';
import { languageForPath, monaco, quietMonacoAlerts } from '../monaco';
import { markDiffShown } from '../perf';
import { toggleInline, useStore } from '../store';
import { toggleWordWrap, useFiles } from '../store/files';
import { setLineChanges } from '../store/revert';
import { HunkActions } from './HunkActions';
import { useDarkMode } from '../useColorScheme';
import { useBlame } from '../store/blame';
import { svgSides } from '../svgSides';
import { BlameToggle } from './BlameToggle';
import { LazyBinaryImageDiff, LazyBlameView, LazyImageDiff } from './lazyViews';

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
  const dark = useDarkMode();
  // The Blame toggle shows the selected file's blame in place of the diff (BlameView.tsx).
  const blameOn = useBlame((s) => s.on) && selectedPath !== null;

  useEffect(() => {
    monaco.editor.setTheme(dark ? 'vs-dark' : 'vs');
  }, [dark]);

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
        <Suspense fallback={null}>
          <LazyBlameView />
        </Suspense>
      )}
      {binaryNotice !== null && file && !blameOn && (
        <Suspense fallback={<p className="diff-notice">{binaryNotice}</p>}>
          <LazyBinaryImageDiff
            file={file}
            contentKey={fileKey}
            notice={binaryNotice}
            {...(oldPath ? { oldPath } : {})}
          />
        </Suspense>
      )}
      {notice !== null && !blameOn && <p className="diff-notice">{notice}</p>}
      {notice === null && !blameOn && <HunkActions />}
      {svg && !blameOn && (
        <Suspense fallback={null}>
          <LazyImageDiff key={fileKey} sides={svg} />
        </Suspense>
      )}
      <MonacoDiff
        visible={showEditor && !blameOn}
        file={showEditor ? file : null}
        contentKey={fileKey}
        inline={inline}
        wordWrap={wordWrap}
      />
    </div>
  );
}

/** The side's accessible name (Monaco's ariaLabel). */
function nameSide(editor: monaco.editor.ICodeEditor, label: string): void {
  if (editor.getOption(monaco.editor.EditorOption.ariaLabel) !== label) editor.updateOptions({ ariaLabel: label });
}

/** Screen readers hear both sides as read-only: Monaco (re)creates its input elements without saying so. */
function markReadOnly(host: HTMLElement): void {
  for (const input of host.querySelectorAll('[role="textbox"], textarea')) {
    if (input.getAttribute('aria-readonly') !== 'true') input.setAttribute('aria-readonly', 'true');
  }
}

function disposeModels(pair: monaco.editor.IDiffEditorModel): void {
  for (const m of [pair.original, pair.modified]) if (!m.isDisposed()) m.dispose();
}

/** One long-lived diff editor; each file swaps in fresh models (and disposes the old ones). */
function MonacoDiff(props: {
  visible: boolean;
  file: FileContents | null;
  contentKey: string | null;
  inline: boolean;
  wordWrap: boolean;
}) {
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<monaco.editor.IStandaloneDiffEditor | null>(null);
  const shownFile = useRef<FileContents | null>(null);
  const oneSide = !props.file
    ? null
    : props.file.before === null
      ? 'added'
      : props.file.after === null
        ? 'deleted'
        : null;
  const pendingKey = useRef<string | null>(null);

  useLayoutEffect(() => {
    const el = host.current!;
    const ed = monaco.editor.createDiffEditor(el, {
      readOnly: true,
      originalEditable: false,
      // Named per side and file below, and marked read-only there (Monaco's EditContext input says neither).
      // Its <textarea> input (editContext: false) would say "read-only" itself, but costs the keypress → diff
      // path about 2× (measured in e2e/perf.spec.ts).
      domReadOnly: true,
      originalAriaLabel: 'Before',
      modifiedAriaLabel: 'After',
      automaticLayout: true,
      renderSideBySide: true,
      useInlineViewWhenSpaceIsLimited: false,
      minimap: { enabled: false },
      scrollBeyondLastLine: false,
      renderOverviewRuler: false,
      fontSize: 13,
      ignoreTrimWhitespace: false,
      // Long files: fold the unchanged stretches (expandable), so a step's few changed lines are what you see.
      hideUnchangedRegions: { enabled: true, contextLineCount: 4, minimumLineCount: 6, revealLineCount: 20 },
    });
    editor.current = ed;
    quietMonacoAlerts();
    const sub = ed.onDidUpdateDiff(() => {
      if (pendingKey.current === null) return;
      // A new file opens at its first change, not at line 1.
      if (el.dataset.shownKey !== pendingKey.current) ed.revealFirstDiff();
      el.dataset.shownKey = pendingKey.current;
      markReadOnly(el);
      markDiffShown();
      setLineChanges(pendingKey.current, ed.getLineChanges());
    });
    return () => {
      sub.dispose();
      const model = ed.getModel();
      ed.dispose();
      if (model) disposeModels(model);
      editor.current = null;
    };
  }, []);

  useEffect(() => {
    // An added or deleted file shows side by side with its empty side hidden: Monaco would otherwise show the
    // empty side's one line as a removed (or added) line, a phantom "1 −" / "1 +".
    editor.current?.updateOptions({ renderSideBySide: !props.inline || oneSide !== null });
  }, [props.inline, oneSide]);

  useEffect(() => {
    editor.current?.updateOptions({ wordWrap: props.wordWrap ? 'on' : 'off' });
  }, [props.wordWrap]);

  // Swap models only when a different answer arrives (the same key can come back with new content after a
  // restore, when "working" changed).
  const { file, contentKey } = props;
  useEffect(() => {
    const ed = editor.current;
    if (!ed || !file || file === shownFile.current) return;
    shownFile.current = file;
    const old = ed.getModel();
    const language = languageForPath(file.path);
    pendingKey.current = contentKey;
    delete host.current!.dataset.shownKey;
    nameSide(ed.getOriginalEditor(), `Before: ${file.path}`);
    nameSide(ed.getModifiedEditor(), `After: ${file.path}`);
    ed.setModel({
      original: monaco.editor.createModel(file.before ?? '', language),
      modified: monaco.editor.createModel(file.after ?? '', language),
    });
    // Not at once: a diff of the old pair may still be computing in the worker, and it fails loudly when its
    // models vanish under it.
    if (old) setTimeout(() => disposeModels(old), 5000);
  }, [file, contentKey]);

  return (
    <div
      className="monaco-host"
      ref={host}
      hidden={!props.visible}
      data-one-side={oneSide ?? undefined}
      data-testid="diff-editor"
    />
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
