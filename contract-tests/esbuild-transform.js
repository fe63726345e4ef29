/**
 * Jest transform for the kit's TypeScript: esbuild strips the types (the project's `npm run
 * typecheck` checks them). It starts in a fraction of ts-jest's time, which counts because every
 * run of the kit is a fresh jest process. The project's own jest config also gives it the few of
 * MSW's dependencies that ship only as ES modules (.js, .mjs), which it turns into CommonJS:
 * Jest's module system cannot `require` them before Node 24.9.
 */
const crypto = require('node:crypto');
const esbuild = require('esbuild');

module.exports = {
  process(source, filename) {
    const { code } = esbuild.transformSync(source, {
      loader: /\.[cm]?ts$/.test(filename) ? 'ts' : 'js',
      format: 'cjs',
      target: 'node20',
      sourcemap: 'inline',
      sourcefile: filename,
    });
    return { code };
  },
  getCacheKey(source, filename) {
    return crypto.createHash('sha1').update(esbuild.version).update(filename).update(source).digest('hex');
  },
};
