/**
 * A RECORDING STAND-IN for the `electron` module. It is NOT Electron and proves nothing about Electron's
 * behaviour: it only lets the built main bundle (out/main/index.js) load under plain Node, where the Electron
 * binary cannot be downloaded, and records what the bundle asks of Electron and in which order (before or
 * after 'ready'). The smoke test (electronSmoke.test.ts) reads that record. The real check is the Electron
 * e2e (e2e/electron.spec.ts), skipped here for want of the binary.
 *
 * State lives on globalThis so the driver sees the same record whatever module instance the loader makes.
 */
import { EventEmitter } from 'node:events';

export interface StandInConfig {
  isPackaged: boolean;
  /** What requestSingleInstanceLock answers: false plays a second instance. */
  gotSingleInstanceLock: boolean;
  /** The first loadURL rejects, as Electron's does when a load fails. */
  firstLoadFails: boolean;
}

export interface RecordedCall {
  api: string;
  args: unknown[];
  beforeReady: boolean;
}

export interface StandInState {
  config: StandInConfig;
  ready: boolean;
  calls: RecordedCall[];
  protocolHandlers: Map<string, (request: Request) => Promise<Response>>;
  headersHooks: ((details: unknown, callback: (r: unknown) => void) => void)[];
  windows: StandInWindow[];
  app: StandInApp;
  emitReady(): void;
}

const KEY = '__retraceElectronStandIn';
const globals = globalThis as unknown as Record<string, StandInState | undefined>;
const configFromDriver = (globalThis as unknown as { __retraceStandInConfig?: Partial<StandInConfig> })
  .__retraceStandInConfig;

function state(): StandInState {
  return globals[KEY]!;
}

function record(api: string, ...args: unknown[]): void {
  state().calls.push({ api, args, beforeReady: !state().ready });
}

class StandInApp extends EventEmitter {
  readonly name = 'Retrace';
  private readonly paths = new Map<string, string>();
  private resolveReady!: () => void;
  private readonly readyPromise = new Promise<void>((r) => (this.resolveReady = r));

  get isPackaged(): boolean {
    return state().config.isPackaged;
  }
  setPath(name: string, path: string): void {
    record('app.setPath', name, path);
    this.paths.set(name, path);
  }
  getPath(name: string): string {
    return this.paths.get(name) ?? `/stand-in/${name}`;
  }
  requestSingleInstanceLock(additionalData?: unknown): boolean {
    record('app.requestSingleInstanceLock', additionalData);
    return state().config.gotSingleInstanceLock;
  }
  whenReady(): Promise<void> {
    return this.readyPromise;
  }
  isReady(): boolean {
    return state().ready;
  }
  quit(): void {
    record('app.quit');
  }
  exit(code = 0): void {
    record('app.exit', code);
  }
  addRecentDocument(path: string): void {
    record('app.addRecentDocument', path);
  }
  becomeReady(): void {
    this.resolveReady();
    this.emit('ready');
  }
}

let nextId = 1;

class StandInWebContents extends EventEmitter {
  readonly id = nextId++;
  readonly sent: unknown[][] = [];
  send(...args: unknown[]): void {
    this.sent.push(args);
  }
  setWindowOpenHandler(handler: unknown): void {
    record('webContents.setWindowOpenHandler', typeof handler);
  }
  reload(): void {
    record('webContents.reload', this.id);
  }
  isDestroyed(): boolean {
    return false;
  }
}

export class StandInWindow extends EventEmitter {
  readonly webContents = new StandInWebContents();
  title: string;
  constructor(readonly options: { title?: string; webPreferences?: Record<string, unknown> }) {
    super();
    this.title = options.title ?? '';
    record('new BrowserWindow', options);
    state().windows.push(this);
  }
  loadURL(url: string): Promise<void> {
    record('BrowserWindow.loadURL', url);
    const fail =
      state().config.firstLoadFails && state().calls.filter((c) => c.api === 'BrowserWindow.loadURL').length === 1;
    return fail ? Promise.reject(new Error(`ERR_FAILED (-2) loading '${url}'`)) : Promise.resolve();
  }
  setTitle(title: string): void {
    this.title = title;
  }
  show(): void {}
  focus(): void {
    record('BrowserWindow.focus', this.title);
  }
  close(): void {
    record('BrowserWindow.close', this.title);
  }
  isMinimized(): boolean {
    return false;
  }
  restore(): void {}
  isDestroyed(): boolean {
    return false;
  }
  static getFocusedWindow(): StandInWindow | null {
    return null;
  }
  static getAllWindows(): StandInWindow[] {
    return state().windows;
  }
}

globals[KEY] ??= {
  config: { isPackaged: false, gotSingleInstanceLock: true, firstLoadFails: false, ...configFromDriver },
  ready: false,
  calls: [],
  protocolHandlers: new Map(),
  headersHooks: [],
  windows: [],
  app: new StandInApp(),
  emitReady() {
    this.ready = true;
    this.app.becomeReady();
  },
};

export const app = state().app;
export const BrowserWindow = StandInWindow;

export const protocol = {
  registerSchemesAsPrivileged: (schemes: unknown) => record('protocol.registerSchemesAsPrivileged', schemes),
  handle: (scheme: string, handler: (request: Request) => Promise<Response>) => {
    record('protocol.handle', scheme);
    state().protocolHandlers.set(scheme, handler);
  },
};

export const session = {
  defaultSession: {
    setPermissionRequestHandler: (h: unknown) => record('session.setPermissionRequestHandler', typeof h),
    setPermissionCheckHandler: (h: unknown) => record('session.setPermissionCheckHandler', typeof h),
    webRequest: {
      onHeadersReceived: (hook: (details: unknown, callback: (r: unknown) => void) => void) => {
        record('session.webRequest.onHeadersReceived');
        state().headersHooks.push(hook);
      },
    },
  },
};

export const ipcMain = {
  handle: (channel: string) => record('ipcMain.handle', channel),
  removeHandler: (channel: string) => record('ipcMain.removeHandler', channel),
};

export const Menu = {
  buildFromTemplate: (template: unknown) => {
    record('Menu.buildFromTemplate', template);
    return { template };
  },
  setApplicationMenu: (menu: unknown) => record('Menu.setApplicationMenu', menu !== null),
};

export const nativeTheme = { shouldUseDarkColors: false };

export const dialog = {
  showErrorBox: (title: string, content: string) => record('dialog.showErrorBox', title, content),
  showOpenDialog: async () => ({ canceled: true, filePaths: [] as string[] }),
};

/** "Open in editor" (usecases/openInEditor.ts): recorded, never run; '' is Electron's "opened" answer. */
export const shell = {
  openPath: async (path: string) => {
    record('shell.openPath', path);
    return '';
  },
};

export default { app, BrowserWindow, protocol, session, ipcMain, Menu, nativeTheme, dialog, shell };
