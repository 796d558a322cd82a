import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';

const ROOT = join(__dirname, '../../..');
const ESLINT = join(ROOT, 'node_modules/eslint/bin/eslint.js');

/**
 * A fixture service: every file imports what `files` says, then ESLint runs with
 * serviceLayers() alone. Resolves to the layer problems per file (path relative to src/).
 */
function lintFixture(files: Record<string, string[]>, allow: Record<string, string[]> = {}): Record<string, string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'layers-'));
  try {
    for (const [file, imports] of Object.entries(files)) {
      const path = join(dir, 'src', file);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(
        path,
        `${imports.map((i, n) => `import * as m${n} from '${i}';\nconsole.log(m${n});\n`).join('')}export const here = 1;\n`,
      );
    }
    writeFileSync(
      join(dir, 'eslint.config.mjs'),
      `import { serviceLayers } from ${JSON.stringify(join(ROOT, 'eslint.layers.mjs'))};\nexport default serviceLayers(import.meta.dirname, ${JSON.stringify({ allow })});\n`,
    );
    const r = spawnSync(process.execPath, [ESLINT, '--format', 'json', 'src'], { cwd: dir, encoding: 'utf8' });
    const results = JSON.parse(r.stdout) as { filePath: string; messages: { ruleId: string | null; message: string }[] }[];
    return Object.fromEntries(
      results
        .filter((f) => f.messages.length > 0)
        .map((f) => [relative(join(dir, 'src'), f.filePath), f.messages.map((m) => `${m.ruleId}: ${m.message}`)]),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('service layers (eslint.layers.mjs)', () => {
  it('accepts imports that point down the layers', () => {
    expect(
      lintFixture({
        'main.ts': ['./app/app.module'],
        'app/app.module.ts': ['../features/files/files.module', '../config/env'],
        'features/files/files.module.ts': ['./files.service'],
        'features/files/files.service.ts': [
          '../../capabilities/storage/storage',
          '../../persistence/file/file.repository',
          '../../config/env',
        ],
        'capabilities/storage/storage.ts': ['../access/access', '../../persistence/file/file.entity'],
        'capabilities/access/access.ts': ['../../config/env'],
        'persistence/file/file.repository.ts': ['./file.entity', '../record/record.entity', '../../config/env'],
        'persistence/file/file.entity.ts': [],
        'persistence/record/record.entity.ts': [],
        'config/env.ts': [],
        'migrations/1-init.ts': [],
      }),
    ).toEqual({});
  });

  it('fails an import against the arrows, in every layer', () => {
    const problems = lintFixture({
      'app/app.module.ts': [],
      'config/env.ts': ['../persistence/file/file.entity'],
      'migrations/1-init.ts': ['../persistence/file/file.entity'],
      'persistence/file/file.entity.ts': ['../../capabilities/storage/storage'],
      'capabilities/storage/storage.ts': ['../../features/files/files.service'],
      'features/files/files.service.ts': ['../../app/app.module'],
    });
    const rule = (file: string) => problems[file]?.map((p) => p.split(':')[0]);
    expect(Object.keys(problems).sort()).toEqual([
      'capabilities/storage/storage.ts',
      'config/env.ts',
      'features/files/files.service.ts',
      'migrations/1-init.ts',
      'persistence/file/file.entity.ts',
    ]);
    for (const file of Object.keys(problems)) expect(rule(file)).toEqual(['import-x/no-restricted-paths']);
    expect(problems['migrations/1-init.ts'][0]).toContain('a migration imports no live code');
    expect(problems['capabilities/storage/storage.ts'][0]).toContain('capabilities serve features and never import them');
  });

  it('keeps features apart, a new one included, except what `allow` names', () => {
    const problems = lintFixture(
      {
        'features/records/records.service.ts': ['../files/file.view', '../files/files.service'],
        'features/webhooks/webhooks.service.ts': ['../files/file.view', '../records/records.service'],
        'features/brand-new/new.service.ts': ['../files/file.view'],
        'features/files/file.view.ts': [],
        'features/files/files.service.ts': [],
      },
      { records: ['features/files/**'], webhooks: ['features/*/**/*.view.ts'] },
    );
    expect(Object.keys(problems).sort()).toEqual(['features/brand-new/new.service.ts', 'features/webhooks/webhooks.service.ts']);
    expect(problems['features/webhooks/webhooks.service.ts']).toHaveLength(1);
    expect(problems['features/webhooks/webhooks.service.ts'][0]).toContain('../records/records.service');
  });

  it('fails a source file outside the layer folders', () => {
    const problems = lintFixture({ 'main.ts': [], 'helpers/util.ts': [], 'stray.ts': [], 'features/a/a.ts': [] });
    expect(Object.keys(problems).sort()).toEqual(['helpers/util.ts', 'stray.ts']);
    expect(problems['stray.ts'][0]).toMatch(/^no-restricted-syntax: src\/ holds main.ts and the layer folders only/);
  });
});
