import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { it } from 'vitest';
import { tempDir } from '../../../test/helpers';
import { WorkspaceEngine } from './workspaceEngine';
import { resolveWorkspace } from './workspace';
import { toErrorInfo } from '../../shared/errors';
it('repro', async () => {
  const root = tempDir('w-');
  writeFileSync(path.join(root, 'a.txt'), 'a');
  // build a deep path > 4096 bytes using relative mkdir steps
  let rel = '';
  const seg = 'd'.repeat(200);
  for (let i = 0; i < 22; i++) rel = rel ? `${rel}/${seg}` : seg;
  // mkdir via process.chdir to avoid ENAMETOOLONG in mkdir
  const saved = process.cwd();
  process.chdir(root);
  for (let i = 0; i < 22; i++) { mkdirSync(seg); process.chdir(seg); }
  writeFileSync('deep.txt', 'deep');
  process.chdir(saved);
  console.log('rel length', rel.length + 9);
  const engine = new WorkspaceEngine(await resolveWorkspace(root, { dataHome: tempDir('h-') }));
  try { const r = await engine.checkpoint(); console.log('ok', JSON.stringify(r).slice(0, 300)); } catch (e) { console.log('ERR', toErrorInfo(e), (e as Error).stack); }
  writeFileSync(path.join(root, 'b.txt'), 'b');
  try { const r = await engine.checkpoint(); console.log('ok2', JSON.stringify(r).slice(0, 300)); } catch (e) { console.log('ERR2', toErrorInfo(e)); }
});
