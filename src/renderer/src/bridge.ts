/**
 * The renderer's only way to the main process: window.retrace (Electron preload) when present, else the
 * `retrace serve` WebSocket next to the page (/<token>/ws, relative to the page URL that carries the token).
 */
import type { DesktopBridge, RetraceApi } from '../../shared/contract';
import { createWsApi } from './wsClient';

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

export const api: RetraceApi = window.retrace ?? createWsApi(serveSocketUrl());

/** The desktop app's extras (a dropped folder's path); null under `retrace serve`. */
export const desktop: DesktopBridge | null = window.retrace ?? null;
