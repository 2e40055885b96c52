import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import './styles.css';
import { App } from './components/App';
import { api, desktop } from './bridge';
import { installFolderDrop } from './folderDrop';
import { openFolder, useStore } from './store';

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

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
