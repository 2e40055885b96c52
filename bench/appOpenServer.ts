/**
 * `retrace serve DIR` as the CLI runs it (same service, same host), with every request's server time logged:
 * one JSON line per event on stdout ({t: epoch ms, what, ms}). Started by bench/appOpenTrace.ts.
 *   RETRACE_HOME=… RETRACE_RENDERER_DIR=out/renderer tsx bench/appOpenServer.ts DIR
 */
import { startServeHost } from '../src/main/serve/server';
import { findRendererDir } from '../src/main/serve/staticFiles';
import { createService } from '../src/main/service';
import { resolveDataHome } from '../src/main/engine/dataHome';
import { resolveWorkspace } from '../src/main/engine/workspace';

/** CPU ms (user + system) this process used since the server listened, with every line. */
const since: { cpu?: NodeJS.CpuUsage } = {};
const cpu = () => {
  const u = process.cpuUsage(since.cpu);
  return +((u.user + u.system) / 1000).toFixed(1);
};
const log = (what: string, extra: Record<string, unknown> = {}) =>
  process.stdout.write(JSON.stringify({ t: Date.now(), what, cpu: cpu(), ...extra }) + '\n');

const dir = process.argv[2]!;
const dataHome = resolveDataHome();
const initialWorkspace = (await resolveWorkspace(dir, { cwd: process.cwd(), dataHome })).root;
const service = createService({ host: 'serve', dataHome, initialWorkspace });
const host = await startServeHost({
  dispatch: async (m, a) => {
    const t0 = performance.now();
    log(`start ${m}`);
    const r = await service.dispatch(m, a);
    log(`end ${m}`, { ms: +(performance.now() - t0).toFixed(1), bytes: JSON.stringify(r).length });
    return r;
  },
  subscribe: (l) => service.subscribe(l),
  rendererDir: findRendererDir(import.meta.url),
  onScriptSent: () => {
    const t0 = performance.now();
    log('prepare start');
    void service.prepare().then(() => log('prepare end', { ms: +(performance.now() - t0).toFixed(1) }));
  },
});
since.cpu = process.cpuUsage();
log('url', { url: host.url });
process.once('SIGTERM', () => void host.close().then(() => service.close().then(() => process.exit(0))));
