/**
 * Writes a very long session through the engine API (run with tsx; RETRACE_HOME must be set):
 *   tsx e2e/support/bulk-session.ts DIR MESSAGES CHECKPOINT_EVERY
 * Plain messages are appended to the session log in batches (one fsync per batch, like an importer); every
 * CHECKPOINT_EVERY-th message is a real checkpoint of a file that changes each time.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveDataHome } from '../../src/main/engine/dataHome';
import type { MessageEvent } from '../../src/main/engine/sessions/events';
import { newMessageId } from '../../src/main/engine/sessions/ids';
import { SessionStore } from '../../src/main/engine/sessions/store';
import { resolveWorkspace } from '../../src/main/engine/workspace';
import { WorkspaceEngine } from '../../src/main/engine/workspaceEngine';
import type { Role } from '../../src/shared/model';

const [dir, countArg, everyArg] = process.argv.slice(2);
if (!dir || !process.env.RETRACE_HOME) throw new Error('usage: RETRACE_HOME=… tsx bulk-session.ts DIR N EVERY');
const count = Number(countArg ?? 10_000);
const every = Number(everyArg ?? 500);
const roles: Role[] = ['user', 'assistant', 'tool'];

const ws = await resolveWorkspace(dir, { dataHome: resolveDataHome() });
const engine = new WorkspaceEngine(ws, { actor: 'e2e bulk session' });
const store = new SessionStore(ws.dir);
const t0 = Date.now() - count * 1000;

await engine.write(async () => {
  writeFileSync(join(ws.root, 'counter.txt'), 'step 0\n');
  const first = await engine.recordLocked({
    role: 'user',
    text: 'Message 1: start the long session',
    checkpoint: true,
    title: 'long session',
  });
  let batch: MessageEvent[] = [];
  const flush = () => {
    if (batch.length) store.append(first.session, batch);
    batch = [];
  };
  for (let i = 2; i <= count; i++) {
    const ts = new Date(t0 + i * 1000).toISOString();
    if (i % every === 0) {
      flush();
      writeFileSync(join(ws.root, 'counter.txt'), `step ${i}\n`);
      await engine.recordLocked({
        session: first.session,
        role: 'tool',
        text: `Message ${i}: checkpoint`,
        checkpoint: true,
        ts,
      });
    } else {
      batch.push({
        type: 'message',
        id: newMessageId(),
        ts,
        role: roles[i % 3]!,
        text: `Message ${i}: ${'lorem ipsum '.repeat(1 + (i % 7))}`,
      });
      if (batch.length >= 1000) flush();
    }
  }
  flush();
});
process.stdout.write(JSON.stringify({ workspace: ws.root, messages: count }) + '\n');
