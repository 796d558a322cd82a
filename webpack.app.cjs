const { NxAppWebpackPlugin } = require('@nx/webpack/app-plugin');
const { basename, join } = require('path');

/**
 * Webpack configuration shared by the four apps: a Node bundle of src/main.ts in
 * dist/apps/<app>, node_modules left external, with a generated package.json
 * listing the production dependencies (used by the images). The build type-checks
 * the app as well, unless BUILD_TYPECHECK=off: CI sets that after its `typecheck`
 * targets passed, since the check changes nothing in the bundle.
 */
module.exports = function appWebpackConfig(appDir) {
  return {
    output: {
      path: join(__dirname, 'dist/apps', basename(appDir)),
      clean: true,
      ...(process.env.NODE_ENV !== 'production' && {
        devtoolModuleFilenameTemplate: '[absolute-resource-path]',
      }),
    },
    plugins: [
      new NxAppWebpackPlugin({
        target: 'node',
        compiler: 'tsc',
        main: './src/main.ts',
        tsConfig: './tsconfig.app.json',
        assets: [],
        optimization: false,
        outputHashing: 'none',
        generatePackageJson: true,
        sourceMap: true,
        ...(process.env.BUILD_TYPECHECK === 'off' && { typeCheckOptions: false }),
      }),
    ],
  };
};
