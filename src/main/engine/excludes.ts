/**
 * What a checkpoint never captures (PRODUCT.md "What a checkpoint captures"). The defaults live twice, on
 * purpose: as gitignore patterns git applies while it walks the folder, and as a hard filter in JS applied to
 * every new path, so a user's `.gitignore` negation (`!.env`) can never pull a secret or a `.git` in.
 */

/** Gitignore patterns written into <shadow>/info/exclude before the folder's `.retraceignore`. */
export const DEFAULT_EXCLUDES = ['.git', 'node_modules/', '.env', '.env.*', '!.env.example', '.envrc'];

export function excludeFileContent(retraceIgnore: string | null): string {
  const lines = ['# Written by Retrace; regenerated when .retraceignore changes.', ...DEFAULT_EXCLUDES];
  if (retraceIgnore !== null) lines.push('# --- .retraceignore ---', retraceIgnore);
  return lines.join('\n') + '\n';
}

/**
 * <shadow>/info/attributes outranks every `.gitattributes` of the folder: no end-of-line conversion, filter
 * (e.g. LFS), ident or encoding step may change bytes between disk and checkpoint.
 */
export const SHADOW_ATTRIBUTES = '* -text -filter -ident -working-tree-encoding\n';

/** A `.git` segment in any case (git itself refuses those), so never in a checkpoint and never written. */
export function hasGitSegment(relPath: string): boolean {
  return relPath.split('/').some((s) => s.toLowerCase() === '.git');
}

/** `.env` files and direnv's `.envrc`, which exports the same secrets (`export API_KEY=…`). */
function isSecretName(name: string): boolean {
  return name === '.env' || name === '.envrc' || (name.startsWith('.env.') && name !== '.env.example');
}

/** True when the default rules exclude this workspace-relative path ('/'-separated), whatever .gitignore says. */
export function isHardExcluded(relPath: string): boolean {
  for (const seg of relPath.split('/')) {
    if (seg.toLowerCase() === '.git' || seg === 'node_modules' || isSecretName(seg)) return true;
  }
  return false;
}
