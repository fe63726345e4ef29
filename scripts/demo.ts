/**
 * `npm run demo`: builds the static demo (scripts/build-demo.ts) and serves its folder, nothing
 * else: every API request of the page is answered inside the browser by Mock Service Worker.
 *
 *   npm run demo -- [--port 4020] [--host 127.0.0.1]
 */
import express from 'express';
import { parseArgs } from 'node:util';
import { DEFAULT_OUT, buildDemo, describeBuild } from './build-demo';

const { values } = parseArgs({
  options: {
    port: { type: 'string', short: 'p', default: '4020' },
    host: { type: 'string', default: '127.0.0.1' },
  },
});
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port takes a port number from 0 to 65535, not ${values.port}`);
  process.exit(2);
}

async function main(): Promise<void> {
  const built = await buildDemo(DEFAULT_OUT);
  console.log(describeBuild(built));
  const app = express();
  // A rebuild shows at the next reload: the browser asks again rather than using its copy.
  app.use(express.static(built.outDir, { setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache') }));
  const server = app.listen(port, values.host, () => {
    const address = server.address();
    const bound = typeof address === 'object' && address ? address.port : port;
    // Service workers need a secure context: http://127.0.0.1 and http://localhost are one.
    const host = values.host === '0.0.0.0' || values.host === '::' ? '127.0.0.1' : values.host;
    console.log(`Demo on http://${host.includes(':') ? `[${host}]` : host}:${bound}/ (Ctrl+C stops it)`);
  });
  server.on('error', (error) => {
    console.error(`The demo could not listen on ${values.host}:${port}: ${error.message}`);
    process.exit(1);
  });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
