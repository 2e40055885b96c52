import type { GitRunner } from './runner';

/**
 * An annotated tag object on `commit` whose message is `text` (one line), with Retrace's fixed identity. The
 * object alone names nothing: the caller points a ref at it. mktag checks the object before writing it.
 */
export async function makeTag(git: GitRunner, commit: string, name: string, text: string): Promise<string> {
  const seconds = Math.floor(Date.now() / 1000);
  const body =
    `object ${commit}\ntype commit\ntag ${name}\n` + `tagger Retrace <retrace@localhost> ${seconds} +0000\n\n${text}\n`;
  const { stdout } = await git.exec(['mktag'], { stdin: Buffer.from(body, 'utf8') });
  return stdout.toString('utf8').trim();
}

/** Every ref under `prefix` with the first line of the tag it points to ('' for a ref that is no tag). */
export async function tagSubjects(git: GitRunner, prefix: string): Promise<{ ref: string; subject: string }[]> {
  const out = await git.raw(['for-each-ref', '--format=%(refname)%00%(contents:subject)', prefix]);
  const list: { ref: string; subject: string }[] = [];
  for (const line of out.split('\n')) {
    const nul = line.indexOf('\0');
    if (nul > 0) list.push({ ref: line.slice(0, nul), subject: line.slice(nul + 1) });
  }
  return list;
}
