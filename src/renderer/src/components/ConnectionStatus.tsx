import { useEffect, useRef, useSyncExternalStore } from 'react';
import { connection } from '../bridge';
import { resync } from '../store';

/** While `retrace serve` is unreachable, say so; once it is back, catch up on what this tab missed. */
export function ConnectionStatus() {
  const state = useSyncExternalStore(connection.subscribe, connection.state);
  const wasDown = useRef(false);
  useEffect(() => {
    if (state !== 'connected') wasDown.current = true;
    else if (wasDown.current) {
      wasDown.current = false;
      void resync();
    }
  }, [state]);
  if (state === 'connected') return null;
  return (
    <div role="status" aria-label="Connection" className="connection">
      {state === 'reconnecting'
        ? 'Reconnecting… (lost the connection to retrace serve)'
        : 'Disconnected: retrace serve is not answering. Still trying; restart it with the same --port to continue.'}
    </div>
  );
}
