/**
 * Where the hook server of a data home listens and keeps its pid file. Shared by the tiny client and the
 * server, so it imports only node: built-ins (and privateFs.ts, which does too).
 *
 * The socket lives in a 0700 folder of the data home. A Unix socket path must fit sun_path (104 bytes on
 * macOS, 108 on Linux): a longer one moves to a 0700 folder in the temp dir named for the uid and a hash of
 * the data home. Windows uses a named pipe named the same way.
 */
import { chmodSync, lstatSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mkdirPrivateSync } from '../../engine/privateFs';

export interface HookServerPaths {
  /** <data home>/hook-server: the pid file, and the socket when its path is short enough. */
  dir: string;
  pidFile: string;
  /** Left by a server that could not start, so that calls do not start one after another in vain. */
  failedFile: string;
  /** The folder holding the socket (dir, or the short one in the temp dir); null for a named pipe. */
  socketDir: string | null;
  socket: string;
}

/** Longest socket path accepted everywhere (macOS: 104 bytes including the terminating NUL). */
const SUN_PATH_MAX = 103;

export function hookServerPaths(dataHome: string, platform: string = process.platform): HookServerPaths {
  const dir = path.join(dataHome, 'hook-server');
  const pidFile = path.join(dir, 'server.pid');
  const failedFile = path.join(dir, 'start-failed');
  const tag = nameHash(dataHome);
  if (platform === 'win32') {
    const user = os.userInfo().username.replace(/[^A-Za-z0-9_-]/g, '_');
    return { dir, pidFile, failedFile, socketDir: null, socket: `\\\\.\\pipe\\retrace-hook-${user}-${tag}` };
  }
  const socket = path.join(dir, 'hook.sock');
  if (Buffer.byteLength(socket) <= SUN_PATH_MAX) return { dir, pidFile, failedFile, socketDir: dir, socket };
  const shortDir = path.join(os.tmpdir(), `retrace-${process.getuid?.() ?? 'u'}-${tag}`);
  return { dir, pidFile, failedFile, socketDir: shortDir, socket: path.join(shortDir, 'hook.sock') };
}

/**
 * A short stable tag for a data home (two 32-bit FNV-1a hashes). It only names a folder, which is checked to
 * be ours; node:crypto would cost the client ~5 ms of start-up.
 */
export function nameHash(s: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 15);
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

/** Whether the socket path fits (the temp dir itself may be long); no server otherwise. */
export function socketPathFits(p: HookServerPaths): boolean {
  return p.socketDir === null || Buffer.byteLength(p.socket) <= SUN_PATH_MAX;
}

/**
 * Create `dir` (0700) if needed and check it is a real folder of ours that no one else can enter — a folder
 * in the shared temp dir could have been made by another user to catch our requests (they carry our env).
 */
export function ensurePrivateDir(dir: string): boolean {
  try {
    mkdirPrivateSync(dir);
    if (process.platform === 'win32') return true;
    const st = lstatSync(dir);
    if (!st.isDirectory() || st.uid !== process.getuid?.()) return false;
    if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
    return true;
  } catch {
    return false;
  }
}

/** The client's check before it sends anything: `dir` is a real folder of ours that only we can enter. */
export function isPrivateDir(dir: string): boolean {
  if (process.platform === 'win32') return true;
  try {
    const st = lstatSync(dir);
    return st.isDirectory() && st.uid === process.getuid?.() && (st.mode & 0o077) === 0;
  } catch {
    return false;
  }
}
