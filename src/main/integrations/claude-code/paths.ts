/** Where Claude Code keeps things (FORMATS.md): the config folder, project transcripts, file-history backups. */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** `CLAUDE_CONFIG_DIR`, else `~/.claude`. */
export function claudeConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.CLAUDE_CONFIG_DIR;
  return dir && dir.trim() !== '' ? dir : join(env.HOME || homedir(), '.claude');
}

/**
 * The project folder name for a cwd: every character outside [a-zA-Z0-9] becomes '-'; names over 200
 * characters are cut to 200 and get a '-<hash>' suffix. Lossy: the real path comes from the `cwd` field.
 */
export function encodeProjectDir(cwd: string): string {
  const name = cwd.replace(/[^a-zA-Z0-9]/g, '-');
  if (name.length <= 200) return name;
  const hash = createHash('sha256').update(cwd).digest('hex').slice(0, 16);
  return `${name.slice(0, 200)}-${hash}`;
}

export function projectDir(cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(claudeConfigDir(env), 'projects', encodeProjectDir(cwd));
}

/** `file-history/<sessionId>/`: the backups `/rewind` uses. */
export function fileHistoryDir(sessionId: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(claudeConfigDir(env), 'file-history', sessionId);
}

/** A reader for one session's backups; names that could leave the folder are refused. */
export function backupReader(
  sessionId: string,
  env: NodeJS.ProcessEnv = process.env,
): (name: string) => string | undefined {
  const dir = fileHistoryDir(sessionId, env);
  return (name) => {
    if (!/^[A-Za-z0-9@._-]+$/.test(name) || name.startsWith('.')) return undefined;
    try {
      return readFileSync(join(dir, name), 'utf8');
    } catch {
      return undefined;
    }
  };
}

/** The backup file name Claude Code gives a path: sha256(absolute path) cut to 16 hex digits, '@v' version. */
export function backupFileName(absolutePath: string, version: number): string {
  return `${createHash('sha256').update(absolutePath).digest('hex').slice(0, 16)}@v${version}`;
}
