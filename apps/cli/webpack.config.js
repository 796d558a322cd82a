const { BannerPlugin } = require('webpack');
const base = require('../../webpack.app.cjs')(__dirname);

/** The apps' bundle (src/main.ts, node_modules external), made executable as the `vault` bin. */
module.exports = {
  ...base,
  plugins: [...base.plugins, new BannerPlugin({ banner: '#!/usr/bin/env node', raw: true, entryOnly: true })],
};
