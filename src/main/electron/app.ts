/**
 * The desktop app: one service (the same one `retrace serve` and the CLI use), one window per folder, the
 * contract over IPC, the service's live events forwarded to the windows that show that workspace.
 */
import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  Menu,
  nativeTheme,
  protocol,
  session,
  shell,
  type IpcMainInvokeEvent,
} from 'electron';
import { mkdirSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EVENT_CHANNEL, type ApiMethod, type InitInfo } from '../../shared/contract';
import type { ErrorInfo } from '../../shared/errors';
import type { RetraceEvent, WorkspaceInfo } from '../../shared/model';
import { ok, type Result } from '../../shared/result';
import { resolveDataHome } from '../engine/dataHome';
import { readStaticFile } from '../serve/staticFiles';
import { createService, type RetraceService } from '../service';
import { registerIpc } from './ipc';
import { foldersFromLaunchRequest, launchRequest } from './launch';
import { menuTemplate } from './menu';
import { electronPaths } from './paths';
import { quitAfterShutdown } from './quit';
import { messageOf, reportToStderr, settle, type Report } from './report';
import {
  APP_ENTRY_URL,
  APP_SCHEME,
  CONTENT_SECURITY_POLICY,
  appOrigins,
  createHardenedWindow,
  injectedContentSecurityPolicy,
  isAppUrl,
} from './window';

interface WindowState {
  win: BrowserWindow;
  workspace: WorkspaceInfo | null;
  openError?: ErrorInfo;
}

const here = dirname(fileURLToPath(import.meta.url));
const PRELOAD = join(here, '../preload/index.cjs');
const RENDERER_DIR = join(here, '../renderer');
// Set by `electron-vite dev` only; an empty value (an exported but blank variable) means no dev server.
const DEV_URL = process.env.ELECTRON_RENDERER_URL || undefined;
const ORIGINS = appOrigins(DEV_URL);

/** A failure the user asked for (opening a folder): on stderr, and in a dialog since no window may show it. */
const reportToUser: Report = (what, error) => {
  reportToStderr(what, error);
  dialog.showErrorBox('Retrace', `${what}: ${messageOf(error)}`);
};

export function startApp(): void {
  // The app and the CLI share one data directory; Chromium's profile goes to a folder of its own inside it.
  // setPath throws for a folder that does not exist yet (first run), and must happen before 'ready'.
  const dataHome = resolveDataHome();
  for (const [name, path] of Object.entries(electronPaths(dataHome)) as ['userData' | 'sessionData', string][]) {
    mkdirSync(path, { recursive: true });
    app.setPath(name, path);
  }
  // DevTools and the reload items exist only for an unpackaged (development) run.
  const devTools = !app.isPackaged;
  protocol.registerSchemesAsPrivileged([
    {
      scheme: APP_SCHEME,
      privileges: { standard: true, secure: true, supportFetchAPI: true, corsEnabled: true, codeCache: true },
    },
  ]);

  if (!app.requestSingleInstanceLock(launchRequest(process.argv, process.cwd(), app.isPackaged))) {
    // Another Retrace is running: it receives our folders as the 'second-instance' event's additionalData.
    app.quit();
    return;
  }

  const windows = new Map<number, WindowState>();
  let service: RetraceService;
  /** Paths macOS asked us to open ('open-file') before 'ready'. */
  const openedBeforeReady: string[] = [];

  /** The folders among `paths` (files are not ours to open); a path that cannot be read is reported. */
  async function foldersAmong(paths: readonly string[]): Promise<string[]> {
    const folders: string[] = [];
    for (const path of paths) {
      try {
        if ((await stat(path)).isDirectory()) folders.push(path);
      } catch (error) {
        reportToUser(`opening ${path}`, error);
      }
    }
    return folders;
  }

  const stateOf = (event: IpcMainInvokeEvent) => windows.get(event.sender.id);
  const windowFor = (workspaceId: string) => [...windows.values()].find((w) => w.workspace?.id === workspaceId);

  function send(state: WindowState, event: RetraceEvent): void {
    if (!state.win.isDestroyed()) state.win.webContents.send(EVENT_CHANNEL, event);
  }

  function newWindow(workspace: WorkspaceInfo | null, openError?: ErrorInfo): WindowState {
    const win = createHardenedWindow(BrowserWindow, {
      preloadPath: PRELOAD,
      title: workspace ? `${workspace.name} — Retrace` : 'Retrace',
      dark: nativeTheme.shouldUseDarkColors,
      devTools,
    });
    const state: WindowState = { win, workspace, ...(openError ? { openError } : {}) };
    const id = win.webContents.id;
    windows.set(id, state);
    win.on('closed', () => windows.delete(id));
    settle(win.loadURL(DEV_URL ?? APP_ENTRY_URL), 'loading the window');
    return state;
  }

  /** Open a folder: focus its window if one shows it, else reuse an empty window, else a new one. */
  async function openFolder(
    path: string,
    into?: WindowState,
    opts: { fromRenderer?: boolean } = {},
  ): Promise<Result<WorkspaceInfo>> {
    const r = (await service.dispatch('openWorkspace', { path })) as Result<WorkspaceInfo>;
    if (!r.ok) {
      if (!into) newWindow(null, r.error);
      else if (!opts.fromRenderer) dialog.showErrorBox('Cannot open folder', `${r.error.message} (${r.error.code})`);
      return r;
    }
    const existing = windowFor(r.value.id);
    if (existing) {
      if (existing.win.isMinimized()) existing.win.restore();
      existing.win.focus();
    } else if (into && !into.workspace) {
      into.workspace = r.value;
      into.win.setTitle(`${r.value.name} — Retrace`);
      // Opened by the menu or a drop: the page is still on its "Open folder" screen, and init now answers
      // with this folder. (A request from the page itself shows the folder from the answer.)
      if (!opts.fromRenderer) into.win.webContents.reload();
    } else {
      newWindow(r.value);
    }
    app.addRecentDocument(r.value.root);
    settle(refreshMenu(), 'updating the menu');
    return r;
  }

  /** Folders from a launch (absolute paths): each in its window; with none, make sure a window is open. */
  async function openLaunchFolders(folders: readonly string[]): Promise<void> {
    if (folders.length === 0) {
      if (windows.size === 0) newWindow(null);
      return;
    }
    for (const path of folders) {
      const r = (await service.dispatch('openWorkspace', { path })) as Result<WorkspaceInfo>;
      if (!r.ok) newWindow(null, r.error);
      else await openFolder(r.value.root);
    }
  }

  async function pickFolder(parent?: BrowserWindow): Promise<string | null> {
    const opts = {
      title: 'Open a project folder',
      properties: ['openDirectory', 'createDirectory'] as ('openDirectory' | 'createDirectory')[],
    };
    const r = parent ? await dialog.showOpenDialog(parent, opts) : await dialog.showOpenDialog(opts);
    return r.canceled ? null : (r.filePaths[0] ?? null);
  }

  async function refreshMenu(): Promise<void> {
    const recent = await service.dispatch('recentWorkspaces', {});
    const focused = () => BrowserWindow.getFocusedWindow();
    const template = menuTemplate({
      platform: process.platform,
      appName: app.name,
      recent: recent.ok ? (recent.value as string[]) : [],
      focused,
      devTools,
      actions: {
        openFolder: () => {
          const win = focused();
          const into = win ? windows.get(win.webContents.id) : undefined;
          settle(
            pickFolder(win ?? undefined).then((p) => (p ? openFolder(p, into) : null)),
            'opening a folder',
            reportToUser,
          );
        },
        openRecent: (p) => {
          const win = focused();
          settle(openFolder(p, win ? windows.get(win.webContents.id) : undefined), `opening ${p}`, reportToUser);
        },
        send: (command) => {
          const win = focused();
          const state = win ? windows.get(win.webContents.id) : undefined;
          if (state) send(state, { type: 'command', command });
        },
      },
    });
    Menu.setApplicationMenu(Menu.buildFromTemplate(template));
  }

  /** The per-window answers: what this window shows, its dialog, and opening a folder into it. */
  function hostMethod(method: ApiMethod, event: IpcMainInvokeEvent, rawArgs: unknown): Promise<Result<unknown>> | null {
    const state = stateOf(event);
    switch (method) {
      case 'init': {
        const info: InitInfo = {
          host: 'electron',
          workspace: state?.workspace ?? null,
          platform: process.platform,
          ...(state?.openError ? { openError: state.openError } : {}),
        };
        return Promise.resolve(ok(info));
      }
      case 'pickFolder':
        return pickFolder(state?.win).then((p) => ok(p));
      case 'openWorkspace': {
        const path = (rawArgs as { path?: unknown } | null)?.path;
        if (typeof path !== 'string') return null; // let the service's validation answer
        return openFolder(path, state, { fromRenderer: true }).then((r) => {
          // The folder is shown by another window: bring that one forward and close this empty one.
          if (r.ok && state && state.workspace?.id !== r.value.id && !state.workspace)
            setImmediate(() => state.win.close());
          return r;
        });
      }
      default:
        return null;
    }
  }

  const start = app.whenReady().then(async () => {
    // Nothing the page asks for (camera, notifications, clipboard-read …) is granted.
    // The one exception: writing text to the clipboard ("Copy command" for `claude --resume`).
    const allowed = (permission: string) => permission === 'clipboard-sanitized-write';
    session.defaultSession.setPermissionRequestHandler((_wc, permission, callback) => callback(allowed(permission)));
    session.defaultSession.setPermissionCheckHandler((_wc, permission) => allowed(permission));
    protocol.handle(APP_SCHEME, async (request) => {
      const url = new URL(request.url);
      const file = url.host === 'app' ? await readStaticFile(RENDERER_DIR, url.pathname) : null;
      if (!file) return new Response('not found', { status: 404 });
      return new Response(new Uint8Array(file.body), {
        headers: {
          'Content-Type': file.type,
          'Content-Security-Policy': CONTENT_SECURITY_POLICY,
          'X-Content-Type-Options': 'nosniff',
        },
      });
    });
    if (DEV_URL) {
      // Under `electron-vite dev` the page comes from Vite's server, whose inline preamble the production
      // policy would block: its pages get the dev policy, and nothing else is touched.
      const devUrl = DEV_URL;
      session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
        const policy = injectedContentSecurityPolicy(details.url, devUrl);
        if (!policy) return callback({});
        callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [policy] } });
      });
    }

    service = createService({
      host: 'electron',
      dataHome: resolveDataHome(),
      pickFolder: () => pickFolder(BrowserWindow.getFocusedWindow() ?? undefined),
      openPath: (path) => shell.openPath(path),
    });
    registerIpc(ipcMain, {
      dispatch: (m, a) => service.dispatch(m, a),
      isTrustedUrl: (url) => isAppUrl(url, ORIGINS),
      hostMethod,
    });
    // Live follow: each event goes to the window showing that workspace (menu commands never come this way).
    service.subscribe((event) => {
      if (event.type === 'command') return;
      const target = windowFor(event.workspace);
      if (target) send(target, event);
    });
    await refreshMenu();
    await openLaunchFolders([
      ...launchRequest(process.argv, process.cwd(), app.isPackaged).folders,
      ...(await foldersAmong(openedBeforeReady)),
    ]);
  });
  // Nothing can run without the service and its IPC: say why and stop, rather than leave a windowless process.
  start.catch((error: unknown) => {
    reportToUser('Retrace could not start', error);
    app.exit(1);
  });

  // Emitted after 'ready' (Electron guarantees it); the folders come as additionalData, never parsed from argv.
  app.on('second-instance', (_event, _argv, _cwd, additionalData) =>
    settle(
      start.then(() => openLaunchFolders(foldersFromLaunchRequest(additionalData))),
      'opening folders from a second launch',
      reportToUser,
    ),
  );
  // macOS: a folder dropped on the Dock icon or opened with the app. Before 'ready' it is one of the launch's
  // folders (so no empty window opens beside it); after, it opens like any other folder.
  app.on('open-file', (event, path) => {
    event.preventDefault();
    if (!app.isReady()) {
      openedBeforeReady.push(path);
      return;
    }
    settle(
      start.then(async () => {
        for (const folder of await foldersAmong([path])) await openFolder(folder);
      }),
      `opening ${path}`,
      reportToUser,
    );
  });
  app.on('activate', () => {
    if (windows.size === 0 && app.isReady()) newWindow(null);
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  // Stop the service's watchers before the process goes (Electron does not await will-quit listeners).
  app.on(
    'will-quit',
    quitAfterShutdown(app, () => service?.close() ?? Promise.resolve()),
  );
  // Belt and braces: every webContents (not only ours) is refused navigation and new windows.
  app.on('web-contents-created', (_e, contents) => {
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
    contents.on('will-attach-webview', (ev) => ev.preventDefault());
  });
}
