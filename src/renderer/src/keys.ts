/** ←/→ and j/k move checkpoint by checkpoint anywhere outside a text field or a control that uses arrows. */
import { move } from './store';

function usesKeysItself(target: EventTarget | null, key: string): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  // The checkpoint slider moves itself with the arrows; j/k still mean the same there.
  if (target instanceof HTMLInputElement && target.type === 'range') return key !== 'j' && key !== 'k';
  // Inputs (text, the slider, radios) and selects handle their own arrow keys; Monaco's input is a textarea.
  if (target.closest('input, textarea, select, .monaco-editor')) return true;
  return false;
}

export function installCheckpointKeys(): () => void {
  const onKey = (e: KeyboardEvent) => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || usesKeysItself(e.target, e.key)) return;
    const delta = e.key === 'ArrowRight' || e.key === 'j' ? 1 : e.key === 'ArrowLeft' || e.key === 'k' ? -1 : 0;
    if (delta === 0) return;
    e.preventDefault();
    move(delta);
  };
  window.addEventListener('keydown', onKey);
  return () => window.removeEventListener('keydown', onKey);
}
