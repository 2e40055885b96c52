/**
 * `retrace demo [DIR]`: a small real project with a recorded three-turn agent session, made through the
 * engine exactly as the hooks would record it — user prompts, assistant replies, tool steps, and a
 * checkpoint after every step: files added, modified, renamed and deleted, and a binary file changed.
 * The README's first command and the e2e tests start from it.
 */
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync, existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { RetraceError } from '../../shared/errors';
import type { MessageMeta, Role } from '../../shared/model';
import { resolveWorkspace } from '../engine/workspace';
import { WorkspaceEngine } from '../engine/workspaceEngine';

export const DEMO_SESSION = 'demo';

export interface DemoResult {
  workspace: string;
  session: string;
  messages: number;
  checkpoints: number;
}

// Two 1×1 PNGs (red, then blue): a binary file the session changes.
const LOGO_RED = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const LOGO_BLUE = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPj/HwADBwIAMCbHYQAAAABJRU5ErkJggg==';

const INITIAL: Record<string, string | Buffer> = {
  'README.md': '# hello-cli\n\nA tiny command-line greeter.\n\n    node src/index.js World\n',
  'package.json': '{\n  "name": "hello-cli",\n  "version": "0.1.0",\n  "type": "module",\n  "bin": "src/index.js"\n}\n',
  'src/index.js':
    "#!/usr/bin/env node\nconst name = process.argv[2] ?? 'world';\nconsole.log('Hello, ' + name + '!');\n",
  'notes.txt': 'TODO: greet in more languages\nTODO: tests\n',
  'assets/logo.png': Buffer.from(LOGO_RED, 'base64'),
};

type Step =
  | { role: Exclude<Role, 'tool'>; text: string; checkpoint?: boolean }
  | { role: 'tool'; text: string; meta: MessageMeta; change: () => void };

export async function createDemo(opts: { dir?: string; dataHome: string }): Promise<DemoResult> {
  const root = opts.dir ? prepareFolder(resolve(opts.dir)) : mkdtempSync(join(tmpdir(), 'retrace-demo-'));
  const write = (rel: string, content: string | Buffer) => {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), content);
  };
  for (const [rel, content] of Object.entries(INITIAL)) write(rel, content);

  /** src/index.js once it calls the greeting module (its name changes in a later step). */
  const indexUsing = (module: string): string =>
    `#!/usr/bin/env node\nimport { greet } from './${module}.js';\n\nconst [name = 'world', lang] = process.argv.slice(2);\nconsole.log(greet(name, lang));\n`;
  const greet =
    "const greetings = { en: 'Hello', fr: 'Bonjour', de: 'Hallo' };\n\nexport function greet(name, lang = 'en') {\n  return `${greetings[lang] ?? greetings.en}, ${name}!`;\n}\n";
  const steps: Step[] = [
    {
      role: 'user',
      text: 'Move the greeting into its own module and let it greet in French and German too.',
      checkpoint: true,
    },
    {
      role: 'assistant',
      text: "I'll add src/greet.js with a small table of greetings, then use it from src/index.js.",
    },
    {
      role: 'tool',
      text: 'Write src/greet.js',
      meta: { tool: 'Write', file: 'src/greet.js' },
      change: () => write('src/greet.js', greet),
    },
    {
      role: 'tool',
      text: 'Edit src/index.js',
      meta: { tool: 'Edit', file: 'src/index.js' },
      change: () => write('src/index.js', indexUsing('greet')),
    },
    { role: 'assistant', text: 'Done: `node src/index.js Ada fr` prints "Bonjour, Ada!".', checkpoint: true },
    {
      role: 'user',
      text: 'Call the module greeting.js, drop notes.txt (the TODOs are done) and make the logo blue.',
      checkpoint: true,
    },
    {
      role: 'tool',
      text: 'Bash git mv src/greet.js src/greeting.js',
      meta: { tool: 'Bash', command: 'git mv src/greet.js src/greeting.js' },
      change: () => renameSync(join(root, 'src/greet.js'), join(root, 'src/greeting.js')),
    },
    {
      role: 'tool',
      text: 'Edit src/index.js',
      meta: { tool: 'Edit', file: 'src/index.js' },
      change: () => write('src/index.js', indexUsing('greeting')),
    },
    {
      role: 'tool',
      text: 'Bash rm notes.txt',
      meta: { tool: 'Bash', command: 'rm notes.txt' },
      change: () => rmSync(join(root, 'notes.txt')),
    },
    {
      role: 'tool',
      text: 'Write assets/logo.png',
      meta: { tool: 'Write', file: 'assets/logo.png' },
      change: () => write('assets/logo.png', Buffer.from(LOGO_BLUE, 'base64')),
    },
    { role: 'assistant', text: 'Renamed the module, removed notes.txt and swapped in a blue logo.', checkpoint: true },
    { role: 'user', text: 'Add a test for the greeting and mention it in the README.', checkpoint: true },
    {
      role: 'tool',
      text: 'Write test/greeting.test.js',
      meta: { tool: 'Write', file: 'test/greeting.test.js' },
      change: () =>
        write(
          'test/greeting.test.js',
          "import assert from 'node:assert/strict';\nimport { greet } from '../src/greeting.js';\n\nassert.equal(greet('Ada', 'fr'), 'Bonjour, Ada!');\nassert.equal(greet('Ada', 'xx'), 'Hello, Ada!');\nconsole.log('ok');\n",
        ),
    },
    {
      role: 'tool',
      text: 'Edit README.md',
      meta: { tool: 'Edit', file: 'README.md' },
      change: () =>
        write(
          'README.md',
          '# hello-cli\n\nA tiny command-line greeter.\n\n    node src/index.js World      # Hello, World!\n    node src/index.js Ada fr     # Bonjour, Ada!\n\nTest: `node test/greeting.test.js`\n',
        ),
    },
    { role: 'assistant', text: 'Added test/greeting.test.js and documented how to run it.', checkpoint: true },
  ];

  const ws = await resolveWorkspace(root, { dataHome: opts.dataHome });
  const engine = new WorkspaceEngine(ws, { actor: 'retrace demo' });
  const start = Date.now() - steps.length * 40_000;
  let checkpoints = 0;
  await engine.write(async () => {
    if (engine.sessions.exists(DEMO_SESSION))
      throw new RetraceError('E_INVALID_INPUT', `${root} has a demo session already; give an empty or new folder`);
    for (const [i, step] of steps.entries()) {
      const ts = new Date(start + i * 40_000).toISOString();
      if (step.role === 'tool') step.change();
      const checkpoint = step.role === 'tool' || step.checkpoint === true;
      await engine.recordLocked({
        session: DEMO_SESSION,
        role: step.role,
        text: step.text,
        ts,
        checkpoint,
        source: 'demo',
        title: 'Demo: a greeting CLI grows up',
        ...(step.role === 'tool' ? { meta: step.meta } : {}),
      });
      if (checkpoint) checkpoints++;
    }
  });
  return { workspace: ws.root, session: DEMO_SESSION, messages: steps.length, checkpoints };
}

/** A folder the demo may fill: new, or empty. */
function prepareFolder(dir: string): string {
  if (existsSync(dir)) {
    if (!statSync(dir).isDirectory()) throw new RetraceError('E_NOT_A_DIRECTORY', `${dir} is a file, not a folder`);
    if (readdirSync(dir).length > 0)
      throw new RetraceError('E_INVALID_INPUT', `${dir} is not empty; the demo needs an empty or new folder`);
  } else {
    mkdirSync(dir, { recursive: true });
  }
  return dir;
}
