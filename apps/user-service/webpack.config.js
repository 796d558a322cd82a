module.exports = require('../../webpack.app.cjs')(__dirname);
