/**
 * What `messaging-api-mock/msw` costs a browser app: the app bundled as Vite builds it (esbuild,
 * ES modules, code splitting, minified, for the browser), with MSW's `setupWorker` and the mock's
 * handlers, against the same app with MSW alone. The package is taken through its `exports`, as
 * a user's bundler takes it, from this clone's dist/ (`npm run build` first).
 *
 * The first chunk is what the page loads before it runs: the entry and every chunk it imports
 * statically. Chunks loaded by `import()` come later, only when asked for: the default world
 * (data), the generator with faker (for any other seed), the simulator and the OpenAPI document.
 */
import { build, type Metafile } from 'esbuild';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const root = path.resolve(__dirname, '..', '..');

interface Chunk {
  file: string;
  bytes: number;
  gzipBytes: number;
  /** The sources bundled into it, relative to the clone. */
  inputs: string[];
}

export interface Bundle {
  /** The entry and what it imports statically. */
  first: Chunk[];
  /** Chunks loaded with import(). */
  later: Chunk[];
}

export interface BundleCost {
  mswAlone: Bundle;
  withMock: Bundle;
  /** The adapter taken through `require`, its CommonJS build: what bundlers had before the ES modules. */
  withMockCommonJs: Bundle;
}

const APPS = {
  mswAlone: `import { setupWorker } from 'msw/browser';
await setupWorker().start();
`,
  withMock: `import { setupWorker } from 'msw/browser';
import { createHandlers } from 'messaging-api-mock/msw';
await setupWorker(...createHandlers({ baseUrl: '/api' })).start();
`,
  withMockCommonJs: `import { setupWorker } from 'msw/browser';
const { createHandlers } = require('messaging-api-mock/msw');
await setupWorker(...createHandlers({ baseUrl: '/api' })).start();
`,
};

async function bundle(dir: string, name: string, source: string): Promise<Bundle> {
  // Inside the clone, so that `messaging-api-mock` resolves to this package by its own name.
  const entry = path.join(dir, `${name}.js`);
  writeFileSync(entry, source);
  const out = path.join(dir, `out-${name}`);
  const { metafile } = await build({
    entryPoints: [entry],
    outdir: out,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    metafile: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const outputs = (metafile as Metafile).outputs;
  const chunk = (file: string): Chunk => {
    const bytes = readFileSync(path.join(root, file));
    return {
      file: path.relative(out, path.join(root, file)),
      bytes: bytes.length,
      gzipBytes: gzipSync(bytes, { level: 9 }).length,
      inputs: Object.keys(outputs[file]!.inputs),
    };
  };
  const entryOut = Object.keys(outputs).find((file) => outputs[file]!.entryPoint !== undefined)!;
  const first = new Set<string>();
  const visit = (file: string) => {
    if (first.has(file)) return;
    first.add(file);
    for (const i of outputs[file]!.imports) if (i.kind === 'import-statement' && !i.external) visit(i.path);
  };
  visit(entryOut);
  const js = Object.keys(outputs).filter((file) => file.endsWith('.js'));
  return {
    first: [...first].map(chunk),
    later: js.filter((file) => !first.has(file)).map(chunk),
  };
}

export async function bundleCost(): Promise<BundleCost> {
  const dir = mkdtempSync(path.join(root, '.bundle-'));
  try {
    return {
      mswAlone: await bundle(dir, 'msw-alone', APPS.mswAlone),
      withMock: await bundle(dir, 'with-mock', APPS.withMock),
      withMockCommonJs: await bundle(dir, 'with-mock-commonjs', APPS.withMockCommonJs),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const total = (chunks: Chunk[], what: 'bytes' | 'gzipBytes' = 'gzipBytes') =>
  chunks.reduce((sum, c) => sum + c[what], 0);

/** The chunks that hold a source whose path contains `part`. */
export const holding = (chunks: Chunk[], part: string) =>
  chunks.filter((c) => c.inputs.some((input) => input.includes(part)));
