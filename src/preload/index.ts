/**
 * Sandboxed preload: exposes exactly the contract, plus the dropped-file path reader, as `window.retrace`.
 * Bundled to one CommonJS file.
 */
import { contextBridge, ipcRenderer, webUtils } from 'electron';
import { buildRetraceApi } from './api';

contextBridge.exposeInMainWorld('retrace', buildRetraceApi(ipcRenderer, webUtils));
