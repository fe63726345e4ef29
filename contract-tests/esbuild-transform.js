/**
 * Jest transform for the kit's TypeScript: esbuild strips the types (the project's `npm run
 * typecheck` checks them). It starts in a fraction of ts-jest's time, which counts because every
 * run of the kit is a fresh jest process. The project's own jest configs give it their test files
 * too, and the few of MSW's dependencies that ship only as ES modules (.js, .mjs), which it turns
 * into CommonJS: Jest's module system cannot `require` them before Node 24.9. A dynamic `import()`
 * becomes a `require` as well (as TypeScript's CommonJS output has it): jest runs no `import()`
 * without its experimental VM modules.
 */
const crypto = require('node:crypto');
const esbuild = require('esbuild');

const OPTIONS = {
  format: 'cjs',
  target: 'node20',
  sourcemap: 'inline',
  supported: { 'dynamic-import': false },
};

module.exports = {
  process(source, filename) {
    const loader = /\.[cm]?ts$/.test(filename) ? 'ts' : 'js';
    const { code } = esbuild.transformSync(source, { ...OPTIONS, loader, sourcefile: filename });
    return { code };
  },
  getCacheKey(source, filename) {
    return crypto
      .createHash('sha1')
      .update(esbuild.version)
      .update(JSON.stringify(OPTIONS))
      .update(filename)
      .update(source)
      .digest('hex');
  },
};
