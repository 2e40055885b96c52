/**
 * Gemini CLI sessions of a workspace: `<gemini dir>/tmp/<sha256(project root)>/chats/session-*.json[l]`.
 * (newer Gemini CLI: `tmp/<slug>/`, see projectDirs). The gemini dir is `$GEMINI_CLI_HOME/.gemini` (Gemini CLI's
 * documented variable: the folder that holds `.gemini`; there is no GEMINI_DIR), else `~/.gemini`. The project
 * root is hashed as Gemini saw it, which may be the path before symlinks were resolved: every spelling is tried.
 */
import { createHash } from 'node:crypto';
import { basename, join } from 'node:path';
import { geminiDir } from '../gemini/paths';
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

export function findGeminiSessions(place: Place, env: NodeJS.ProcessEnv): FoundSession[] {
  const found: FoundSession[] = [];
  for (const { chats, hash } of projectDirs(place, env)) {
    for (const f of listDir(chats)) {
      if (!f.isFile() || !f.name.startsWith('session-') || !/\.jsonl?$/.test(f.name)) continue;
      const file = join(chats, f.name);
      const head = chatHead(file);
      // A chat that names another project (a copied folder) is not this workspace's.
      if (hash && head.projectHash && head.projectHash !== hash) continue;
      const fallback = basename(f.name).replace(/\.jsonl?$/, '');
      found.push({
        agent: 'gemini',
        path: file,
        id: head.sessionId ?? fallback,
        title: titleOf(head.title, fallback),
        updatedAt: mtimeIso(file),
        transcript: file,
      });
    }
  }
  return found;
}

/**
 * The workspace's `chats` folders: `tmp/<sha256(root)>` (older Gemini CLI; `hash` set so a chat naming another
 * project is left out) and `tmp/<slug>` (newer: `projects.json` maps roots to slugs and each such folder holds
 * a `.project_root` file naming its root; the marker is checked either way).
 */
function projectDirs(place: Place, env: NodeJS.ProcessEnv): { chats: string; hash: string | null }[] {
  const gemini = geminiDir(env);
  const tmp = join(gemini, 'tmp');
  const out = new Map<string, string | null>();
  for (const p of [place.root, ...place.spellings]) {
    const hash = createHash('sha256').update(p).digest('hex');
    out.set(hash, hash);
  }
  const registry = obj(obj(parseJson(readHead(join(gemini, 'projects.json'), 16 << 20)))?.projects);
  const slugs = new Set<string>();
  for (const [root, slug] of Object.entries(registry ?? {}))
    if (typeof slug === 'string' && isPlace(place, root)) slugs.add(slug);
  for (const d of listDir(tmp)) {
    if (!d.isDirectory() || out.has(d.name)) continue;
    const marker = readHead(join(tmp, d.name, '.project_root'), 64 << 10).trim();
    if (marker ? isPlace(place, marker) : slugs.has(d.name)) out.set(d.name, null);
  }
  return [...out].map(([name, hash]) => ({ chats: join(tmp, name, 'chats'), hash }));
}

/** Session id, project hash and first prompt: from the metadata line (.jsonl) or the one object (.json). */
function chatHead(file: string): { sessionId?: string; projectHash?: string; title?: string } {
  if (file.endsWith('.jsonl')) {
    const meta = obj(parseJson(readFirstLine(file)));
    let title: string | undefined;
    for (const line of readHead(file, 256 << 10)
      .split('\n')
      .slice(1)) {
      const m = obj(parseJson(line));
      if (m?.type === 'user') {
        title = contentText(m.content);
        if (title) break;
      }
    }
    return { sessionId: str(meta?.sessionId), projectHash: str(meta?.projectHash), title };
  }
  const chat = obj(parseJson(readHead(file, 64 << 20)));
  const messages = Array.isArray(chat?.messages) ? chat.messages.map(obj) : [];
  const prompt = messages.find((m) => m?.type === 'user' && contentText(m.content));
  return {
    sessionId: str(chat?.sessionId),
    projectHash: str(chat?.projectHash),
    title: str(chat?.summary) ?? contentText(prompt?.content),
  };
}

/** A message's text: a string, or parts `[{text}]`. */
function contentText(content: unknown): string | undefined {
  if (typeof content === 'string') return str(content);
  if (Array.isArray(content)) return str(content.map((p) => str(obj(p)?.text) ?? '').join(''));
  return undefined;
}
