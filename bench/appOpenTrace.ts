/**
 * Where the open of a 10,000-message session spends its time (issue 15 item 5), as e2e/perf.spec.ts times it:
 * a fresh server, a fresh browser context, navigation → the newest checkpoint's row shown selected. Prints, per
 * open, a timeline of what the page and the server did (epoch-aligned, ms after the navigation started).
 *   npx tsx bench/appOpenTrace.ts [RUNS]      (needs `npx electron-vite build`; Debian Chromium)
 */
import { chromium } from '@playwright/test';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { waitForNewestRowSelected } from '../e2e/support/retrace';

const REPO = resolve(import.meta.dirname, '..');
const TSX = join(REPO, 'node_modules/tsx/dist/cli.mjs');
const WORLD = process.env.APPOPEN_WORLD ?? '/tmp/appopen-world';
const dir = join(WORLD, 'dir');
const home = join(WORLD, 'home');
const env = { ...process.env, RETRACE_HOME: home };
/** Renderer builds to compare, opened in turn (comma-separated folders; default: this checkout's build). */
const renderers = (process.env.APPOPEN_RENDERERS ?? join(REPO, 'out/renderer')).split(',');

if (!existsSync(dir)) {
  mkdirSync(dir, { recursive: true });
  mkdirSync(home, { recursive: true });
  execFileSync(process.execPath, [TSX, 'e2e/support/bulk-session.ts', dir, '10000', '500'], { cwd: REPO, env });
}

interface Ev {
  t: number;
  what: string;
  [k: string]: unknown;
}

async function startServer(rendererDir: string): Promise<{ url: string; events: Ev[]; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [TSX, 'bench/appOpenServer.ts', dir], {
    cwd: REPO,
    env: { ...env, RETRACE_RENDERER_DIR: rendererDir },
  });
  const events: Ev[] = [];
  let buf = '';
  const url = await new Promise<string>((ok, bad) => {
    child.on('exit', (c) => bad(new Error(`server exited ${c}`)));
    child.stderr.on('data', (d: Buffer) => process.stderr.write(d));
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const e = JSON.parse(buf.slice(0, nl)) as Ev;
        buf = buf.slice(nl + 1);
        events.push(e);
        if (e.what === 'url') ok(e.url as string);
      }
    });
  });
  return {
    url,
    events,
    stop: () =>
      new Promise<void>((done) => {
        child.removeAllListeners('exit');
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}

/** In the page, before its scripts (plain JS: tsx would add helpers the page does not have): WebSocket frames,
 * long tasks and what the timeline shows, every frame. */
const PAGE_PROBE = `(() => {
  const probe = (window.__probe = []);
  const at = (what) => probe.push({ t: performance.timeOrigin + performance.now(), what });
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(url, protocols) {
      super(url, protocols);
      at('ws new');
      this.addEventListener('open', () => at('ws open'));
      this.addEventListener('message', (m) => {
        const f = JSON.parse(String(m.data));
        at('ws recv ' + (f.id ?? 'event') + ' (' + String(m.data).length + ' B)');
      });
    }
    send(data) {
      const f = JSON.parse(data);
      at('ws send ' + f.id + ' ' + f.method);
      super.send(data);
    }
  };
  const seen = new Set();
  const once = (what) => { if (!seen.has(what)) { seen.add(what); at(what); } };
  new PerformanceObserver((l) => {
    for (const e of l.getEntries())
      probe.push({ t: performance.timeOrigin + e.startTime, what: 'longtask ' + e.duration.toFixed(0) + ' ms' });
  }).observe({ type: 'longtask', buffered: true });
  const frame = () => {
    once('frame');
    if (document.querySelector('.app')) once('app shell');
    const list = document.querySelector('[role="list"][aria-label="Timeline"]');
    if (list && list.querySelector('[role="listitem"]')) once('rows rendered: ' + list.querySelector('[role="listitem"]').textContent.slice(0, 20));
    const cur = list && list.querySelector('[aria-current="true"]');
    if (cur) once('selected row: ' + cur.textContent.slice(0, 20));
    const sc = document.querySelector('.timeline-scroll');
    if (sc && sc.scrollTop > 0) once('timeline scrolled');
    if (cur && cur.textContent.includes('Message 10000')) return once('DONE');
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
})();`;

const runs = Number(process.argv[2] ?? 3);
const browser = await chromium.launch({
  executablePath: process.env.RETRACE_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking'],
});
for (let n = 0; n < runs * renderers.length; n++) {
  const r = Math.floor(n / renderers.length);
  const rendererDir = renderers[n % renderers.length]!;
  const server = await startServer(rendererDir);
  const context = await browser.newContext({ viewport: { width: 1400, height: 860 } });
  const page = await context.newPage();
  await page.addInitScript({ content: PAGE_PROBE });
  // APPOPEN_PROFILE=1: the page's CPU profile of the open, its functions by self time (an unminified build names them).
  const cdp = process.env.APPOPEN_PROFILE ? await context.newCDPSession(page) : null;
  // The page's main-thread CPU time (not wall time, which a loaded machine stretches) up to the open.
  const perf = await context.newCDPSession(page);
  await perf.send('Performance.enable');
  if (cdp) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    await cdp.send('Profiler.start');
  }
  const t0 = Date.now();
  await page.goto(server.url);
  await waitForNewestRowSelected(page);
  const ms = Date.now() - t0;
  const metrics = Object.fromEntries(
    (await perf.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value] as const),
  );
  const pageCpu = {
    threadCpuMs: Math.round((metrics.ThreadTime ?? 0) * 1000),
    scriptMs: Math.round((metrics.ScriptDuration ?? 0) * 1000),
    layoutMs: Math.round((metrics.LayoutDuration ?? 0) * 1000),
    styleMs: Math.round((metrics.RecalcStyleDuration ?? 0) * 1000),
    layouts: metrics.LayoutCount,
  };
  const served = server.events.filter((e) => e.what.startsWith('end ') && e.t <= t0 + ms);
  if (cdp) {
    const { profile } = await cdp.send('Profiler.stop');
    const self = new Map<number, number>();
    profile.samples?.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas?.[i] ?? 0)));
    const byFn = new Map<string, number>();
    for (const n of profile.nodes) {
      const f = n.callFrame;
      const key = `${f.functionName || '(anon)'} ${f.url.split('/').pop()}:${f.lineNumber}`;
      byFn.set(key, (byFn.get(key) ?? 0) + (self.get(n.id) ?? 0) / 1000);
    }
    const top = [...byFn].sort((a, b) => b[1] - a[1]).slice(0, 40);
    for (const [k, v] of top) console.log(`  ${v.toFixed(1).padStart(7)} ms  ${k}`);
  }
  await page.waitForTimeout(300);
  const pageEvents = (await page.evaluate(() => {
    const w = window as unknown as { __probe?: { t: number; what: string }[] };
    const o = performance.timeOrigin;
    const out = [...(w.__probe ?? [])];
    const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
    out.push({ t: o + nav.responseEnd, what: 'html received' });
    out.push({ t: o + nav.domInteractive, what: 'dom interactive' });
    for (const e of performance.getEntriesByType('resource') as PerformanceResourceTiming[])
      out.push({ t: o + e.responseEnd, what: `got ${e.name.split('/').pop()} (${e.encodedBodySize} B)` });
    for (const e of performance.getEntriesByType('paint')) out.push({ t: o + e.startTime, what: e.name });
    for (const e of performance.getEntriesByType('mark')) out.push({ t: o + e.startTime, what: `mark ${e.name}` });
    return out;
  })) as Ev[];
  const all = [
    ...pageEvents.map((e) => ({ ...e, side: 'page' })),
    ...server.events.filter((e) => e.what !== 'url').map((e) => ({ ...e, side: 'serv' })),
  ].sort((a, b) => a.t - b.t);
  const load = loadavg().map((l) => l.toFixed(2));
  console.log(`\n== ${rendererDir.split('/').slice(-2).join('/')} open ${r + 1}: ${ms} ms (load ${load.join(' ')})`);
  console.log(
    `   page ${JSON.stringify(pageCpu)}; server CPU ${served.at(-1)?.cpu} ms; ` +
      `answered before: ${served.map((e) => e.what.slice(4)).join(', ')}`,
  );
  for (const e of all) {
    if (e.t - t0 > ms + 400) continue;
    const { t, what, side, ...rest } = e;
    console.log(
      `${String(Math.round(t - t0)).padStart(6)}  ${side}  ${what}${Object.keys(rest).length ? ' ' + JSON.stringify(rest) : ''}`,
    );
  }
  await context.close();
  await server.stop();
}
await browser.close();
