// Builds the publishable package in libs/sdk/dist: ES modules (dist/esm) and CommonJS
// (dist/cjs, marked by its own package.json), each with its type declarations.
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const sdk = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = join(sdk, '../../node_modules/typescript/bin/tsc');
rmSync(join(sdk, 'dist'), { recursive: true, force: true });
// Types are checked by the `typecheck` target; the second build only emits (--noCheck).
execFileSync(process.execPath, [tsc, '-p', join(sdk, 'tsconfig.lib.json')], { stdio: 'inherit' });
execFileSync(process.execPath, [tsc, '-p', join(sdk, 'tsconfig.cjs.json'), '--noCheck'], { stdio: 'inherit' });
writeFileSync(join(sdk, 'dist/cjs/package.json'), JSON.stringify({ type: 'commonjs' }) + '\n');
console.log('built libs/sdk/dist (esm, cjs)');
