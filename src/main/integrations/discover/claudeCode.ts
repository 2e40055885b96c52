/**
 * Claude Code sessions of a workspace: `<CLAUDE_CONFIG_DIR or ~/.claude>/projects/<encoded cwd>/*.jsonl`.
 * The folder name is lossy (every character outside [a-zA-Z0-9] becomes '-', long names are cut and hashed),
 * so it only narrows the search: a transcript belongs here when its own `cwd` field names the workspace.
 */
import { basename, join } from 'node:path';
import { claudeConfigDir, encodeProjectDir } from '../claude-code/paths';
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

/** Enough of a transcript to find its cwd, session id and first prompt. */
const HEAD_BYTES = 256 << 10;

export function findClaudeCodeSessions(place: Place, env: NodeJS.ProcessEnv): FoundSession[] {
  const projects = join(claudeConfigDir(env), 'projects');
  const fold = (s: string): string => (place.caseInsensitive ? s.toLowerCase() : s);
  const wanted = [place.root, ...place.spellings].map((p) => fold(encodeProjectDir(p)));
  const found: FoundSession[] = [];
  for (const dir of listDir(projects)) {
    if (!dir.isDirectory()) continue;
    const name = fold(dir.name);
    // Over 200 characters the suffix is a hash whose function differs between builds: match the cut prefix.
    const match = wanted.some((w) => name === w || (w.length > 200 && name.startsWith(w.slice(0, 200) + '-')));
    if (!match) continue;
    for (const f of listDir(join(projects, dir.name))) {
      // agent-*.jsonl are sub-agents' transcripts: the import takes them in with their parent session.
      if (!f.isFile() || !f.name.endsWith('.jsonl') || f.name.startsWith('agent-')) continue;
      const file = join(projects, dir.name, f.name);
      const head = readTranscriptHead(file);
      if (!isPlace(place, head.cwd)) continue;
      found.push({
        agent: 'claude-code',
        path: file,
        id: head.sessionId ?? basename(f.name, '.jsonl'),
        title: titleOf(head.title, basename(f.name, '.jsonl')),
        updatedAt: mtimeIso(file),
        transcript: file,
      });
    }
  }
  return found;
}

function readTranscriptHead(file: string): { cwd?: string; sessionId?: string; title?: string } {
  const out: { cwd?: string; sessionId?: string; title?: string } = {};
  let prompt: string | undefined;
  for (const line of readHead(file, HEAD_BYTES).split('\n')) {
    const rec = obj(parseJson(line));
    if (!rec) continue;
    out.cwd ??= str(rec.cwd);
    out.sessionId ??= str(rec.sessionId);
    // A title the person gave wins over the model's summary, which wins over the first prompt.
    if (rec.type === 'custom-title') out.title = str(rec.customTitle) ?? out.title;
    else if (rec.type === 'summary' && !out.title) out.title = str(rec.summary);
    else if (rec.type === 'user' && !prompt && rec.isMeta !== true) prompt = promptText(obj(rec.message)?.content);
  }
  if (!out.title && prompt) out.title = prompt;
  return out;
}

function promptText(content: unknown): string | undefined {
  if (typeof content === 'string') return content.startsWith('<') ? undefined : str(content);
  if (!Array.isArray(content)) return undefined;
  for (const b of content) {
    const block = obj(b);
    if (block?.type === 'text') return str(block.text);
  }
  return undefined;
}
