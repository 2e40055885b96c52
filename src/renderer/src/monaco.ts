/**
 * Monaco from the local package (never a CDN), with its web workers bundled by Vite. Without the editor
 * worker the diff editor never computes a diff, so this module must run before any editor is created.
 */
import * as monaco from 'monaco-editor';
import EditorWorker from 'monaco-editor/editor/editor.worker?worker';
import JsonWorker from 'monaco-editor/languages/features/json/json.worker?worker';
import CssWorker from 'monaco-editor/languages/features/css/css.worker?worker';
import HtmlWorker from 'monaco-editor/languages/features/html/html.worker?worker';
import TsWorker from 'monaco-editor/languages/features/typescript/ts.worker?worker';

self.MonacoEnvironment = {
  getWorker(_workerId: string, label: string): Worker {
    switch (label) {
      case 'json':
        return new JsonWorker();
      case 'css':
      case 'scss':
      case 'less':
        return new CssWorker();
      case 'html':
      case 'handlebars':
      case 'razor':
        return new HtmlWorker();
      case 'typescript':
      case 'javascript':
        return new TsWorker();
      default:
        return new EditorWorker();
    }
  },
};

// A snapshot is not a project: the TypeScript service would only add "cannot find module" noise, and its
// worker would compete with the diff worker for the CPU on every file switched to. Colours come from the
// Monarch grammars, which need no worker.
const quiet = { noSemanticValidation: true, noSyntaxValidation: true, noSuggestionDiagnostics: true };
const noLanguageService = {
  completionItems: false,
  hovers: false,
  documentSymbols: false,
  definitions: false,
  references: false,
  documentHighlights: false,
  rename: false,
  diagnostics: false,
  documentRangeFormattingEdits: false,
  signatureHelp: false,
  onTypeFormattingEdits: false,
  codeActions: false,
  inlayHints: false,
};
for (const defaults of [monaco.typescript.typescriptDefaults, monaco.typescript.javascriptDefaults]) {
  defaults.setDiagnosticsOptions(quiet);
  defaults.setModeConfiguration(noLanguageService);
}

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
