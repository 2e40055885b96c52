/** The transcripts under some folders: Claude Code session files and Cline task folders. */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';

export interface Found {
  agent: 'claude-code' | 'cline';
  path: string;
}

export function findTranscripts(roots: string[]): Found[] {
  const out: Found[] = [];
  const walk = (p: string) => {
    let st;
    try {
      st = statSync(p);
    } catch {
      return;
    }
    if (st.isFile()) {
      // Sub-agent files are read with their session, never on their own.
      if (p.endsWith('.jsonl') && !/^agent-/.test(basename(p))) out.push({ agent: 'claude-code', path: p });
      return;
    }
    if (!st.isDirectory()) return;
    if (existsSync(join(p, 'ui_messages.json'))) {
      out.push({ agent: 'cline', path: p });
      return;
    }
    if (basename(p) === 'subagents') return;
    for (const name of readdirSync(p).sort()) walk(join(p, name));
  };
  for (const r of roots) walk(r);
  return out;
}
