/**
 * Jest transform for the few dependencies of MSW that ship only as ES modules (Jest's own
 * module system cannot `require` them before Node 24.9): esbuild turns them into CommonJS.
 */
const crypto = require('node:crypto');
const esbuild = require('esbuild');

module.exports = {
  process(source, filename) {
    const { code } = esbuild.transformSync(source, {
      loader: 'js',
      format: 'cjs',
      target: 'node20',
      sourcefile: filename,
    });
    return { code };
  },
  getCacheKey(source, filename) {
    return crypto.createHash('sha1').update(esbuild.version).update(filename).update(source).digest('hex');
  },
};
