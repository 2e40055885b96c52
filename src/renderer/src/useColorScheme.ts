import { useSyncExternalStore } from 'react';

const query = () => window.matchMedia('(prefers-color-scheme: dark)');

function subscribe(onChange: () => void): () => void {
  const mq = query();
  mq.addEventListener('change', onChange);
  return () => mq.removeEventListener('change', onChange);
}

/** The OS theme, live. */
export function useDarkMode(): boolean {
  return useSyncExternalStore(subscribe, () => query().matches);
}
