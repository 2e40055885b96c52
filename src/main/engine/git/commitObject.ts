import { SHADOW_IDENTITY } from './runner';

/** A moment as git writes it in a commit: seconds since the epoch and the local UTC offset in minutes. */
export interface GitTime {
  seconds: number;
  offsetMinutes: number;
}

/** Now, in the local time zone (TZ), as git's own clock and local_tzoffset give it. */
export function gitNow(date = new Date()): GitTime {
  return { seconds: Math.floor(date.getTime() / 1000), offsetMinutes: -date.getTimezoneOffset() };
}

/** `+0130`, `-0800`: the offset as git prints it after a timestamp. */
export function gitTimezone(offsetMinutes: number): string {
  const abs = Math.abs(offsetMinutes);
  const hhmm = String(Math.floor(abs / 60)).padStart(2, '0') + String(abs % 60).padStart(2, '0');
  return (offsetMinutes < 0 ? '-' : '+') + hhmm;
}

/**
 * Whether git would store `message` byte for byte. git rewrites a message it finds not to be clean UTF-8
 * (commit.c verify_utf8: it also refuses the non-characters U+FDD0–U+FDEF and U+xxFFFE/U+xxFFFF) and a NUL
 * would end it in places: such messages go to `git commit-tree` instead of being written here.
 */
export function storedVerbatim(message: string): boolean {
  for (const ch of message) {
    const cp = ch.codePointAt(0)!;
    if (cp === 0 || (cp & 0xfffe) === 0xfffe || (cp >= 0xfdd0 && cp <= 0xfdef)) return false;
    if (cp >= 0xd800 && cp <= 0xdfff) return false; // a lone surrogate: not UTF-8 at all
  }
  return true;
}

/**
 * The body of the commit object `git commit-tree <tree> [-p <parent>] -F -` writes with Retrace's identity
 * (author = committer) at `when`: headers, a blank line, then the message as given (commit-tree adds nothing).
 */
export function commitBody(tree: string, parent: string | null, message: string, when: GitTime): Buffer {
  const person = `${SHADOW_IDENTITY.name} <${SHADOW_IDENTITY.email}> ${when.seconds} ${gitTimezone(when.offsetMinutes)}`;
  const headers = `tree ${tree}\n${parent ? `parent ${parent}\n` : ''}author ${person}\ncommitter ${person}\n\n`;
  return Buffer.concat([Buffer.from(headers, 'utf8'), Buffer.from(message, 'utf8')]);
}
