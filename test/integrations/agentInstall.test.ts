/**
 * `retrace install codex` and `retrace install gemini`: merge into the agent's existing hooks file, keep
 * everything else, twice = the same bytes, refuse a file that is not JSON and leave it byte-identical. The
 * installed command really runs the hook as the agent would (through a shell, payload on stdin, `{}` back).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_BIN, cleanupTempDirs, cliJson, fileSha, makeWorkspace, runCli, tempDir, tempHome } from '../helpers';

afterAll(cleanupTempDirs);

/** PATH with git and node but no `retrace` (a machine may have one from `npm link`). */
const basePath = [dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin']
  .filter((d) => !existsSync(join(d, 'retrace')))
  .join(':');

interface Installed {
  settings: string;
  command: string;
  changed: boolean;
  events: string[];
  notes?: string[];
}

type Groups = { matcher?: string; hooks: { command: string }[] }[];

describe('retrace install codex', () => {
  const EXISTING = {
    hooks: {
      PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo audit >> /tmp/audit.log' }] }],
      SessionStart: [{ matcher: 'startup', hooks: [{ type: 'command', command: 'cat NOTES.md', timeout: 5 }] }],
    },
  };

  it('writes $CODEX_HOME/hooks.json, keeps the hooks already there, is idempotent, and the command records', async () => {
    const home = tempHome();
    const codexHome = tempDir('retrace-codex-');
    const file = join(codexHome, 'hooks.json');
    writeFileSync(file, JSON.stringify(EXISTING, null, 4));
    const env = { CODEX_HOME: codexHome };
    const res = await cliJson<Installed>(['install', 'codex'], { home, env, path: basePath });
    expect(res).toMatchObject({ settings: file, changed: true, events: ['UserPromptSubmit', 'PostToolUse', 'Stop'] });
    expect(res.command).toBe(`env NODE_EXTRA_CA_CERTS= ${process.execPath} ${CLI_BIN} hook codex`);
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { hooks: Record<string, Groups> };
    const ours = { type: 'command', command: res.command, timeout: 30 };
    expect(doc.hooks.SessionStart).toEqual(EXISTING.hooks.SessionStart);
    expect(doc.hooks.PostToolUse).toEqual([
      ...EXISTING.hooks.PostToolUse,
      { matcher: 'Bash|apply_patch', hooks: [ours] },
    ]);
    expect(doc.hooks.UserPromptSubmit).toEqual([{ hooks: [ours] }]);
    expect(doc.hooks.Stop).toEqual([{ hooks: [ours] }]);

    const sha = fileSha(file);
    const again = await cliJson<Installed>(['install', 'codex', '--user'], { home, env, path: basePath });
    expect(again.changed).toBe(false);
    expect(fileSha(file)).toBe(sha);

    // As Codex runs it: through a shell, in the session's cwd, payload on stdin; `{}` is its answer. The
    // agent's environment names extra CA certificates (here a missing file): the hook's Node must not load
    // them (Node 20 would, at start-up: ~120 ms a call, and a warning on stderr for a file it cannot read).
    const ws = makeWorkspace({ 'a.txt': 'a\n' });
    const run = spawnSync('sh', ['-c', res.command], {
      cwd: ws,
      input: JSON.stringify({
        hook_event_name: 'UserPromptSubmit',
        session_id: 'codex-installed-1',
        cwd: ws,
        prompt: 'hello',
      }),
      env: { ...process.env, RETRACE_HOME: home, PATH: basePath, NODE_EXTRA_CA_CERTS: join(ws, 'no-such-ca.pem') },
      encoding: 'utf8',
    });
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('{}\n');
    const log = await cliJson<{ session: string; messages: { text: string }[] }>(['log', '--cwd', ws], { home });
    expect(log).toMatchObject({ session: 'codex-installed-1', messages: [{ text: 'hello' }] });
    const sessions = await cliJson<{ source: string }[]>(['sessions', '--cwd', ws], { home });
    expect(sessions).toMatchObject([{ source: 'codex' }]);
  });

  it('--project writes <cwd>/.codex/hooks.json; invalid JSON is refused (E_INVALID_INPUT) and left byte-identical', async () => {
    const home = tempHome();
    const ws = makeWorkspace({ 'a.txt': 'a\n' });
    const res = await cliJson<Installed>(['install', 'codex', '--project', '--cwd', ws], { home, path: basePath });
    expect(res.settings).toBe(join(ws, '.codex', 'hooks.json'));
    expect(Object.keys(JSON.parse(readFileSync(res.settings, 'utf8')).hooks)).toEqual([
      'UserPromptSubmit',
      'PostToolUse',
      'Stop',
    ]);

    const codexHome = tempDir('retrace-codex-');
    const broken = join(codexHome, 'hooks.json');
    writeFileSync(broken, '{ "hooks": { "Stop": [] }, }\n');
    const sha = fileSha(broken);
    const r = await runCli(['install', 'codex', '--json'], { home, env: { CODEX_HOME: codexHome }, path: basePath });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^retrace: .*hooks\.json is not valid JSON .*left unchanged/);
    expect((r.json as { error: { code: string } }).error.code).toBe('E_INVALID_INPUT');
    expect(fileSha(broken)).toBe(sha);
    expect(existsSync(`${broken}.retrace-tmp`)).toBe(false);

    writeFileSync(broken, JSON.stringify({ hooks: { Stop: { not: 'a list' } } }));
    const shape = await runCli(['install', 'codex', '--json'], {
      home,
      env: { CODEX_HOME: codexHome },
      path: basePath,
    });
    expect(shape.code).toBe(1);
    expect((shape.json as { error: { code: string } }).error.code).toBe('E_INVALID_INPUT');

    const both = await runCli(['install', 'codex', '--user', '--project'], { home, path: basePath });
    expect(both.code).toBe(2);
  });

  it('says Codex runs the hooks once trusted, and names a config.toml that turns its hooks off', async () => {
    const home = tempHome();
    const codexHome = tempDir('retrace-codex-');
    const env = { CODEX_HOME: codexHome };
    const on = await cliJson<Installed>(['install', 'codex'], { home, env, path: basePath });
    expect(on.notes).toEqual(['Codex runs these hooks once you trust them: open /hooks in Codex']);

    const config = join(codexHome, 'config.toml');
    writeFileSync(config, 'model = "gpt-5"\n\n[features]\nhooks = false\n');
    const off = await runCli(['install', 'codex'], { home, env, path: basePath });
    expect(off.code).toBe(0);
    expect(off.stdout).toContain(
      `note: hooks are turned off in ${config} ([features] hooks = false): Codex runs none until that is changed`,
    );

    // The older name Codex still reads; a project's own layer outranks the user's for that project.
    writeFileSync(config, '[features]\ncodex_hooks = false\n');
    const ws = makeWorkspace({ 'a.txt': 'a\n' });
    const project = () =>
      cliJson<Installed>(['install', 'codex', '--project', '--cwd', ws], { home, env, path: basePath });
    expect((await project()).notes?.[1]).toMatch(/\(\[features\] codex_hooks = false\)/);
    mkdirSync(join(ws, '.codex'), { recursive: true });
    writeFileSync(join(ws, '.codex', 'config.toml'), '[features]\nhooks = true\n');
    expect((await project()).notes).toEqual([
      "Codex runs these hooks once you trust them: open /hooks in Codex (and trust the project's .codex folder when it asks)",
    ]);
    // A config.toml Codex itself cannot read says nothing here (Codex reports it).
    writeFileSync(config, '[features\nhooks = false\n');
    expect((await cliJson<Installed>(['install', 'codex'], { home, env, path: basePath })).notes).toHaveLength(1);
  });
});

describe('retrace install codex|gemini with `retrace` on PATH', () => {
  it('writes `retrace hook AGENT`, updates its older entry in place, and leaves another agent’s Retrace hook alone', async () => {
    const home = tempHome();
    const bin = tempDir('retrace-bin-');
    writeFileSync(join(bin, 'retrace'), '#!/bin/sh\nexit 0\n');
    chmodSync(join(bin, 'retrace'), 0o755);
    const codexHome = tempDir('retrace-codex-');
    const geminiDir = tempDir('retrace-geminidir-');
    // A Claude Code hook carried over by `gemini hooks migrate --from-claude`: not ours to touch.
    const claude = { type: 'command', command: 'retrace hook claude-code' };
    writeFileSync(
      join(geminiDir, 'settings.json'),
      JSON.stringify({ hooks: { AfterTool: [{ matcher: 'write_file', hooks: [claude] }] } }),
    );
    const env = { CODEX_HOME: codexHome, GEMINI_DIR: geminiDir };
    for (const agent of ['codex', 'gemini']) {
      await cliJson(['install', agent], { home, env, path: basePath }); // first: absolute paths
      const res = await cliJson<Installed>(['install', agent], { home, env, path: `${bin}:${basePath}` });
      expect(res).toMatchObject({ command: `env NODE_EXTRA_CA_CERTS= retrace hook ${agent}`, changed: true });
      const doc = JSON.parse(readFileSync(res.settings, 'utf8')) as { hooks: Record<string, Groups> };
      for (const event of res.events) {
        const commands = doc.hooks[event]!.flatMap((g) => g.hooks.map((h) => h.command));
        expect(commands).toEqual(
          agent === 'gemini' && event === 'AfterTool'
            ? [claude.command, 'env NODE_EXTRA_CA_CERTS= retrace hook gemini']
            : [`env NODE_EXTRA_CA_CERTS= retrace hook ${agent}`],
        );
      }
    }
  });
});

describe('retrace install gemini', () => {
  const EXISTING = {
    model: { name: 'gemini-2.5-pro' },
    general: { checkpointing: { enabled: true } },
    hooks: {
      BeforeTool: [
        { matcher: 'run_shell_command', hooks: [{ name: 'guard', type: 'command', command: './guard.sh' }] },
      ],
      AfterTool: [{ matcher: 'write_file', hooks: [{ name: 'fmt', type: 'command', command: 'prettier --write' }] }],
    },
  };

  it('writes ~/.gemini/settings.json, keeps every setting and hook, is idempotent, and the command records', async () => {
    const home = tempHome();
    const userHome = tempDir('retrace-userhome-');
    const file = join(userHome, '.gemini', 'settings.json');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(EXISTING, null, 2));
    const env = { HOME: userHome, GEMINI_DIR: undefined, GEMINI_CLI_HOME: undefined };
    const res = await cliJson<Installed>(['install', 'gemini'], { home, env, path: basePath });
    expect(res).toMatchObject({ settings: file, changed: true, events: ['BeforeAgent', 'AfterTool', 'AfterAgent'] });
    expect(res.command).toBe(`env NODE_EXTRA_CA_CERTS= ${process.execPath} ${CLI_BIN} hook gemini`);
    const doc = JSON.parse(readFileSync(file, 'utf8')) as typeof EXISTING & { hooks: Record<string, Groups> };
    expect(doc.model).toEqual(EXISTING.model);
    expect(doc.general).toEqual(EXISTING.general);
    const ours = { name: 'retrace', type: 'command', command: res.command, timeout: 30000 }; // Gemini: milliseconds
    expect(doc.hooks.BeforeTool).toEqual(EXISTING.hooks.BeforeTool);
    expect(doc.hooks.AfterTool).toEqual([
      ...EXISTING.hooks.AfterTool,
      { matcher: 'write_file|replace|run_shell_command', hooks: [ours] },
    ]);
    expect(doc.hooks.BeforeAgent).toEqual([{ hooks: [ours] }]);
    expect(doc.hooks.AfterAgent).toEqual([{ hooks: [ours] }]);

    const sha = fileSha(file);
    expect((await cliJson<Installed>(['install', 'gemini'], { home, env, path: basePath })).changed).toBe(false);
    expect(fileSha(file)).toBe(sha);

    const ws = makeWorkspace({ 'a.txt': 'a\n' });
    const out = execFileSync('sh', ['-c', res.command], {
      cwd: ws,
      input: JSON.stringify({
        hook_event_name: 'BeforeAgent',
        session_id: 'gemini-installed-1',
        cwd: ws,
        prompt: 'hi',
      }),
      env: { ...process.env, RETRACE_HOME: home, PATH: basePath, GEMINI_PROJECT_DIR: ws },
    }).toString();
    expect(out).toBe('{}\n');
    const log = await cliJson<{ session: string; messages: { text: string }[] }>(['log', '--cwd', ws], { home });
    expect(log).toMatchObject({ session: 'gemini-installed-1', messages: [{ text: 'hi' }] });
  });

  it('follows GEMINI_CLI_HOME and GEMINI_DIR; --project writes .gemini/settings.json; invalid JSON is refused untouched', async () => {
    const home = tempHome();
    const cliHome = tempDir('retrace-geminihome-');
    const viaCliHome = await cliJson<Installed>(['install', 'gemini'], {
      home,
      env: { GEMINI_CLI_HOME: cliHome, GEMINI_DIR: undefined },
      path: basePath,
    });
    expect(viaCliHome.settings).toBe(join(cliHome, '.gemini', 'settings.json'));
    const geminiDir = tempDir('retrace-geminidir-');
    const viaDir = await cliJson<Installed>(['install', 'gemini'], {
      home,
      env: { GEMINI_DIR: geminiDir, GEMINI_CLI_HOME: cliHome },
      path: basePath,
    });
    expect(viaDir.settings).toBe(join(geminiDir, 'settings.json'));

    const ws = makeWorkspace({ 'a.txt': 'a\n' });
    const project = await cliJson<Installed>(['install', 'gemini', '--project', '--cwd', ws], { home, path: basePath });
    expect(project.settings).toBe(join(ws, '.gemini', 'settings.json'));

    const broken = join(geminiDir, 'settings.json');
    writeFileSync(broken, '// comments are not JSON\n{ "model": {} }\n');
    const sha = fileSha(broken);
    const r = await runCli(['install', 'gemini', '--json'], { home, env: { GEMINI_DIR: geminiDir }, path: basePath });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^retrace: .*settings\.json is not valid JSON .*left unchanged/);
    expect((r.json as { error: { code: string } }).error.code).toBe('E_INVALID_INPUT');
    expect(fileSha(broken)).toBe(sha);
  });

  it('says a project install runs only in a trusted folder, and names the setting that turns Retrace hooks off', async () => {
    const home = tempHome();
    const geminiDir = tempDir('retrace-geminidir-');
    const env = { GEMINI_DIR: geminiDir };
    const user = await cliJson<Installed>(['install', 'gemini'], { home, env, path: basePath });
    expect(user.notes).toBeUndefined();
    const settings = join(geminiDir, 'settings.json');
    const doc = JSON.parse(readFileSync(settings, 'utf8')) as Record<string, unknown>;

    // `/hooks disable retrace` writes the name into hooksConfig.disabled.
    writeFileSync(settings, JSON.stringify({ ...doc, hooksConfig: { disabled: ['retrace'] } }));
    const named = await runCli(['install', 'gemini'], { home, env, path: basePath });
    expect(named.code).toBe(0);
    expect(named.stdout).toContain(
      `note: hooks are turned off in ${settings} (hooksConfig.disabled lists "retrace"): Gemini CLI runs none of Retrace's until that is changed`,
    );
    // All of them, with the older switch; a project's own setting outranks the user's there.
    writeFileSync(settings, JSON.stringify({ ...doc, tools: { enableHooks: false } }));
    const ws = makeWorkspace({ 'a.txt': 'a\n' });
    const project = () =>
      cliJson<Installed>(['install', 'gemini', '--project', '--cwd', ws], { home, env, path: basePath });
    const off = await project();
    expect(off.notes?.[0]).toBe('Gemini CLI runs these hooks only in a folder it trusts: /permissions in Gemini CLI');
    expect(off.notes?.[1]).toMatch(/\(tools\.enableHooks is false\)/);
    const projectSettings = join(ws, '.gemini', 'settings.json');
    const projectDoc = JSON.parse(readFileSync(projectSettings, 'utf8')) as Record<string, unknown>;
    writeFileSync(projectSettings, JSON.stringify({ ...projectDoc, hooksConfig: { enabled: true } }));
    expect((await project()).notes).toHaveLength(1);
  });

  it('an unknown agent is a usage error', async () => {
    const r = await runCli(['install', 'cursor'], { home: tempHome(), path: basePath });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown integration "cursor"/);
  });
});

describe('retrace uninstall', () => {
  interface Uninstalled {
    settings: string[];
    removedFrom: string[];
    scope: string;
  }
  const THEIRS = { type: 'command', command: 'echo audit >> /tmp/audit.log' };

  it('takes out what install added for each agent, keeping every other hook and setting; twice changes nothing', async () => {
    const home = tempHome();
    const ws = makeWorkspace({ 'a.txt': 'a\n' });
    const env = {
      CODEX_HOME: tempDir('retrace-codex-'),
      GEMINI_DIR: tempDir('retrace-gemini-'),
      CLAUDE_CONFIG_DIR: tempDir('retrace-claude-'),
    };
    const o = { home, env, path: basePath };
    for (const [agent, file, tool] of [
      ['codex', join(env.CODEX_HOME, 'hooks.json'), 'PostToolUse'],
      ['gemini', join(env.GEMINI_DIR, 'settings.json'), 'AfterTool'],
      ['claude-code', join(env.CLAUDE_CONFIG_DIR, 'settings.json'), 'PostToolUse'],
    ] as const) {
      const before = { theme: 'dark', hooks: { [tool]: [{ matcher: 'Bash', hooks: [THEIRS] }] } };
      writeFileSync(file, JSON.stringify(before, null, 2) + '\n');
      await cliJson(['install', agent, ...(agent === 'claude-code' ? ['--command'] : [])], o);
      expect(readFileSync(file, 'utf8')).toContain('hook ' + agent);
      const res = await cliJson<Uninstalled>(['uninstall', agent], o);
      expect(res, agent).toEqual({ settings: [file], removedFrom: [file], scope: 'user' });
      expect(JSON.parse(readFileSync(file, 'utf8')), agent).toEqual(before);
      const sha = fileSha(file);
      expect((await cliJson<Uninstalled>(['uninstall', agent], o)).removedFrom).toEqual([]);
      expect(fileSha(file)).toBe(sha);
    }
    // What was recorded stays: uninstalling only stops new recording.
    expect((await runCli(['checkpoint', '--cwd', ws], o)).code).toBe(0);
    expect((await cliJson<unknown[]>(['sessions', '--cwd', ws], o)).length).toBe(1);
  });

  it('--project takes Claude Code hooks out of the shared and the personal settings; a malformed file is refused untouched', async () => {
    const home = tempHome();
    const ws = makeWorkspace({ 'a.txt': 'a\n' });
    const o = { home, path: basePath, env: { CLAUDE_CONFIG_DIR: tempDir('retrace-claude-') } };
    await cliJson(['install', 'claude-code', '--project', '--http', '--cwd', ws], o);
    const local = join(ws, '.claude', 'settings.local.json');
    const shared = join(ws, '.claude', 'settings.json');
    writeFileSync(shared, JSON.stringify({ hooks: { Stop: [{ hooks: [THEIRS] }] } }));
    const res = await cliJson<Uninstalled>(['uninstall', 'claude-code', '--project', '--cwd', ws], o);
    expect(res).toEqual({ settings: [shared, local], removedFrom: [local], scope: 'project' });
    expect(JSON.parse(readFileSync(local, 'utf8'))).toEqual({ hooks: {} });
    expect(JSON.parse(readFileSync(shared, 'utf8'))).toEqual({ hooks: { Stop: [{ hooks: [THEIRS] }] } });

    writeFileSync(shared, '{ "hooks": {}, }\n');
    const sha = fileSha(shared);
    const r = await runCli(['uninstall', 'claude-code', '--project', '--cwd', ws, '--json'], o);
    expect([r.code, (r.json as { error: { code: string } }).error.code]).toEqual([1, 'E_INVALID_INPUT']);
    expect(r.stderr).toMatch(/settings\.json is not valid JSON .*left unchanged/);
    expect(fileSha(shared)).toBe(sha);
    expect((await runCli(['uninstall', 'cursor'], o)).code).toBe(2);
  });
});
