/**
 * Test support: a long session with real checkpoints, written fast. The commits go into the shadow repository
 * in one `git fast-import` (a thousand snapshots in well under a second, where recording each would take
 * minutes on a shared machine); the session log gets one line per message, naming those commits, and the
 * session ref ends at the last one — the state the write protocol leaves.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MessageEvent } from '../engine/sessions/events';
import { sessionRef } from '../engine/sessions/ids';
import type { WorkspaceEngine } from '../engine/workspaceEngine';
import type { Role } from '../../shared/model';

/**
 * `messages` messages; every `every`-th is a checkpoint that adds `src/mod<k % 40>/step<k>.ts` and rewrites
 * README.md. Returns the checkpoint hashes in order.
 */
export async function writeBulkSession(
  engine: WorkspaceEngine,
  session: string,
  messages: number,
  every: number,
): Promise<string[]> {
  const shadow = await engine.shadow();
  const tmpRef = 'refs/retrace/tmp/bulk-history';
  const t0 = 1_700_000_000;
  const chunks: string[] = [];
  const data = (s: string) => `data ${Buffer.byteLength(s)}\n${s}\n`;
  let k = 0;
  for (let i = 1; i <= messages; i++) {
    if (i % every !== 0) continue;
    k++;
    chunks.push(
      `commit ${tmpRef}\nmark :${k}\ncommitter Retrace <retrace@localhost> ${t0 + i} +0000\n` +
        data(`tool: step ${k}`) +
        `M 100644 inline src/mod${k % 40}/step${k}.ts\n` +
        data(`export const step = ${k};\n`) +
        `M 100644 inline README.md\n` +
        data(`# project\nstep ${k}\n`),
    );
  }
  const marks = join(engine.ws.dir, 'bulk-marks');
  execFileSync('git', ['--git-dir', shadow.gitDir, 'fast-import', '--quiet', `--export-marks=${marks}`], {
    input: chunks.join(''),
  });
  execFileSync('git', ['--git-dir', shadow.gitDir, 'update-ref', '-d', tmpRef]);
  const hashes = readFileSync(marks, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith(':'))
    .map((l) => l.split(' ') as [string, string])
    .sort((a, b) => Number(a[0].slice(1)) - Number(b[0].slice(1)))
    .map(([, h]) => h);

  const roles: Role[] = ['user', 'assistant', 'tool'];
  const events: MessageEvent[] = [];
  k = 0;
  for (let i = 1; i <= messages; i++) {
    const ts = new Date((t0 + i) * 1000).toISOString();
    const id = `m_bulk${String(i).padStart(6, '0')}`;
    if (i % every === 0) {
      const hash = hashes[k++]!;
      // Each step adds its own file and rewrites README.md's second line (the first also creates README.md).
      const stats = { files: 2, insertions: 2, deletions: k === 1 ? 0 : 1 };
      events.push({ type: 'message', id, ts, role: 'tool', text: `Message ${i}: wrote step ${k}`, hash, stats });
    } else {
      const text = `Message ${i}: ${'lorem ipsum dolor '.repeat(1 + (i % 9))}${i % 97 === 0 ? ' needle here' : ''}`;
      events.push({ type: 'message', id, ts, role: roles[i % 3]!, text });
    }
  }
  engine.sessions.create(session, { title: 'bulk session', createdAt: new Date(t0 * 1000).toISOString() });
  engine.sessions.append(session, events);
  execFileSync('git', ['--git-dir', shadow.gitDir, 'update-ref', sessionRef(session), hashes[hashes.length - 1]!]);
  return hashes;
}
