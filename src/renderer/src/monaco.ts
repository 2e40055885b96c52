/**
 * Monaco from the local package (never a CDN), cut down to what a read-only diff viewer uses: the editor API
 * (not `monaco-editor`'s main entry, which loads every editing feature and the TypeScript, JSON, CSS and HTML
 * language services with their workers), the Monarch grammars for syntax colouring (each language's grammar is
 * a lazy chunk, fetched when a file of that language is first shown), and the one editor worker. Without that
 * worker the diff editor never computes a diff, so this module must run before any editor is created.
 */
import * as monaco from 'monaco-editor/editor/editor.api';
import 'monaco-editor/basic-languages/monaco.contribution';
// The few editor features a reviewer uses; each is one of Monaco's own `features/<name>/register` entries.
import 'monaco-editor/features/codicon/register'; // the icon font (diff gutter, find widget)
import 'monaco-editor/features/diffEditor/register'; // next/previous change, the accessible diff viewer
import 'monaco-editor/features/find/register'; // Find in a diff (Ctrl/Cmd+F)
import 'monaco-editor/features/wordOperations/register'; // Ctrl/Alt+arrows move by word
import 'monaco-editor/features/readOnlyMessage/register'; // "cannot edit" instead of silence on typing
import EditorWorker from 'monaco-editor/editor/editor.worker?worker';

self.MonacoEnvironment = {
  // No language service is loaded, so the editor worker (diff computation, links) is the only one ever asked for.
  getWorker: (): Worker => new EditorWorker(),
};

/** Monaco's language id for a file name (by extension or exact file name), "plaintext" if none. */
export function languageForPath(path: string): string {
  const base = path.split('/').pop() ?? path;
  const lower = base.toLowerCase();
  let best = 'plaintext';
  let bestLen = 0;
  for (const lang of monaco.languages.getLanguages()) {
    if (lang.filenames?.some((f) => f.toLowerCase() === lower)) return lang.id;
    for (const ext of lang.extensions ?? []) {
      const e = ext.toLowerCase();
      if (lower.endsWith(e) && e.length > bestLen) {
        best = lang.id;
        bestLen = e.length;
      }
    }
  }
  return best;
}

export { monaco };

/**
 * Monaco adds two empty role="alert" live regions to the page. The page's own alert (errors) must be the only
 * `alert`, so turn Monaco's into plain assertive live regions: screen readers announce them the same way.
 */
export function quietMonacoAlerts(): void {
  for (const el of document.querySelectorAll('.monaco-aria-container [role="alert"]')) {
    el.removeAttribute('role');
    el.setAttribute('aria-live', 'assertive');
  }
}
