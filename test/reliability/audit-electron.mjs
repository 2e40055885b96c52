#!/usr/bin/env node
// `npm run audit:electron`: runs @doyensec/electronegativity over the app's Electron-facing code and fails
// on any finding that is not explained in electronegativity-allow.json (each entry says why it is fine).
//
// Offline on purpose: the Electron version is read from node_modules (no release lookup), and the check
// that downloads Electron's release list is skipped (CI has no network to GitHub).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const allowFile = join(repo, 'test/reliability/electronegativity-allow.json');

/** Run the scanner; returns { findings, allowed, raw } (findings are the ones that fail the audit). */
export function audit({ input = join(repo, 'src') } = {}) {
  const electronVersion = JSON.parse(readFileSync(join(repo, 'node_modules/electron/package.json'), 'utf8')).version;
  const out = mkdtempSync(join(tmpdir(), 'retrace-electronegativity-'));
  const sarif = join(out, 'result.sarif');
  try {
    const bin = join(repo, 'node_modules/@doyensec/electronegativity/dist/index.js');
    const r = spawnSync(
      process.execPath,
      [
        bin,
        '-i',
        input,
        '-o',
        sarif,
        '-v',
        'false',
        '-r',
        '-e',
        electronVersion,
        '-x',
        'AvailableSecurityFixesGlobalCheck',
      ],
      { cwd: repo, encoding: 'utf8', env: { ...process.env, LANG: 'en-US' }, timeout: 180_000 },
    );
    if (!existsSync(sarif))
      throw new Error(`electronegativity produced no report (exit ${r.status}): ${r.stderr || r.stdout}`);
    const doc = JSON.parse(readFileSync(sarif, 'utf8'));
    const allow = existsSync(allowFile) ? JSON.parse(readFileSync(allowFile, 'utf8')) : [];
    const raw = (doc.runs?.[0]?.results ?? []).map((res) => {
      const loc = res.locations?.[0]?.physicalLocation;
      const uri = loc?.artifactLocation?.uri ?? '';
      const file = uri.startsWith('/') ? relative(repo, uri) : uri.replace(/^file:\/\/\/?/, '');
      return {
        rule: res.ruleId,
        level: res.level,
        file,
        line: loc?.region?.startLine ?? 0,
        message: res.message?.text ?? '',
      };
    });
    const isAllowed = (f) => allow.some((a) => a.rule === f.rule && (a.file === undefined || f.file.endsWith(a.file)));
    return { findings: raw.filter((f) => !isAllowed(f)), allowed: raw.filter(isAllowed), raw };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { findings, allowed } = audit();
  for (const f of allowed) console.log(`allowed  ${f.rule} ${f.file}:${f.line}`);
  for (const f of findings) console.log(`FINDING  ${f.rule} ${f.level} ${f.file}:${f.line} ${f.message}`);
  console.log(`electronegativity: ${findings.length} findings, ${allowed.length} allowed with a reason`);
  process.exitCode = findings.length === 0 ? 0 : 1;
}
