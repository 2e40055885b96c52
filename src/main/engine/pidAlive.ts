import { readFileSync } from 'node:fs';

/**
 * Whether a process with this pid is alive: the one test behind every "is its owner still running?" (a lock's
 * holder, a resident shell's folder, the hook server, a move's set-aside folder). EPERM: alive, another user's. A
 * zombie is dead: a process that died stays one until its parent or init reaps it (containers reap lazily).
 */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (process.platform !== 'linux') return true;
  try {
    return !/^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}
