/**
 * Cline tasks of a workspace: `<VS Code globalStorage>/saoudrizwan.claude-dev/tasks/<taskId>/`, for VS Code,
 * Code - Insiders, VSCodium and Cursor, whose workspace (task_metadata.json, else the task's entry in
 * state/taskHistory.json — the same fields the importer reads) is this folder.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import {
  isPlace,
  listDir,
  mtimeIso,
  obj,
  parseJson,
  readHead,
  str,
  titleOf,
  type FoundSession,
  type Place,
} from './found';

const EDITORS = ['Code', 'Code - Insiders', 'VSCodium', 'Cursor'];
const EXTENSION = 'saoudrizwan.claude-dev';

/** Each editor's user-data folder for this OS (the parent of `User/globalStorage`). */
function editorConfigRoots(env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME || homedir();
  const base =
    process.platform === 'darwin'
      ? join(home, 'Library', 'Application Support')
      : process.platform === 'win32'
        ? env.APPDATA || join(home, 'AppData', 'Roaming')
        : env.XDG_CONFIG_HOME || join(home, '.config');
  return EDITORS.map((e) => join(base, e));
}

export function clineStorages(env: NodeJS.ProcessEnv): string[] {
  return editorConfigRoots(env).map((r) => join(r, 'User', 'globalStorage', EXTENSION));
}

export function findClineSessions(place: Place, env: NodeJS.ProcessEnv): FoundSession[] {
  const found: FoundSession[] = [];
  for (const storage of clineStorages(env)) {
    const tasks = listDir(join(storage, 'tasks'));
    if (tasks.length === 0) continue;
    const history = taskHistory(storage);
    for (const t of tasks) {
      if (!t.isDirectory()) continue;
      const dir = join(storage, 'tasks', t.name);
      const metadata = readJson(join(dir, 'task_metadata.json'));
      const item = history.get(t.name);
      const cwd =
        pick(metadata, ['cwd', 'cwdOnTaskInitialization', 'workspaceRoot']) ??
        pick(item, ['cwdOnTaskInitialization', 'shadowGitConfigWorkTree', 'cwd']);
      if (!isPlace(place, cwd)) continue;
      const transcript = join(dir, 'ui_messages.json');
      found.push({
        agent: 'cline',
        path: dir,
        id: t.name,
        title: titleOf(pick(item, ['task']) ?? pick(metadata, ['title', 'task']) ?? firstTask(transcript), t.name),
        updatedAt: mtimeIso(transcript),
        transcript,
      });
    }
  }
  return found;
}

function taskHistory(storage: string): Map<string, Record<string, unknown>> {
  const list = parseJson(readHead(join(storage, 'state', 'taskHistory.json'), 64 << 20));
  const out = new Map<string, Record<string, unknown>>();
  if (Array.isArray(list))
    for (const h of list.map(obj)) {
      const id = str(h?.id);
      if (h && id) out.set(id, h);
    }
  return out;
}

/** The task's first prompt: the `say: task` message of ui_messages.json. */
function firstTask(file: string): string | undefined {
  const list = parseJson(readHead(file, 64 << 20));
  if (!Array.isArray(list)) return undefined;
  return str(list.map(obj).find((m) => m?.say === 'task')?.text);
}

function readJson(file: string): Record<string, unknown> | undefined {
  return obj(parseJson(readHead(file, 16 << 20)));
}

function pick(o: Record<string, unknown> | undefined, keys: string[]): string | undefined {
  for (const k of keys) {
    const v = str(o?.[k]);
    if (v) return v;
  }
  return undefined;
}
