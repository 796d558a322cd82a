import * as fs from 'node:fs';
import * as path from 'node:path';
import { contextReader, lintDockerfile } from './dockerfile-rules';

const ROOT = path.join(__dirname, '../../..');
const REPO_DOCKERFILE = fs.readFileSync(path.join(ROOT, 'deploy/docker/Dockerfile'), 'utf8');
const INSTALL_SCRIPT = 'deploy/docker/install-production.sh';
const REPO_INSTALL = fs.readFileSync(path.join(ROOT, INSTALL_SCRIPT), 'utf8');
/** The build context as the repository has it, `changes` replacing some files. */
const context =
  (changes: Record<string, string> = {}) =>
  (file: string) =>
    changes[file] ?? contextReader(ROOT)(file);
const lint = (text: string, where = 'Dockerfile') => lintDockerfile(text, where, context());
const rules = (text: string) => lint(text).map((v) => v.rule);
const mutate = (from: string | RegExp, to: string) => {
  const changed = REPO_DOCKERFILE.replace(from, to);
  expect(changed).not.toBe(REPO_DOCKERFILE);
  return changed;
};

describe('lintDockerfile', () => {
  it('accepts the repository Dockerfile', () => {
    expect(lint(REPO_DOCKERFILE)).toEqual([]);
  });

  it('checks the production install in the script the prod-deps stage copies and runs', () => {
    expect(REPO_DOCKERFILE).toContain(`COPY ${INSTALL_SCRIPT} `);
    const withScript = (script: string) =>
      lintDockerfile(REPO_DOCKERFILE, 'Dockerfile', context({ [INSTALL_SCRIPT]: script })).map((v) => v.rule);
    expect(withScript(REPO_INSTALL)).toEqual([]);
    // (also a second workspace install after ARG APP: build-install)
    expect(withScript(REPO_INSTALL.replaceAll('npm ci --omit=dev', 'npm ci'))).toEqual(['prod-deps-only', 'build-install']);
    // Without the script's text the stage shows no install at all, which the rule refuses too.
    expect(lintDockerfile(REPO_DOCKERFILE, 'Dockerfile').map((v) => v.rule)).toContain('prod-deps-only');
  });

  it('requires several stages', () => {
    expect(
      rules(
        'FROM node:20.20.2-bookworm-slim\nENV NODE_ENV=production\nUSER node\nHEALTHCHECK CMD ["node","h.js"]\nCMD ["node","main.js"]\n',
      ),
    ).toEqual(['multi-stage']);
  });

  it('rejects base images without a tag or with latest, also through ARG defaults', () => {
    expect(rules(mutate('ARG NODE_IMAGE=node:20.20.2-bookworm-slim', 'ARG NODE_IMAGE=node:latest'))).toContain(
      'pinned-base-image',
    );
    expect(rules(mutate('ARG NODE_IMAGE=node:20.20.2-bookworm-slim', 'ARG NODE_IMAGE=node'))).toContain('pinned-base-image');
    expect(rules(mutate('ARG NODE_IMAGE=node:20.20.2-bookworm-slim', 'ARG NODE_IMAGE=node@sha256:' + 'a'.repeat(64)))).toEqual(
      [],
    );
  });

  it('requires a non-root user in the final stage', () => {
    expect(rules(mutate(/^USER node$/m, ''))).toEqual(['non-root-user']);
    expect(rules(mutate(/^USER node$/m, 'USER root'))).toEqual(['non-root-user']);
    expect(rules(mutate(/^USER node$/m, 'USER 0:0'))).toEqual(['non-root-user']);
  });

  it('allows production dependencies only in the final image', () => {
    expect(
      rules(
        mutate('COPY --from=prod-deps /app/node_modules ./node_modules', 'COPY --from=build /src/node_modules ./node_modules'),
      ),
    ).toEqual(['prod-deps-only']);
    expect(rules(mutate(/^USER node$/m, 'RUN npm install\nUSER node'))).toContain('prod-deps-only');
    expect(rules(mutate(/^USER node$/m, 'COPY . .\nUSER node'))).toEqual(['prod-deps-only']);
  });

  it('requires NODE_ENV=production, a HEALTHCHECK and an exec-form CMD', () => {
    expect(rules(mutate('ENV NODE_ENV=production APP_NAME', 'ENV APP_NAME'))).toEqual(['node-env']);
    expect(rules(mutate(/^HEALTHCHECK .*$/m, ''))).toEqual(['healthcheck']);
    expect(rules(mutate(/^HEALTHCHECK .*$/m, 'HEALTHCHECK NONE'))).toEqual(['healthcheck']);
    expect(rules(mutate('CMD ["node", "main.js"]', 'CMD node main.js'))).toEqual(['exec-form-cmd']);
  });

  it('rejects secrets baked into the image and remote ADD', () => {
    expect(rules(mutate(/^USER node$/m, 'ENV KEY_ENCRYPTION_SECRET=abc\nUSER node'))).toEqual(['no-baked-secrets']);
    expect(rules(mutate(/^USER node$/m, 'ADD https://example.com/x.tgz /x.tgz\nUSER node'))).toEqual(['no-remote-add']);
  });

  describe('build-install: images that build behind any registry, with or without prebuilds, one workspace install', () => {
    const messages = (text: string) =>
      lint(text)
        .filter((v) => v.rule === 'build-install')
        .map((v) => v.message);

    it('requires the npmrc secret mount on every npm install step', () => {
      const noSecret = mutate(
        /RUN --mount=type=secret,id=npmrc,target=\/root\/\.npmrc \\\n {4}--mount=type=secret,id=npm-ca,target=\/run\/secrets\/npm-ca\.pem \\\n {4}--mount=type=cache,target=\/root\/\.npm \\\n {4}with-npm-ca npm ci --no-audit/,
        'RUN --mount=type=cache,target=/root/.npm npm ci --no-audit',
      );
      expect(messages(noSecret)).toEqual([expect.stringContaining('without the npmrc secret')]);
      const elsewhere = mutate(/npmrc,target=\/root\/\.npmrc/, 'npmrc,target=/src/npmrc');
      expect(messages(elsewhere)).toEqual([expect.stringContaining('without the npmrc secret')]);
    });

    it('requires npm ci for the workspace install', () => {
      expect(
        messages(mutate('with-npm-ca npm ci --no-audit --no-fund\n', 'with-npm-ca npm install --no-audit --no-fund\n')),
      ).toEqual(['the workspace install must be `npm ci` (exactly the lockfile)']);
    });

    it('requires a toolchain where packages are installed and none in the final stage', () => {
      expect(
        messages(
          mutate(
            'install -y --no-install-recommends python3 make g++ ca-certificates',
            'install -y --no-install-recommends ca-certificates',
          ),
        ),
      ).toEqual([
        expect.stringContaining('stage "deps" installs npm packages without a toolchain'),
        expect.stringContaining('stage "prod-deps" installs npm packages without a toolchain'),
      ]);
      expect(messages(mutate('FROM ${NODE_IMAGE} AS runtime', 'FROM toolchain AS runtime'))).toEqual([
        expect.stringContaining('the final stage "runtime" carries the build toolchain'),
      ]);
      expect(messages(mutate(/^USER node$/m, 'RUN apt-get update && apt-get install -y build-essential\nUSER node'))).toEqual([
        expect.stringContaining('carries the build toolchain'),
      ]);
    });

    it('requires ARG APP after the workspace install', () => {
      const early = mutate('FROM toolchain AS deps\n', 'FROM toolchain AS deps\nARG APP\n');
      expect(messages(early)).toEqual([expect.stringMatching(/^ARG APP \(line \d+\) comes before the workspace install/)]);
      const inParent = mutate(
        '    NX_DAEMON=false NX_NO_CLOUD=true CI=true\n',
        '    NX_DAEMON=false NX_NO_CLOUD=true CI=true APP_DIR=/src/apps/${APP}\n',
      );
      expect(messages(inParent)).toEqual([expect.stringMatching(/^ARG APP \(line \d+\) comes before the workspace install/)]);
    });
  });

  it('names the line of a violation', () => {
    const [v] = lint(mutate(/^USER node$/m, 'USER root'), 'deploy/docker/Dockerfile');
    const line = REPO_DOCKERFILE.split('\n').findIndex((l) => l === 'USER node') + 1;
    expect(v.where).toBe(`deploy/docker/Dockerfile:${line}`);
  });
});
