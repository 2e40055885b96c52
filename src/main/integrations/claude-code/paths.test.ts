import { describe, expect, it } from 'vitest';
import { backupFileName, claudeConfigDir, encodeProjectDir, projectDir } from './paths';

describe('Claude Code paths', () => {
  it('config folder: CLAUDE_CONFIG_DIR, else ~/.claude', () => {
    expect(claudeConfigDir({ CLAUDE_CONFIG_DIR: '/x/claude', HOME: '/h' })).toBe('/x/claude');
    expect(claudeConfigDir({ HOME: '/h' })).toBe('/h/.claude');
    expect(projectDir('/src/deep-manifest', { HOME: '/h' })).toBe('/h/.claude/projects/-src-deep-manifest');
  });

  it('project folder names: non-alphanumerics become "-", long names are cut to 200 with a hash', () => {
    expect(encodeProjectDir('/home/me/my.project_x')).toBe('-home-me-my-project-x');
    const long = encodeProjectDir(`/${'a'.repeat(300)}`);
    expect(long).toMatch(/^-a{199}-[0-9a-f]{16}$/);
  });

  it('backup names: sha256 of the absolute path, 16 hex digits, @v<N> (as recorded in fixture 2)', () => {
    expect(backupFileName('/home/cboos/.claude/plans/humble-doodling-wolf.md', 2)).toBe('b1a2df0b90ad6c58@v2');
  });
});
