import { describe, expect, it } from 'vitest';
import { patchPaths, planCodexHook } from './hook';

describe('planCodexHook', () => {
  const base = { session_id: 's1', turn_id: 't1', cwd: '/repo', transcript_path: null, model: 'm' };

  it('an apply_patch names every file it adds, updates, moves to and deletes: all become hints', () => {
    const patch = [
      '*** Begin Patch',
      '*** Update File: src/a.ts',
      '*** Move to: src/b.ts',
      '@@',
      '-old',
      '+new',
      '*** Add File: docs/new.md',
      '+hello',
      '*** Delete File: old.txt',
      '*** End Patch',
    ].join('\n');
    expect(patchPaths(patch)).toEqual(['src/a.ts', 'src/b.ts', 'docs/new.md', 'old.txt']);
    const plan = planCodexHook({
      ...base,
      hook_event_name: 'PostToolUse',
      tool_name: 'apply_patch',
      tool_use_id: 'call_1',
      tool_input: { command: patch },
    });
    expect(plan).toMatchObject({
      role: 'tool',
      text: 'apply_patch src/a.ts, src/b.ts, docs/new.md, old.txt',
      meta: { tool: 'apply_patch', file: 'src/a.ts', sourceId: 'call_1' },
      files: ['src/a.ts', 'src/b.ts', 'docs/new.md', 'old.txt'],
      dir: '/repo',
    });
  });

  it('a multi-line shell command is one line in the text; events and tools Retrace does not record give null', () => {
    const plan = planCodexHook({
      ...base,
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'npm test\nnpm run lint' },
    });
    expect(plan).toMatchObject({ role: 'tool', text: 'Bash npm test …', meta: { command: 'npm test …' }, files: [] });
    expect(planCodexHook({ ...base, hook_event_name: 'PreToolUse', tool_name: 'Bash' })).toBeNull();
    expect(planCodexHook({ ...base, hook_event_name: 'SessionStart', source: 'startup' })).toBeNull();
    expect(planCodexHook({ ...base, hook_event_name: 'PostToolUse', tool_name: 'mcp__x__y' })).toBeNull();
  });

  it('a Stop without a final message (null) still records the end of the turn', () => {
    expect(planCodexHook({ ...base, hook_event_name: 'Stop', last_assistant_message: null })).toMatchObject({
      role: 'assistant',
      text: 'Codex finished its turn',
    });
  });
});
