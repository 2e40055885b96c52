/** I6: one writer per workspace across processes; a dead writer's lock is recovered. */
import { readdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, cliJson, gitAt, makeWorkspace, runCli, shadowDir, tempHome } from '../helpers';

afterAll(cleanupTempDirs);

describe('I6: one writer at a time', () => {
  it('4 concurrent writer processes: every checkpoint recorded, the chain whole and in log order', async () => {
    const root = makeWorkspace({ 'a.txt': 'a\n' });
    const home = tempHome();
    const o = { home, cwd: root };
    await cliJson(['checkpoint', '--session', 's'], o);
    const writers = [0, 1, 2, 3].map(async (w) => {
      for (let i = 0; i < 4; i++) {
        writeFileSync(join(root, `w${w}.txt`), `${i}\n`);
        const r = await runCli(
          ['message', '--role', 'tool', '--text', `w${w} ${i}`, '--session', 's', '--checkpoint', '--json'],
          o,
        );
        expect(r.code, r.stderr).toBe(0);
      }
    });
    await Promise.all(writers);
    const log = await cliJson<{ messages: { text: string; hash: string }[] }>(['log', '--session', 's'], o);
    expect(log.messages).toHaveLength(17);
    expect(new Set(log.messages.map((m) => m.hash)).size).toBe(17);
    // The ref is the last message's checkpoint and the parents walk back through the log in order.
    const git = shadowDir(home, root);
    const chain = gitAt(git, ['rev-list', '--first-parent', 'refs/retrace/sessions/s']).trim().split('\n');
    expect(chain).toEqual(log.messages.map((m) => m.hash).reverse());
  });

  it('a lock left by a dead process is taken over and reported by status', async () => {
    const root = makeWorkspace({ 'a.txt': 'a\n' });
    const home = tempHome();
    const o = { home, cwd: root };
    await cliJson(['checkpoint'], o);
    const id = readdirSync(join(home, 'workspaces'))[0]!;
    writeFileSync(
      join(home, 'workspaces', id, 'writer.lock'),
      JSON.stringify({
        pid: 2 ** 22 + 12345,
        hostname: hostname(),
        command: 'retrace checkpoint',
        startedAt: new Date().toISOString(),
        token: 'dead',
      }),
    );
    await cliJson(['checkpoint'], o);
    const st = await cliJson<{ recovered: { kind: string }[] }>(['status'], o);
    expect(st.recovered.map((r) => r.kind)).toContain('stale-lock-removed');
  });
});
