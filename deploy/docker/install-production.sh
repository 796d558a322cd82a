#!/bin/sh
# The production install of one app, used by the Dockerfile's prod-deps stage and by
# `npm run deploy:install` (CI), so that both run the very same commands:
#
#   sh deploy/docker/install-production.sh <folder>
#
# <folder> holds the package.json and package-lock.json that the Nx build generates for
# the app (dist/apps/<app>). The dependencies are installed exactly as locked
# (`npm ci --omit=dev`: a lockfile out of step with package.json fails here), native
# modules are checked to load (argon2 is rebuilt from source when its prebuilt binary
# does not load), build tools are refused, and what never runs is removed (type
# declarations, source maps and Markdown: about half of node_modules).
# BUILD_FROM_SOURCE=true compiles native modules instead of using prebuilt binaries.
#
# The installs run with one npm, NPM_VERSION, wherever the script runs (the image's node
# base or a CI machine), so that CI proves the very install the image makes. The npm that
# node 20 bundles (10.x) installs, even with --omit=dev, every package the lockfile marks
# "devOptional": a devDependency of the workspace that is also an optional peer of a
# dependency, which Nx's pruned lockfiles keep: ts-node, typescript and @swc/core (optional
# peers of typeorm) with their own dependencies, about 50 packages more per app (gateway 341
# instead of 288), so the build-tool check below failed every image. npm 11 installs an
# optional peer only when something requires it.
set -eu
NPM_VERSION=11.19.1
cd "${1:?usage: install-production.sh <folder with package.json and package-lock.json>}"

if [ "$(npm --version)" != "${NPM_VERSION}" ]; then
  # `npm` below is npm NPM_VERSION, fetched from the configured registry into npm's cache.
  npm() { command npm exec --yes --package="npm@${NPM_VERSION}" -- npm "$@"; }
fi
echo "install-production: npm $(npm --version)"

npm_config_build_from_source="${BUILD_FROM_SOURCE:-false}" npm ci --omit=dev --no-audit --no-fund

argon2_loads() {
  node -e "require('argon2').hash('probe').then(() => process.exit(0), () => process.exit(1))"
}
if [ -d node_modules/argon2 ] && ! argon2_loads; then
  echo "argon2's prebuilt binary does not load here: building it from source" >&2
  npm_config_build_from_source=true npm rebuild argon2
  argon2_loads
fi

for tool in ts-node typescript @swc/core; do
  if [ -e "node_modules/${tool}" ]; then
    echo "install-production: ${tool} is a build tool and must not be a production dependency" >&2
    exit 1
  fi
done

find node_modules -type f \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \
  -o -name '*.map' -o -name '*.md' -o -name '*.markdown' \) -delete
