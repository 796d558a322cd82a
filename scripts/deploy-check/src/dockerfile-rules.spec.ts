import * as fs from 'node:fs';
import * as path from 'node:path';
import { lintDockerfile } from './dockerfile-rules';

const REPO_DOCKERFILE = fs.readFileSync(path.join(__dirname, '../../../deploy/docker/Dockerfile'), 'utf8');
const rules = (text: string) => lintDockerfile(text, 'Dockerfile').map((v) => v.rule);
const mutate = (from: string | RegExp, to: string) => {
  const changed = REPO_DOCKERFILE.replace(from, to);
  expect(changed).not.toBe(REPO_DOCKERFILE);
  return changed;
};

describe('lintDockerfile', () => {
  it('accepts the repository Dockerfile', () => {
    expect(lintDockerfile(REPO_DOCKERFILE, 'Dockerfile')).toEqual([]);
  });

  it('requires several stages', () => {
    expect(rules('FROM node:20.20.2-bookworm-slim\nENV NODE_ENV=production\nUSER node\nHEALTHCHECK CMD ["node","h.js"]\nCMD ["node","main.js"]\n')).toEqual(['multi-stage']);
  });

  it('rejects base images without a tag or with latest, also through ARG defaults', () => {
    expect(rules(mutate('ARG NODE_IMAGE=node:20.20.2-bookworm-slim', 'ARG NODE_IMAGE=node:latest'))).toContain('pinned-base-image');
    expect(rules(mutate('ARG NODE_IMAGE=node:20.20.2-bookworm-slim', 'ARG NODE_IMAGE=node'))).toContain('pinned-base-image');
    expect(rules(mutate('ARG NODE_IMAGE=node:20.20.2-bookworm-slim', 'ARG NODE_IMAGE=node@sha256:' + 'a'.repeat(64)))).toEqual([]);
  });

  it('requires a non-root user in the final stage', () => {
    expect(rules(mutate(/^USER node$/m, ''))).toEqual(['non-root-user']);
    expect(rules(mutate(/^USER node$/m, 'USER root'))).toEqual(['non-root-user']);
    expect(rules(mutate(/^USER node$/m, 'USER 0:0'))).toEqual(['non-root-user']);
  });

  it('allows production dependencies only in the final image', () => {
    expect(rules(mutate('npm ci --omit=dev --no-audit', 'npm ci --no-audit'))).toEqual(['prod-deps-only']);
    expect(rules(mutate('COPY --from=prod-deps /app/node_modules ./node_modules', 'COPY --from=build /src/node_modules ./node_modules'))).toEqual(['prod-deps-only']);
    expect(rules(mutate(/^USER node$/m, 'RUN npm install\nUSER node'))).toEqual(['prod-deps-only']);
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

  it('names the line of a violation', () => {
    const [v] = lintDockerfile(mutate(/^USER node$/m, 'USER root'), 'deploy/docker/Dockerfile');
    const line = REPO_DOCKERFILE.split('\n').findIndex((l) => l === 'USER node') + 1;
    expect(v.where).toBe(`deploy/docker/Dockerfile:${line}`);
  });
});
