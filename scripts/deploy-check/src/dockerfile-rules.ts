import { DockerfileParser, From, Instruction } from 'dockerfile-ast';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Violation, violation } from './violation';

/**
 * Lints a Dockerfile for the image rules of the platform: multi-stage, every base
 * image pinned (a tag that is not `latest`, or a digest), a final stage that runs as
 * a non-root user, installs production dependencies only, copies no whole build
 * context, has NODE_ENV=production, a HEALTHCHECK and an exec-form CMD (so node is
 * PID 1 and receives SIGTERM), and no ADD of remote URLs or secrets baked into ENV.
 */
/** Reads files of the build context at `root` for lintDockerfile (undefined: no such file). */
export function contextReader(root: string): (file: string) => string | undefined {
  return (file) => {
    const full = path.join(root, file);
    return fs.existsSync(full) && fs.statSync(full).isFile() ? fs.readFileSync(full, 'utf8') : undefined;
  };
}

/**
 * `readContextFile(path)` gives the text of a build-context file (undefined when there is
 * none): a RUN step that runs a script the Dockerfile copied from the context (`COPY
 * deploy/docker/x.sh /usr/local/bin/x`, then `RUN ... x`) is checked with that script's
 * commands, so an install moved into a script is held to the same rules.
 */
export function lintDockerfile(
  text: string,
  where: string,
  readContextFile: (file: string) => string | undefined = () => undefined,
): Violation[] {
  const out: Violation[] = [];
  const fail = (rule: string, message: string, line?: number) =>
    out.push(violation(line === undefined ? where : `${where}:${line + 1}`, rule, message));
  const df = DockerfileParser.parse(text);
  const argDefaults = new Map<string, string>();
  for (const arg of df.getInitialARGs()) {
    const p = arg.getProperty();
    if (p?.getName()) argDefaults.set(p.getName(), p.getValue() ?? '');
  }
  const froms = df.getFROMs();
  if (froms.length < 2) fail('multi-stage', `needs a build stage and a runtime stage (found ${froms.length} FROM)`);
  const stageNames = new Set(froms.map((f) => f.getBuildStage()).filter((s): s is string => !!s));

  for (const from of froms) {
    const line = from.getRange().start.line;
    const image = expand(from.getImage() ?? '', argDefaults);
    if (stageNames.has(image)) continue;
    const pinned = image.includes('@sha256:') || /:[^/:]+$/.test(image);
    if (!pinned) fail('pinned-base-image', `base image "${image}" has no tag or digest`, line);
    else if (/:latest$/.test(image)) fail('pinned-base-image', `base image "${image}" uses the latest tag`, line);
  }

  const instructions = df.getInstructions();
  const lastFrom = froms[froms.length - 1];
  const finalStart = lastFrom ? lastFrom.getRange().start.line : 0;
  const final = instructions.filter((i) => i.getRange().start.line > finalStart);
  const lines = text.split(/\r?\n/);
  // Arguments with flags (--from=..., --mount=...), continuation lines joined.
  const args = (i: Instruction) => {
    const { start, end } = i.getRange();
    const full = lines
      .slice(start.line, end.line + 1)
      .join('\n')
      .replace(/\\\n/g, ' ');
    return full.replace(/^\s*\S+\s*/, '');
  };
  // Scripts copied from the build context: [destination in the image, text].
  const scripts = instructions
    .filter((i) => i.getKeyword() === 'COPY' && !/--from=/.test(args(i)))
    .map((i) =>
      args(i)
        .replace(/--\S+\s+/g, '')
        .trim()
        .split(/\s+/),
    )
    .filter((words) => words.length === 2)
    .map(([src, dest]) => [dest, readContextFile(src)] as const)
    .filter((pair): pair is readonly [string, string] => pair[1] !== undefined);
  const raw = (i: Instruction) => {
    const text = args(i);
    if (i.getKeyword() !== 'RUN') return text;
    return [text, ...scripts.filter(([dest]) => text.includes(dest)).map(([, script]) => commandsOf(script))].join('\n');
  };

  for (const i of instructions) {
    const line = i.getRange().start.line;
    if (i.getKeyword() === 'ADD' && /\bhttps?:\/\//.test(raw(i))) {
      fail('no-remote-add', 'ADD of a URL: download in a RUN step with a checksum, or COPY', line);
    }
    if (i.getKeyword() === 'ENV' || i.getKeyword() === 'ARG') {
      for (const m of raw(i).matchAll(/([A-Z0-9_]*(?:SECRET|PASSWORD|TOKEN|PRIVATE_KEY)[A-Z0-9_]*)=(\S+)/g)) {
        fail('no-baked-secrets', `${i.getKeyword()} ${m[1]} carries a value: secrets come from the runtime`, line);
      }
    }
  }

  const users = final.filter((i) => i.getKeyword() === 'USER');
  const lastUser = users[users.length - 1];
  if (!lastUser) fail('non-root-user', 'the final stage has no USER: it would run as root');
  else if (/^(root|0)(:|$)/.test(raw(lastUser).trim())) {
    fail('non-root-user', `the final stage runs as "${raw(lastUser).trim()}"`, lastUser.getRange().start.line);
  }

  for (const i of final) {
    const line = i.getRange().start.line;
    const args = raw(i);
    if (
      i.getKeyword() === 'RUN' &&
      /\bnpm\s+(install|i|ci)\b/.test(args) &&
      !/--omit[= ]dev|--production\b|--only[= ]prod/.test(args)
    ) {
      fail('prod-deps-only', `the final stage installs dev dependencies: "${args.trim()}" needs --omit=dev`, line);
    }
    if ((i.getKeyword() === 'COPY' || i.getKeyword() === 'ADD') && !/--from=/.test(args) && /(^|\s)\.\s+\S+\s*$/.test(args)) {
      fail('prod-deps-only', 'the final stage copies the whole build context: copy the build output only', line);
    }
  }
  const copiesModules = final.some((i) => i.getKeyword() === 'COPY' && /node_modules/.test(raw(i)));
  if (copiesModules) {
    const from = final.find((i) => i.getKeyword() === 'COPY' && /node_modules/.test(raw(i)));
    const stage = /--from=(\S+)/.exec(from ? raw(from) : '')?.[1];
    const installs = stage
      ? stageInstructions(froms, instructions, stage).filter(
          (i) => i.getKeyword() === 'RUN' && /\bnpm\s+(install|i|ci)\b/.test(raw(i)),
        )
      : [];
    if (!stage || installs.length === 0 || installs.some((i) => !/--omit[= ]dev|--production\b/.test(raw(i)))) {
      fail('prod-deps-only', `node_modules copied from stage "${stage ?? '?'}", which does not install with --omit=dev only`);
    }
  }

  const envs = final
    .filter((i) => i.getKeyword() === 'ENV')
    .map(raw)
    .join(' ');
  if (!/\bNODE_ENV=production\b/.test(envs)) fail('node-env', 'the final stage does not set NODE_ENV=production');
  if (!final.some((i) => i.getKeyword() === 'HEALTHCHECK' && !/^\s*NONE\b/i.test(raw(i)))) {
    fail('healthcheck', 'the final stage has no HEALTHCHECK (Kubernetes probes are declared in deploy/k8s)');
  }
  if (froms.length >= 2) out.push(...checkBuildInstall(froms, instructions, raw, argDefaults, where));
  const cmds = final.filter((i) => i.getKeyword() === 'CMD' || i.getKeyword() === 'ENTRYPOINT');
  if (cmds.length === 0) fail('exec-form-cmd', 'the final stage has no CMD');
  for (const c of cmds) {
    if (!raw(c).trim().startsWith('[')) {
      fail(
        'exec-form-cmd',
        `${c.getKeyword()} in shell form: a shell as PID 1 does not pass SIGTERM on`,
        c.getRange().start.line,
      );
    }
  }
  return out;
}

const NPM_INSTALL = /\bnpm\s+(install|i|ci|rebuild)\b/;
const PROD_ONLY = /--omit[= ]dev|--production\b|--only[= ]prod/;
const TOOLCHAIN = ['python3', 'make', 'g\\+\\+'];
const installsToolchain = (run: string) =>
  /\b(apt-get|apt|apk|dnf|yum|microdnf)\b[^&|;]*\b(install|add)\b/.test(run) &&
  (/\bbuild-essential\b|\bbuild-base\b/.test(run) || TOOLCHAIN.every((t) => new RegExp(`(^|\\s)${t}(\\s|$)`).test(run)));

/**
 * Rule `build-install`, the install steps of an image that builds anywhere:
 * - every npm install step mounts an .npmrc as a BuildKit secret
 *   (`--mount=type=secret,id=npmrc,target=/root/.npmrc`): registry, CA and token
 *   come from the builder, never from a layer;
 * - the workspace install (the one with dev dependencies) is `npm ci` (the lockfile, exactly);
 * - the stages that install npm packages have a toolchain (python3, make, g++, for
 *   node-gyp when a prebuilt binary is missing or does not load), and the final stage
 *   neither installs one nor is based on a stage that did;
 * - the workspace install does not depend on `ARG APP` (not declared or used before it
 *   in its stage or the stages it builds on), so every app image reuses it.
 */
function checkBuildInstall(
  froms: From[],
  all: Instruction[],
  raw: (i: Instruction) => string,
  args: Map<string, string>,
  where: string,
): Violation[] {
  const out: Violation[] = [];
  const fail = (message: string, line?: number) =>
    out.push(violation(line === undefined ? where : `${where}:${line + 1}`, 'build-install', message));
  const stages = froms.map((f, index) => {
    const start = f.getRange().start.line;
    const end = index + 1 < froms.length ? froms[index + 1].getRange().start.line : Infinity;
    return {
      index,
      name: f.getBuildStage() ?? String(index),
      base: expand(f.getImage() ?? '', args),
      line: start,
      body: all.filter((i) => i.getRange().start.line > start && i.getRange().start.line < end),
    };
  });
  type Stage = (typeof stages)[number];
  const parent = (s: Stage) => stages.slice(0, s.index).find((p) => p.name === s.base);
  const chain = (s: Stage): Stage[] => {
    const p = parent(s);
    return p ? [...chain(p), s] : [s];
  };
  const hasToolchain = (s: Stage) =>
    chain(s).some((c) => c.body.some((i) => i.getKeyword() === 'RUN' && installsToolchain(raw(i))));

  for (const stage of stages) {
    for (const run of stage.body.filter((i) => i.getKeyword() === 'RUN' && NPM_INSTALL.test(raw(i)))) {
      const text = raw(run);
      const line = run.getRange().start.line;
      const secret = [...text.matchAll(/--mount=(\S+)/g)]
        .map((m) => m[1])
        .find((m) => /(^|,)type=secret(,|$)/.test(m) && /(^|,)id=npmrc(,|$)/.test(m));
      if (!secret || !/(^|,)(target|dst|destination)=(\/root\/|~\/)\.npmrc(,|$)/.test(secret)) {
        fail(
          'npm install step without the npmrc secret (--mount=type=secret,id=npmrc,target=/root/.npmrc): no registry, CA or token can be given',
          line,
        );
      }
      if (!hasToolchain(stage))
        fail(
          `stage "${stage.name}" installs npm packages without a toolchain (python3, make, g++) for native modules without a usable prebuild`,
          line,
        );
      if (PROD_ONLY.test(text) || !/\bnpm\s+(install|i|ci)\b/.test(text)) continue;
      if (!/\bnpm\s+ci\b/.test(text)) fail('the workspace install must be `npm ci` (exactly the lockfile)', line);
      const before = chain(stage)
        .flatMap((s) => s.body)
        .filter((i) => i.getRange().start.line < line);
      const appArg = before.find(
        (i) => (i.getKeyword() === 'ARG' && /^\s*APP(=|\s|$)/.test(raw(i))) || /\$\{?APP\b/.test(raw(i)),
      );
      if (appArg)
        fail(
          `ARG APP (line ${appArg.getRange().start.line + 1}) comes before the workspace install: every app image would install again; declare it after`,
          line,
        );
    }
  }
  const final = stages[stages.length - 1];
  if (final && hasToolchain(final))
    fail(
      `the final stage "${final.name}" carries the build toolchain: base it on the runtime image, not on a toolchain stage`,
      final.line,
    );
  return out;
}

/** A shell script's commands: comment lines dropped, continuation lines joined. */
function commandsOf(script: string): string {
  return script
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ');
}

function stageInstructions(froms: From[], all: Instruction[], stage: string): Instruction[] {
  const index = froms.findIndex((f) => f.getBuildStage() === stage);
  if (index < 0) return [];
  const start = froms[index].getRange().start.line;
  const end = index + 1 < froms.length ? froms[index + 1].getRange().start.line : Infinity;
  return all.filter((i) => i.getRange().start.line > start && i.getRange().start.line < end);
}

function expand(value: string, args: Map<string, string>): string {
  return value.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (_, name: string) => args.get(name) ?? '');
}
