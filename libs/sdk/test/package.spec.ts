import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const sdk = join(__dirname, '..');
const root = join(sdk, '../..');
const bin = (pkg: string, file: string) => join(root, 'node_modules', pkg, file);
const node = (args: string[], cwd: string) => execFileSync(process.execPath, args, { cwd, encoding: 'utf8', stdio: 'pipe' });

const EXAMPLE = `import { createVaultClient, VaultApiError, type Schemas } from '@vault/sdk';

const vault = createVaultClient({
  domain: 'localhost:8443',
  auth: { tenantId: 'demo', clientId: 'demo-app', clientSecret: 'demo-secret', username: 'demo@vault.local', password: 'demo-password' },
});

export async function main(): Promise<Schemas['VaultView'][]> {
  const id: string = await vault.vaults.create({ name: 'Family papers' });
  const { data } = await vault.records.GET('/vault/vault-id/{vaultId}', { params: { path: { vaultId: id } } });
  const all: Schemas['VaultView'][] = [];
  for await (const v of vault.vaults.list()) all.push(v);
  return data ? [data, ...all] : all;
}

export const isProblem = (e: unknown) => e instanceof VaultApiError && e.code === 'not_found';
`;

/**
 * The package as it would be published: built (ES modules and CommonJS), checked by publint and
 * @arethetypeswrong/cli, packed with npm pack, installed into an empty folder, where a TypeScript
 * example compiles (nodenext, as ESM and as CommonJS) and both module systems load it.
 */
describe('the @vault/sdk package', () => {
  let work: string;
  let tarball: string;

  beforeAll(() => {
    node([join(sdk, 'scripts/build.mjs')], root);
    work = mkdtempSync(join(tmpdir(), 'vault-sdk-pack-'));
    execFileSync('npm', ['pack', '--pack-destination', work], { cwd: sdk, stdio: 'pipe' });
    tarball = join(work, readdirSync(work).find((f) => f.endsWith('.tgz')) as string);
  }, 240_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('passes publint and are-the-types-wrong', () => {
    expect(node([bin('publint', 'src/cli.js'), '--strict'], sdk)).toMatch(/All good!/);
    const attw = node([bin('@arethetypeswrong/cli', 'dist/index.js'), tarball, '--format', 'json'], sdk);
    const problems = JSON.parse(attw).analysis.problems;
    expect(problems).toEqual([]);
  }, 120_000);

  it('installs into an empty folder where an example compiles and loads', () => {
    const app = join(work, 'app');
    execFileSync('mkdir', ['-p', app]);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'example', private: true, type: 'module' }));
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], { cwd: app, stdio: 'pipe' });
    writeFileSync(join(app, 'example.ts'), EXAMPLE);
    writeFileSync(join(app, 'example.cts'), EXAMPLE);
    const compilerOptions = {
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2022',
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      types: ['node'],
      typeRoots: [join(root, 'node_modules/@types')],
    };
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['example.ts', 'example.cts'] }));
    node([bin('typescript', 'bin/tsc'), '-p', 'tsconfig.json'], app);
    const loads =
      "const c = require('@vault/sdk'); import('@vault/sdk').then((e) => console.log(typeof c.createVaultClient, typeof e.createVaultClient))";
    expect(node(['-e', loads], app).trim()).toBe('function function');
  }, 180_000);
});
