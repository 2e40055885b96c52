/** `retrace install claude-code`: merges into existing settings, keeps everything else, twice = same bytes. */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { claudeHooksTurnedOff } from '../../src/main/integrations/claude-code/hooksSwitch';
import { CLI_BIN, cleanupTempDirs, cliJson, fileSha, makeWorkspace, runCli, tempDir, tempHome } from '../helpers';

afterAll(cleanupTempDirs);

const EXISTING = {
  model: 'opus',
  permissions: { allow: ['Bash(ls:*)'] },
  hooks: {
    PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo audit >> /tmp/audit.log' }] }],
    Notification: [{ hooks: [{ type: 'command', command: 'notify-send claude' }] }],
  },
};

/** PATH with git and node but no `retrace` (a machine may have one from `npm link`). */
const basePath = [dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin']
  .filter((d) => !existsSync(join(d, 'retrace')))
  .join(':');

describe('retrace install claude-code', () => {
  it('adds the three hooks to the user settings, keeps every other setting and hook, and is idempotent', async () => {
    const home = tempHome();
    const config = tempDir('retrace-claude-');
    const settings = join(config, 'settings.json');
    writeFileSync(settings, JSON.stringify(EXISTING, null, 4));
    const env = { CLAUDE_CONFIG_DIR: config };
    const res = await cliJson<{ settings: string; command: string; changed: boolean }>(['install', 'claude-code'], {
      home,
      env,
      path: basePath,
    });
    expect(res.settings).toBe(settings);
    expect(res.changed).toBe(true);
    // Without `retrace` on PATH the command names this installation's node and bin by absolute path.
    expect(res.command).toBe(`env NODE_EXTRA_CA_CERTS= ${process.execPath} ${CLI_BIN} hook claude-code`);
    const s = JSON.parse(readFileSync(settings, 'utf8'));
    expect(s.model).toBe('opus');
    expect(s.permissions).toEqual(EXISTING.permissions);
    expect(s.hooks.Notification).toEqual(EXISTING.hooks.Notification);
    expect(s.hooks.PostToolUse[0]).toEqual(EXISTING.hooks.PostToolUse[0]);
    const ours = { type: 'command', command: res.command, timeout: 30 };
    expect(s.hooks.PostToolUse[1]).toEqual({ matcher: 'Edit|Write|MultiEdit|NotebookEdit|Bash', hooks: [ours] });
    expect(s.hooks.UserPromptSubmit).toEqual([{ hooks: [ours] }]);
    expect(s.hooks.Stop).toEqual([{ hooks: [ours] }]);

    const sha = fileSha(settings);
    const again = await cliJson<{ changed: boolean }>(['install', 'claude-code', '--user'], {
      home,
      env,
      path: basePath,
    });
    expect(again.changed).toBe(false);
    expect(fileSha(settings)).toBe(sha);

    // The installed command really runs the hook (as Claude Code would: through a shell, payload on stdin).
    const ws = makeWorkspace({ 'a.txt': 'a\n' });
    execFileSync('sh', ['-c', res.command], {
      input: JSON.stringify({
        hook_event_name: 'UserPromptSubmit',
        session_id: 'installed-1',
        cwd: ws,
        prompt: 'hello',
      }),
      env: { ...process.env, RETRACE_HOME: home, PATH: basePath, CLAUDE_PROJECT_DIR: '' },
    });
    const log = await cliJson<{ session: string; messages: { text: string; hash: string }[] }>(['log', '--cwd', ws], {
      home,
    });
    expect(log).toMatchObject({ session: 'installed-1', messages: [{ text: 'hello' }] });
  });

  it('names the settings that keep Claude Code from running the hooks (disableAllHooks, a managed policy)', async () => {
    const home = tempHome();
    const config = tempDir('retrace-claude-');
    const env = { CLAUDE_CONFIG_DIR: config };
    const o = { home, env, path: basePath };
    type Res = { notes?: string[] };
    expect((await cliJson<Res>(['install', 'claude-code', '--command'], o)).notes).toBeUndefined();
    const settings = join(config, 'settings.json');
    writeFileSync(settings, JSON.stringify({ ...JSON.parse(readFileSync(settings, 'utf8')), disableAllHooks: true }));
    const off = await runCli(['install', 'claude-code', '--command'], o);
    expect(off.code).toBe(0);
    expect(off.stdout).toContain(
      `note: hooks are turned off in ${settings} (disableAllHooks: true): Claude Code runs none of Retrace's`,
    );
    // A project's personal settings count for a project install; an organisation's policy for any.
    writeFileSync(settings, '{}');
    const ws = makeWorkspace({ 'a.txt': 'a\n' });
    mkdirSync(join(ws, '.claude'));
    writeFileSync(join(ws, '.claude', 'settings.local.json'), JSON.stringify({ disableAllHooks: true }));
    const project = await cliJson<Res>(['install', 'claude-code', '--project', '--command', '--cwd', ws], o);
    expect(project.notes?.[0]).toContain(`${join(ws, '.claude', 'settings.local.json')} (disableAllHooks: true)`);
    const managed = join(tempDir('retrace-managed-'), 'managed-settings.json');
    writeFileSync(managed, JSON.stringify({ allowManagedHooksOnly: true }));
    expect(claudeHooksTurnedOff('user', { cwd: ws, env, managedSettings: managed })).toEqual({
      file: managed,
      key: 'allowManagedHooksOnly: true',
    });
    writeFileSync(managed, JSON.stringify({ allowManagedHooksOnly: false }));
    expect(claudeHooksTurnedOff('user', { cwd: ws, env, managedSettings: managed })).toBeNull();
  });

  it('with `retrace` on PATH it writes `retrace hook claude-code`, updating its old entry in place (no duplicates)', async () => {
    const home = tempHome();
    const config = tempDir('retrace-claude-');
    const bin = tempDir('retrace-bin-');
    writeFileSync(join(bin, 'retrace'), '#!/bin/sh\nexit 0\n');
    chmodSync(join(bin, 'retrace'), 0o755);
    const env = { CLAUDE_CONFIG_DIR: config };
    await cliJson(['install', 'claude-code'], { home, env, path: basePath }); // first: absolute paths
    const res = await cliJson<{ command: string; changed: boolean }>(['install', 'claude-code'], {
      home,
      env,
      path: `${bin}:${basePath}`,
    });
    expect(res).toMatchObject({ command: 'env NODE_EXTRA_CA_CERTS= retrace hook claude-code', changed: true });
    const s = JSON.parse(readFileSync(join(config, 'settings.json'), 'utf8'));
    for (const event of ['UserPromptSubmit', 'PostToolUse', 'Stop']) {
      const commands = s.hooks[event].flatMap((g: { hooks: { command: string }[] }) => g.hooks.map((h) => h.command));
      expect(commands).toEqual(['env NODE_EXTRA_CA_CERTS= retrace hook claude-code']);
    }
  });

  it('--project writes <cwd>/.claude/settings.json; invalid JSON is reported and left byte-identical', async () => {
    const home = tempHome();
    const ws = makeWorkspace({ 'a.txt': 'a\n' });
    const res = await cliJson<{ settings: string }>(['install', 'claude-code', '--project', '--cwd', ws], {
      home,
      path: basePath,
    });
    expect(res.settings).toBe(join(ws, '.claude', 'settings.json'));
    expect(Object.keys(JSON.parse(readFileSync(res.settings, 'utf8')).hooks)).toEqual([
      'UserPromptSubmit',
      'PostToolUse',
      'Stop',
    ]);

    const config = tempDir('retrace-claude-');
    mkdirSync(config, { recursive: true });
    const broken = join(config, 'settings.json');
    writeFileSync(broken, '{ "model": "opus", }\n');
    const sha = fileSha(broken);
    const r = await runCli(['install', 'claude-code', '--json'], {
      home,
      env: { CLAUDE_CONFIG_DIR: config },
      path: basePath,
    });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^retrace: .*settings\.json is not valid JSON .*left unchanged/);
    expect((r.json as { error: { code: string } }).error.code).toBe('E_INVALID_INPUT');
    expect(fileSha(broken)).toBe(sha);
    expect(existsSync(`${broken}.retrace-tmp`)).toBe(false);

    const both = await runCli(['install', 'claude-code', '--user', '--project'], { home, path: basePath });
    expect(both.code).toBe(2);
  });

  it('HTTP hooks carry a secret: the user file becomes 0600, a project gets them in settings.local.json, never in the shared file', async () => {
    const home = tempHome();
    const config = tempDir('retrace-claude-');
    mkdirSync(config, { recursive: true });
    const user = join(config, 'settings.json');
    writeFileSync(user, JSON.stringify(EXISTING), { mode: 0o644 });
    chmodSync(user, 0o644);
    const env = { CLAUDE_CONFIG_DIR: config };
    await cliJson(['install', 'claude-code', '--http'], { home, env, path: basePath });
    expect(statSync(user).mode & 0o777).toBe(0o600);
    expect(readFileSync(user, 'utf8')).toContain('X-Retrace-Secret');
    // Command hooks carry nothing secret: the file keeps the mode it has (here the owner's 0640).
    chmodSync(user, 0o640);
    await cliJson(['install', 'claude-code', '--command'], { home, env, path: basePath });
    expect(statSync(user).mode & 0o777).toBe(0o640);

    // A project first installed with command hooks (shared settings), then with HTTP hooks: they move to the
    // personal file, and the shared one keeps everything but ours (both files' hooks would run: a double record).
    const ws = makeWorkspace({ 'a.txt': 'a\n' });
    const shared = join(ws, '.claude', 'settings.json');
    mkdirSync(dirname(shared), { recursive: true });
    writeFileSync(shared, JSON.stringify(EXISTING));
    await cliJson(['install', 'claude-code', '--project', '--command', '--cwd', ws], { home, path: basePath });
    expect(readFileSync(shared, 'utf8')).toContain('hook claude-code');
    const res = await cliJson<{ settings: string }>(['install', 'claude-code', '--project', '--http', '--cwd', ws], {
      home,
      path: basePath,
    });
    expect(res.settings).toBe(join(ws, '.claude', 'settings.local.json'));
    expect(statSync(res.settings).mode & 0o777).toBe(0o600);
    const local = JSON.parse(readFileSync(res.settings, 'utf8')) as { hooks: Record<string, unknown> };
    expect(Object.keys(local.hooks)).toEqual(['UserPromptSubmit', 'PostToolUse', 'Stop']);
    const sharedNow = readFileSync(shared, 'utf8');
    expect(sharedNow).not.toContain('hook claude-code');
    expect(sharedNow).not.toContain('X-Retrace-Secret');
    expect(JSON.parse(sharedNow)).toEqual(EXISTING);
  });
});
