import type { AppOptions, MockLocals } from './express/app';
import { listen, type RunningServer } from './express/server';

export interface MockServer {
  /** Starts on a free port (or `port`) and resolves to the base URL, e.g. `http://127.0.0.1:53127`. */
  start(): Promise<string>;
  /** Puts every token's world back to the seeded (or fixture) world. */
  reset(): void;
  /** Stops the server; pending simulated replies are cancelled. */
  stop(): Promise<void>;
  /** The base URL while started. */
  readonly url: string | undefined;
}

/**
 * The mock for other projects' test suites:
 *
 *   const mock = createMockServer({ seed: 42 });
 *   const baseUrl = await mock.start();   // beforeAll
 *   mock.reset();                          // beforeEach
 *   await mock.stop();                     // afterAll
 */
export function createMockServer(options: AppOptions & { port?: number; host?: string } = {}): MockServer {
  let running: RunningServer | undefined;
  const locals = () => {
    if (!running) throw new Error('The mock server is not started: call start() first.');
    return running.app.locals as unknown as MockLocals;
  };
  return {
    async start() {
      if (running) return running.url;
      running = await listen({ port: 0, ...options });
      return running.url;
    },
    reset() {
      locals().core.reset();
    },
    async stop() {
      if (!running) return;
      const stopping = running;
      running = undefined;
      await stopping.close();
    },
    get url() {
      return running?.url;
    },
  };
}
