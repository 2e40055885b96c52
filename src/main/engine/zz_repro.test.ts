import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'vitest';
import { WorkspaceEngine } from './workspaceEngine';
import { resolveWorkspace } from './workspace';
import { toErrorInfo } from '../../shared/errors';
it('repro', async () => {
  const home = mkdtempSync(join(tmpdir(), 'h-'));
  const root = mkdtempSync(join(tmpdir(), 'w-'));
  writeFileSync(join(root, 'a.txt'), 'a');
  const engine = new WorkspaceEngine(await resolveWorkspace(root, { dataHome: home }));
  await engine.checkpoint();
  rmSync(root, { recursive: true });
  try { await engine.checkpoint(); } catch (e) { console.log('deleted:', toErrorInfo(e)); }
});
