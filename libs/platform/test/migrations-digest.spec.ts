import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrationsDigest } from '../src/testing/database-template';

describe('migrationsDigest', () => {
  const roots: string[] = [];
  afterEach(() => {
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  });

  /** An app root whose src/migrations holds `files`. */
  function appRoot(files: Record<string, string>): string {
    const root = mkdtempSync(join(tmpdir(), 'platform-tpl-digest-'));
    roots.push(root);
    mkdirSync(join(root, 'src/migrations'), { recursive: true });
    for (const [file, text] of Object.entries(files)) writeFileSync(join(root, 'src/migrations', file), text);
    return root;
  }

  const set = { '1-first.ts': 'export class First1 {}', '2-second.ts': 'export class Second2 {}', 'README.md': 'notes' };

  it('is the same for the same migration set, wherever the app lives', () => {
    const digest = migrationsDigest(appRoot(set));
    expect(digest).toMatch(/^[0-9a-f]{8}$/);
    expect(migrationsDigest(appRoot(set))).toBe(digest);
  });

  it('changes when a migration is changed, added, removed or renamed, not for other files', () => {
    const root = appRoot(set);
    const dir = join(root, 'src/migrations');
    const original = migrationsDigest(root);

    writeFileSync(join(dir, 'README.md'), 'other notes');
    expect(migrationsDigest(root)).toBe(original);

    writeFileSync(join(dir, '2-second.ts'), 'export class Second2 { up() {} }');
    const changed = migrationsDigest(root);
    expect(changed).not.toBe(original);

    writeFileSync(join(dir, '3-third.ts'), 'export class Third3 {}');
    const added = migrationsDigest(root);
    expect(new Set([original, changed, added]).size).toBe(3);

    rmSync(join(dir, '3-third.ts'));
    expect(migrationsDigest(root)).toBe(changed);

    renameSync(join(dir, '2-second.ts'), join(dir, '4-second.ts'));
    expect(new Set([original, changed, added, migrationsDigest(root)]).size).toBe(4);
  });
});
