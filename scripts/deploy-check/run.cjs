#!/usr/bin/env node
// `npm run deploy:check`: runs the TypeScript checker through @swc-node/register.
'use strict';
process.env.SWC_NODE_PROJECT = require('node:path').join(__dirname, 'tsconfig.json');
require('@swc-node/register');
require('./src/main.ts');
