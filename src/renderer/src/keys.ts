/**
 * ←/→ and j/k move checkpoint by checkpoint wherever focus is (a radio, a button, the Sessions drop-down, the
 * slider), except where typing or an open pop-up needs them: a text field, Monaco, an open menu or listbox.
 * Listening in the capture phase, so a focused control never gets to turn the arrow into its own move (a radio
 * switching the compare mode, a closed drop-down changing the session).
 */
import { move } from './store';

const TEXT_INPUT_TYPES = new Set(['text', 'search', 'email', 'number', 'password', 'tel', 'url', 'date', 'time']);

export function checkpointDelta(key: string): 1 | -1 | 0 {
  if (key === 'ArrowRight' || key === 'j') return 1;
  if (key === 'ArrowLeft' || key === 'k') return -1;
  return 0;
}

/** Whether the focused element needs the key for itself: typing, or moving inside an open pop-up. */
export function keepsKeys(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement) return true;
  if (target instanceof HTMLInputElement && TEXT_INPUT_TYPES.has(target.type)) return true;
  // Monaco (read-only here, but its cursor moves with the arrows and it has its own find box).
  if (target.closest('.monaco-editor')) return true;
  // An open menu or listbox (a custom one; a native <select>'s open pop-up never sends keys to the page), or
  // another open pop-up that marks itself (the Session list).
  if (target.closest('[role="menu"], [role="listbox"], [role="combobox"][aria-expanded="true"], [data-popup]'))
    return true;
  return false;
}

export function installCheckpointKeys(): () => void {
  const onKey = (e: KeyboardEvent) => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || e.shiftKey || e.isComposing) return;
    const delta = checkpointDelta(e.key);
    if (delta === 0 || keepsKeys(e.target)) return;
    e.preventDefault();
    e.stopPropagation();
    move(delta, { focus: true });
  };
  window.addEventListener('keydown', onKey, { capture: true });
  return () => window.removeEventListener('keydown', onKey, { capture: true });
}
