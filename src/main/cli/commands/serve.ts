/**
 * `retrace serve [DIR] [--port N] [--no-open]`: the desktop UI in a browser, on 127.0.0.1 only, behind a
 * token in the printed URL (kept in the data home, so a restart on the same port keeps the URL). Runs until SIGINT/SIGTERM.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { RetraceError } from '../../../shared/errors';
import { resolveWorkspace } from '../../engine/workspace';
import { persistentToken } from '../../serve/access';
import { startServeHost } from '../../serve/server';
import { findRendererDir } from '../../serve/staticFiles';
import { createService } from '../../service';
import type { Command } from '../command';

export const command: Command = {
  usage: 'serve [DIR] [--port N] [--no-open]',
  options: { port: { type: 'string' }, 'no-open': { type: 'boolean' } },
  positionals: { min: 0, max: 1 },
  async run(ctx) {
    const port = parsePort(ctx.values.port);
    const dataHome = ctx.dataHome();
    const dir = ctx.positionals[0];
    // A folder named on the command line must be valid (one-line error, I7); the default folder may not be
    // (e.g. run from the home directory), and then the page opens on its "Open folder" screen.
    let initialWorkspace: string | undefined;
    if (dir !== undefined) initialWorkspace = (await resolveWorkspace(dir, { cwd: process.cwd(), dataHome })).root;
    else
      initialWorkspace = await resolveWorkspace(ctx.cwd, { cwd: process.cwd(), dataHome }).then(
        (w) => w.root,
        () => undefined,
      );

    const rendererDir = findRendererDir(import.meta.url);
    if (!rendererDir) ctx.out.note('the UI is not built (run `npm run build:app`); the page will say so');
    const service = createService({ host: 'serve', dataHome, ...(initialWorkspace ? { initialWorkspace } : {}) });
    const host = await startServeHost({
      dispatch: (m, a) => service.dispatch(m, a),
      subscribe: (l) => service.subscribe(l),
      rendererDir,
      port,
      // Kept across restarts (per data home), so an open tab reconnects to a restarted server on the same port.
      token: persistentToken(join(dataHome, 'serve-token')),
      // While the browser compiles the page's script (not before: the page's own files come first), fold the
      // folder's session logs, so that its first requests find them read.
      onScriptSent: () => void service.prepare(),
    });

    ctx.out.result({ url: host.url, port: host.port, workspace: initialWorkspace ?? null }, () => host.url);
    if (!ctx.json) ctx.out.note(`serving ${initialWorkspace ?? '(no folder yet)'} on port ${host.port}; Ctrl+C stops`);
    if (!ctx.values['no-open']) openBrowser(host.url);

    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    await host.close();
    await service.close();
    return 0;
  },
};

function parsePort(v: unknown): number {
  if (v === undefined) return 0;
  const n = Number(v);
  if (typeof v !== 'string' || !/^\d+$/.test(v) || n > 65535)
    throw new RetraceError('E_USAGE', `--port: not a port number: ${String(v)}`);
  return n;
}

/** Best effort: a machine without a browser still prints the URL. */
function openBrowser(url: string): void {
  const [cmd, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(cmd, args as string[], { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
  } catch {
    // ignored: the URL is on stdout
  }
}
