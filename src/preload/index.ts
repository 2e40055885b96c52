/** Sandboxed preload: exposes exactly the contract as `window.retrace`. Bundled to one CommonJS file. */
import { contextBridge, ipcRenderer } from 'electron';
import { buildRetraceApi } from './api';

contextBridge.exposeInMainWorld('retrace', buildRetraceApi(ipcRenderer));
