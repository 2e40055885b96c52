import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, REPO_ROOT, tempDir } from '../../../../test/helpers';
import { blocks, TaskBuilder } from '../../../../test/fixtures/cline-synthetic/tasks';
import { auditClineTask } from './audit';

afterAll(cleanupTempDirs);

describe('auditClineTask: raw counts from ui_messages.json', () => {
  it('counts typed prompts, the newest shown message and the edits that took effect', () => {
    const t = new TaskBuilder('/ws');
    t.say('text', 'Make notes');
    t.request();
    const created = t.edit('say', 'newFileCreated', 'notes.md', { content: 'one\n' });
    t.result('write_to_file', 'notes.md', { saved: 'one\n' });
    t.edit('ask', 'editedExistingFile', 'notes.md', { diff: blocks(['one', 'ONE']) });
    t.say('user_feedback', 'keep it lowercase');
    t.result('replace_in_file', 'notes.md', { deniedWith: 'keep it lowercase' });
    const edited = t.edit('ask', 'editedExistingFile', 'notes.md', { diff: blocks(['one', 'one\ntwo']) });
    t.result('replace_in_file', 'notes.md', { saved: 'one\ntwo\n' });
    t.say('text', 'Adding a thi', { partial: true });
    t.edit('say', 'editedExistingFile', 'notes.md', { diff: blocks(['two', 'two\nthr']) }); // never finished
    const last = t.say('completion_result', 'Done.');
    t.ask('completion_result', '');
    t.ask('resume_completed_task');
    t.entries.find((e) => e.say === 'tool' && e.text?.includes('thr'))!.partial = true;
    const dir = t.write(tempDir('retrace-cline-audit-'), '1');
    expect(auditClineTask(dir)).toEqual({
      typedPrompts: 2,
      newestMessage: String(last),
      edits: [
        { id: String(created), path: 'notes.md' },
        { id: String(edited), path: 'notes.md' },
      ],
    });
  });

  it('an unreadable file is a clear E_IMPORT error', () => {
    const dir = tempDir('retrace-cline-audit-');
    writeFileSync(join(dir, 'ui_messages.json'), '{');
    expect(() => auditClineTask(dir)).toThrow(expect.objectContaining({ code: 'E_IMPORT' }));
  });

  const sample = join(REPO_ROOT, '..', 'shared', 'fixtures', 'cline', '01-occ-export', '1769053680585');
  it.skipIf(!existsSync(sample))('the real sample: one typed prompt, 27 edits, the completion newest', () => {
    const a = auditClineTask(sample);
    expect(a.typedPrompts).toBe(1);
    expect(a.edits).toHaveLength(27);
    expect(a.newestMessage).toBe('1769054771562');
  });
  if (!existsSync(sample)) it.skip('skipped: ../shared/fixtures absent', () => {});
});
