import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import './monaco';
import './styles.css';
import { App } from './components/App';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
