import * as path from 'node:path';
import { runDeployCheck } from './deploy-check';
import { formatViolation } from './violation';

/**
 * `npm run deploy:check [--root DIR]`: validates the Dockerfiles, docker-compose.yml
 * and every Kubernetes manifest and rendered kustomization; exits 1 on any violation.
 */
function main(argv: string[]): number {
  const i = argv.indexOf('--root');
  const root = path.resolve(i >= 0 ? argv[i + 1] : path.join(__dirname, '..', '..', '..'));
  const { violations, checked } = runDeployCheck(root);
  for (const line of checked) console.log(`checked ${line}`);
  if (violations.length === 0) {
    console.log('deploy:check passed: no violations');
    return 0;
  }
  for (const v of violations) console.error(formatViolation(v));
  console.error(`deploy:check failed: ${violations.length} violation(s)`);
  return 1;
}

process.exitCode = main(process.argv.slice(2));
