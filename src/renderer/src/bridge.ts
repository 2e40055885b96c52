/**
 * The renderer's only way to the main process: window.retrace (Electron preload) when present, else the
 * `retrace serve` WebSocket next to the page (/<token>/ws, relative to the page URL that carries the token).
 */
import type { DesktopBridge, RetraceApi } from '../../shared/contract';
import { createWsApi, type Connection } from './wsClient';

declare global {
  interface Window {
    retrace?: DesktopBridge;
  }
}

function serveSocketUrl(): string {
  const url = new URL('ws', window.location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.search = '';
  url.hash = '';
  return url.href;
}

/** In Electron the IPC never drops. */
const alwaysConnected: Connection = { state: () => 'connected', subscribe: () => () => undefined };

const served = window.retrace ? null : createWsApi(serveSocketUrl());
// The handshake runs while the rest of the page's script is evaluated (main.tsx imports this module first), so the
// first request finds the socket open.
served?.open();
export const api: RetraceApi = window.retrace ?? served!.api;
export const connection: Connection = served?.connection ?? alwaysConnected;

/** The desktop app's extras (a dropped folder's path); null under `retrace serve`. */
export const desktop: DesktopBridge | null = window.retrace ?? null;
