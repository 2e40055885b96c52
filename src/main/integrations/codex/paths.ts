/** Where Codex CLI keeps its files: `CODEX_HOME`, else `~/.codex` (the install and discovery both look here). */
import { homedir } from 'node:os';
import { join } from 'node:path';

export function codexHome(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.CODEX_HOME;
  return dir && dir.trim() !== '' ? dir : join(env.HOME || homedir(), '.codex');
}
