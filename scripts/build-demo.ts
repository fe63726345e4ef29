/**
 * Builds the static demo (demo/): the chat app and the mock inside Mock Service Worker, bundled
 * for the browser into one folder that any static file server can serve.
 *
 *   tsx scripts/build-demo.ts [--out <dir>] [--quiet]     (default: demo/dist/)
 *
 * esbuild bundles demo/main.ts for the browser; with `platform: 'browser'` it refuses any Node
 * built-in, so a build that passes shows that src/core and src/store run in a browser as they are.
 * index.html, the CSS and MSW's worker script (mockServiceWorker.js, from the installed msw, so
 * that it always matches the library's version) are copied beside the bundle.
 */
import { build, type Message } from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';

const root = path.resolve(__dirname, '..');
const demo = path.join(root, 'demo');
export const DEFAULT_OUT = path.join(demo, 'dist');

export interface BuiltDemo {
  /** The folder to serve. */
  outDir: string;
  /** Size of the bundle (main.js), and gzipped. */
  bytes: number;
  gzipBytes: number;
}

export async function buildDemo(outDir: string = DEFAULT_OUT): Promise<BuiltDemo> {
  mkdirSync(outDir, { recursive: true });
  const bundle = path.join(outDir, 'main.js');
  try {
    await build({
      entryPoints: [path.join(demo, 'main.ts')],
      outfile: bundle,
      bundle: true,
      platform: 'browser',
      format: 'esm',
      minify: true,
      target: 'es2022',
      tsconfig: path.join(demo, 'tsconfig.json'),
      legalComments: 'none',
      logLevel: 'silent',
    });
  } catch (error) {
    const errors = (error as { errors?: Message[] }).errors ?? [];
    const builtIns = errors.filter((e) => /built into node/i.test(e.notes.map((n) => n.text).join(' ')));
    if (builtIns.length > 0) {
      throw new Error(
        `The demo must run in a browser, and its bundle reaches Node built-ins:\n${builtIns
          .map((e) => `  ${e.location?.file}:${e.location?.line}: ${e.text}`)
          .join('\n')}`,
      );
    }
    throw error;
  }
  copyFileSync(path.join(demo, 'index.html'), path.join(outDir, 'index.html'));
  copyFileSync(path.join(demo, 'styles.css'), path.join(outDir, 'styles.css'));
  copyFileSync(require.resolve('msw/mockServiceWorker.js'), path.join(outDir, 'mockServiceWorker.js'));
  const code = readFileSync(bundle);
  return { outDir, bytes: code.length, gzipBytes: gzipSync(code).length };
}

export function describeBuild(built: BuiltDemo): string {
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;
  const relative = path.relative(process.cwd(), built.outDir);
  const where = relative === '' ? '.' : relative.startsWith('..') ? built.outDir : relative;
  return `Demo built into ${where}/: main.js ${kb(built.bytes)} (${kb(built.gzipBytes)} gzipped), index.html, styles.css, mockServiceWorker.js`;
}

if (require.main === module) {
  const { values } = parseArgs({
    options: { out: { type: 'string' }, quiet: { type: 'boolean', default: false } },
  });
  buildDemo(values.out ? path.resolve(values.out) : DEFAULT_OUT).then(
    (built) => {
      if (!values.quiet) console.log(describeBuild(built));
    },
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
