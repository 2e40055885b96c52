/**
 * The environment every git child gets. Inherited GIT_* variables (GIT_DIR, GIT_INDEX_FILE, GIT_WORK_TREE from
 * a hook that runs us, …) would point git at the user's repository, so all are dropped; so are the editor/pager
 * variables git would honour. Then the few we need are set.
 */
const DROPPED = new Set(['editor', 'visual', 'pager', 'prefix', 'ssh_askpass', 'less', 'lv']);

export const GIT_ENV_SET: Readonly<Record<string, string>> = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_TERMINAL_PROMPT: '0',
  GIT_OPTIONAL_LOCKS: '0',
  LC_ALL: 'C',
  LANGUAGE: 'C',
};

export function gitEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(base)) {
    const k = key.toLowerCase();
    if (value === undefined || k.startsWith('git_') || DROPPED.has(k)) continue;
    env[key] = value;
  }
  return { ...env, ...GIT_ENV_SET };
}
