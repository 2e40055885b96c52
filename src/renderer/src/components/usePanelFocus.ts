import { useEffect, type RefObject } from 'react';

/**
 * A panel that opens over the review (Restores, Storage, the restore preview): once open it takes focus, so a
 * screen reader reads it and Escape is at hand, and Escape closes it (`close` puts focus back on its button).
 */
export function usePanelFocus(open: boolean, focus: RefObject<HTMLElement | null>, close: () => void): void {
  useEffect(() => {
    if (!open) return;
    focus.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented) return;
      e.preventDefault();
      close();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open, focus, close]);
}
