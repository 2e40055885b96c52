/**
 * Keys of search (the hint under the scrubber lists them): `/` goes to the search box; `p` jumps to the next
 * prompt of the conversation, Shift+P to the previous one. Like the checkpoint keys (keys.ts), never while
 * typing in a field or moving in an open pop-up.
 */
import { keepsKeys } from './keys';
import { movePrompt, requestSearchFocus } from './store/search';

export function installSearchKeys(): () => void {
  const onKey = (e: KeyboardEvent) => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || e.isComposing || keepsKeys(e.target)) return;
    if (e.key === '/') requestSearchFocus();
    else if (e.key === 'p') void movePrompt(1);
    else if (e.key === 'P') void movePrompt(-1);
    else return;
    e.preventDefault();
  };
  window.addEventListener('keydown', onKey);
  return () => window.removeEventListener('keydown', onKey);
}
