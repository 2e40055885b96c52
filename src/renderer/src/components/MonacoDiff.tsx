/**
 * The diff editor (Monaco), in a chunk of its own: Monaco is most of the renderer's JavaScript, and the first
 * view (the timeline) does not need it, so it loads while the timeline shows (lazyViews.tsx, DiffView.tsx).
 */
import { useEffect, useLayoutEffect, useRef } from 'react';
import type { FileContents } from '../../../shared/model';
import { languageForPath, monaco, quietMonacoAlerts } from '../monaco';
import { markDiffShown } from '../perf';
import { setLineChanges } from '../store/revert';
import { useDarkMode } from '../useColorScheme';

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
export function MonacoDiff(props: {
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
  const dark = useDarkMode();

  useEffect(() => {
    monaco.editor.setTheme(dark ? 'vs-dark' : 'vs');
  }, [dark]);

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
