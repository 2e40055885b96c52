/**
 * Gemini CLI's own folder, for the install and discovery alike: GEMINI_DIR where set, else
 * `<GEMINI_CLI_HOME or HOME>/.gemini` (GEMINI_CLI_HOME is the documented variable: the folder that holds `.gemini`).
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

export function geminiDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.GEMINI_DIR && env.GEMINI_DIR.trim() !== '') return env.GEMINI_DIR;
  const home = env.GEMINI_CLI_HOME && env.GEMINI_CLI_HOME.trim() !== '' ? env.GEMINI_CLI_HOME : env.HOME || homedir();
  return join(home, '.gemini');
}
