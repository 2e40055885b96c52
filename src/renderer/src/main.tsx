// First: the bridge opens the serve socket as soon as it is evaluated, before React and the app are.
import { api, desktop } from './bridge';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import './styles.css';
import { App } from './components/App';
import { installFolderDrop } from './folderDrop';
import { boot, openFolder, useStore } from './store';

if (desktop) {
  const bridge = desktop;
  installFolderDrop(window, {
    pathForFile: (file) => bridge.pathForFile(file),
    showsFolder: () => useStore.getState().workspace !== null,
    openHere: openFolder,
    openInAnotherWindow: async (path) => {
      const r = await api.openWorkspace({ path });
      if (!r.ok) useStore.setState({ error: r.error });
    },
  });
}

// Asked before React's first render, not after it: the answer (the folder and its first view) is on its way
// while the page renders its "Loading…".
void boot();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
