/**
 * Codex CLI sessions of a workspace: rollouts under `<CODEX_HOME or ~/.codex>/sessions/YYYY/MM/DD/` and
 * `archived_sessions/`, whose first line (`session_meta`) names the workspace as `cwd`. Only that first line
 * is read of each rollout; the rest only of the workspace's own (for a title).
 */
import { basename, join } from 'node:path';
import { codexHome } from '../codex/paths';
import {
  isPlace,
  listDir,
  mtimeIso,
  obj,
  parseJson,
  readFirstLine,
  readHead,
  str,
  titleOf,
  type FoundSession,
  type Place,
} from './found';

export function findCodexSessions(place: Place, env: NodeJS.ProcessEnv): FoundSession[] {
  const home = codexHome(env);
  const found: FoundSession[] = [];
  for (const file of [...rollouts(join(home, 'sessions'), 3), ...rollouts(join(home, 'archived_sessions'), 3)]) {
    const first = obj(parseJson(readFirstLine(file)));
    const meta = first?.type === 'session_meta' ? obj(first.payload) : undefined;
    if (!meta || !isPlace(place, str(meta.cwd))) continue;
    const fallback = basename(file, '.jsonl');
    found.push({
      agent: 'codex',
      path: file,
      id: str(meta.id) ?? fallback,
      title: titleOf(firstPrompt(file), fallback),
      updatedAt: mtimeIso(file),
      transcript: file,
    });
  }
  return found;
}

/** `rollout-*.jsonl` files under `dir`, at most `depth` folders down (YYYY/MM/DD). */
function rollouts(dir: string, depth: number): string[] {
  const out: string[] = [];
  for (const e of listDir(dir)) {
    const p = join(dir, e.name);
    if (e.isDirectory() && depth > 0) out.push(...rollouts(p, depth - 1));
    else if (e.isFile() && e.name.startsWith('rollout-') && e.name.endsWith('.jsonl')) out.push(p);
  }
  return out;
}

/** The first prompt the person typed (`event_msg` `user_message`), from the first 256 KB. */
function firstPrompt(file: string): string | undefined {
  for (const line of readHead(file, 256 << 10).split('\n')) {
    const rec = obj(parseJson(line));
    const payload = obj(rec?.payload);
    if (rec?.type === 'event_msg' && payload?.type === 'user_message') return str(payload.message);
  }
  return undefined;
}
