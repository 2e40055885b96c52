/**
 * What every agent's locator answers, and the pieces they share: the workspace as a place to compare
 * folders against, and cheap reads of the start of a transcript (a locator looks at many files that are not
 * this workspace's; it reads only as much of each as it needs to tell).
 */
import { closeSync, openSync, readdirSync, readSync, realpathSync, statSync, type Dirent } from 'node:fs';
import { resolve } from 'node:path';

export type DiscoverAgent = 'claude-code' | 'codex' | 'gemini' | 'cline';

export interface FoundSession {
  agent: DiscoverAgent;
  /** What `retrace import <agent>` takes: a transcript file, or Cline's task folder. */
  path: string;
  /** The id the import gives the session (the agent's own session id). */
  id: string;
  title: string;
  updatedAt: string;
  /** The file whose growth means the session went on (Cline: ui_messages.json). */
  transcript: string;
}

/** The workspace as locators compare it: its real path, case-folded where the file system ignores case. */
export interface Place {
  root: string;
  caseInsensitive: boolean;
  /** Other spellings of the same folder (the path as given, before symlinks were resolved). */
  spellings: string[];
}

/** True when `dir` (as an agent recorded it) is the workspace: symlinks resolved, case folded where it is. */
export function isPlace(place: Place, dir: string | null | undefined): boolean {
  if (!dir) return false;
  let real: string;
  try {
    real = realpathSync(resolve(dir));
  } catch {
    real = resolve(dir); // a folder that is gone cannot be this (existing) workspace, unless spelled the same
  }
  const norm = (p: string): string => {
    const n = p.replace(/[\\/]+$/, '') || p;
    return place.caseInsensitive ? n.toLowerCase() : n;
  };
  return norm(real) === norm(place.root);
}

/** The first `max` bytes of a file as text ('' when unreadable). */
export function readHead(file: string, max: number): string {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const buf = Buffer.alloc(max);
    const n = readSync(fd, buf, 0, max, 0);
    return buf.subarray(0, n).toString('utf8');
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The first line of a file, read in growing chunks so a long first line (Codex's session_meta) still fits. */
export function readFirstLine(file: string, limit = 4 << 20): string {
  for (let size = 64 << 10; ; size *= 4) {
    const text = readHead(file, size);
    const nl = text.indexOf('\n');
    if (nl >= 0) return text.slice(0, nl);
    if (text.length < size || size >= limit) return text;
  }
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function obj(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

/** A title: the first line, cut. */
export function titleOf(text: string | undefined, fallback: string): string {
  const line = text?.trim().split('\n')[0]?.trim();
  if (!line) return fallback;
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

export function mtimeIso(file: string): string {
  try {
    return statSync(file).mtime.toISOString();
  } catch {
    return new Date(0).toISOString();
  }
}

/** Entries of a folder (none when it is missing or unreadable). */
export function listDir(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}
