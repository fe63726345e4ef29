import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import bodyParser from 'body-parser';
import type express from 'express';
import { createApp, everyAuthorization, type AppOptions, type MockLocals } from '../../src/express/app';
import type { RequestHeaders } from '../../src/core/body';
import { dashboardFiles } from '../../src/dashboard';

/**
 * Servers for testing the contract kit: the real mock (createApp), wrapped in an outer server (Node's
 * http) that hands every request to it (in this process: see mockOf) and may rewrite the request on the
 * way in or the answer on the way out. A rogue rewrites so that one documented rule breaks; an
 * honest variant rewrites only what the document leaves open.
 */
export interface ProxyRequest {
  method: string;
  /** Path without the query. */
  path: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  /** Every Authorization header the request carried (Node's `headers` keeps the first only). */
  authorizations: string[];
  /** The body as form pairs, when it was a form; edits to it are sent on. */
  form?: URLSearchParams;
  raw: Buffer;
}

export interface ProxyResponse {
  status: number;
  headers: Record<string, string>;
  /** The parsed JSON body, or undefined (then `text` is sent). */
  body?: unknown;
  text?: string;
}

export interface Wrapper {
  /** Rewrite the request, or answer it without the mock. */
  request?(req: ProxyRequest, inner: Inner): Promise<ProxyResponse | void> | ProxyResponse | void;
  /** Rewrite the mock's answer in place. */
  response?(req: ProxyRequest, res: ProxyResponse, inner: Inner): Promise<void> | void;
}

/** Requests straight to the wrapped mock, for wrappers that need to look something up. */
type Inner = (
  method: string,
  pathAndQuery: string,
  headers: Record<string, string>,
) => Promise<ProxyResponse>;

export interface Running {
  url: string;
  close(): Promise<void>;
}

function listen(server: Server): Promise<Server> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

const urlOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

/** The answer's text as a ProxyResponse: its JSON parsed, else the text as it is. */
function responseOf(status: number, headers: Record<string, string>, text: string): ProxyResponse {
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status, headers, body: parsed, text: parsed === undefined ? text : undefined };
}

/** Header names as HTTP gives them to the wrappers (lower case), the values as text. */
const lowerCased = (headers: Record<string, string | number>): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), String(value)]));

/**
 * The wrapped mock, in this process: the Express app's dashboard files, else its core, given the
 * request as the app's transport gives it (src/express/app.ts: the body's bytes, inflated, without
 * their Content-Encoding; every Authorization header). No socket between the two halves: a rogue
 * run sends some 2,300 requests, and a second HTTP hop for each cost as much CPU as the kit itself.
 */
function mockOf(app: express.Express): (req: ProxyRequest) => Promise<ProxyResponse> {
  const { core } = app.locals as MockLocals;
  const files = dashboardFiles();
  return async (req) => {
    const query = req.query.toString();
    const url = `${req.path}${query ? `?${query}` : ''}`;
    const file = files.answer(req.method, req.path, url);
    if (file !== undefined) {
      return responseOf(
        file.status,
        lowerCased(file.headers),
        req.method === 'HEAD' ? '' : (file.body?.toString() ?? ''),
      );
    }
    const headers: Record<string, string | string[]> = { ...req.headers };
    delete headers['content-encoding'];
    if (req.authorizations.length > 1) headers.authorization = req.authorizations;
    const raw = req.form ? Buffer.from(req.form.toString()) : req.raw;
    const answer = await core.handle({
      method: req.method,
      url,
      origin: `http://${req.headers.host ?? 'localhost'}`,
      headers: headers as RequestHeaders,
      body: req.method !== 'GET' && req.method !== 'HEAD' && raw.length > 0 ? raw : undefined,
    });
    return responseOf(answer.status, lowerCased(answer.headers), req.method === 'HEAD' ? '' : answer.body);
  };
}

/** The request's media type, lower case, without its parameters. */
const mediaType = (request: IncomingMessage) =>
  (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();

/**
 * Reads the request's body as the mock's own server does (body-parser, which the mock's app uses):
 * inflated when it came compressed, any media type, at most 1 MB (past it, read to its end and
 * refused with 413, so that the client gets the answer). `req.body` stays undefined when the
 * request has no body.
 */
const readBody = bodyParser.raw({ type: () => true, limit: '1mb' });

/** The mock, wrapped; with no wrapper it is the mock as it is. */
export async function startWrapped(wrapper: Wrapper = {}, options: AppOptions = {}): Promise<Running> {
  const mock = mockOf(createApp(options));
  const inner: Inner = (method, pathAndQuery, headers) => {
    const [p, q] = pathAndQuery.split('?');
    return mock({
      method,
      path: p!,
      query: new URLSearchParams(q ?? ''),
      headers,
      authorizations: headers.authorization === undefined ? [] : [headers.authorization],
      raw: Buffer.alloc(0),
    });
  };
  // The outer server is Node's own, not Express: a rogue run sends some 2,300 requests, and
  // Express's routing and body reading of each took about a third of the server's processor.
  const outer = http.createServer((request, response) => {
    readBody(request, response, (error?: { status?: number }) => {
      if (error) {
        response.statusCode = error.status ?? 400;
        response.end(String(error));
      } else void answer(request, response, (request as { body?: Buffer }).body);
    });
  });
  const answer = async (request: IncomingMessage, response: ServerResponse, body: Buffer | undefined) => {
    const url = request.url ?? '/';
    const at = url.indexOf('?');
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    const req: ProxyRequest = {
      method: request.method ?? 'GET',
      path: at === -1 ? url : url.slice(0, at),
      query: new URLSearchParams(at === -1 ? '' : url.slice(at + 1)),
      headers,
      authorizations: everyAuthorization(request.rawHeaders),
      raw: body ?? Buffer.alloc(0),
      form:
        body !== undefined && mediaType(request) === 'application/x-www-form-urlencoded'
          ? new URLSearchParams(body.toString('utf8'))
          : undefined,
    };
    try {
      const early = await wrapper.request?.(req, inner);
      const res = early ?? (await mock(req));
      if (!early) await wrapper.response?.(req, res, inner);
      // Status 0 stands for "no answer at all": the connection is dropped, as by a crashed server.
      if (res.status === 0) {
        request.socket.destroy();
        return;
      }
      response.statusCode = res.status;
      for (const [name, value] of Object.entries(res.headers))
        if (!['content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(name.toLowerCase()))
          response.setHeader(name, value);
      if (res.body !== undefined) {
        response.setHeader('content-type', 'application/json; charset=utf-8');
        response.end(JSON.stringify(res.body));
      } else {
        response.end(res.text ?? '');
      }
    } catch (error) {
      response.statusCode = 502;
      response.end(String(error));
    }
  };
  const outerServer = await listen(outer);
  return {
    url: urlOf(outerServer),
    close: async () => {
      await new Promise<void>((done) => {
        outerServer.close(() => done());
        outerServer.closeAllConnections();
      });
    },
  };
}

/** Rewrites every pair of a form or a query in place, in order, each value of a repeated key too. */
export function rewritePairs(
  params: URLSearchParams,
  edit: (key: string, value: string) => readonly [string, string],
): void {
  const pairs = [...params].map(([key, value]) => edit(key, value));
  for (const key of new Set(params.keys())) params.delete(key);
  for (const [key, value] of pairs) params.append(key, value);
}

/** Applies `edit` to every contact or message object in a JSON answer (single or in `data`). */
export function eachResource(body: unknown, edit: (item: Record<string, unknown>) => void): void {
  if (!body || typeof body !== 'object') return;
  const record = body as Record<string, unknown>;
  if (Array.isArray(record.data)) {
    for (const item of record.data)
      if (item && typeof item === 'object') edit(item as Record<string, unknown>);
  } else if ('id' in record) {
    edit(record);
  }
}

export const isMessage = (item: Record<string, unknown>) => 'contact' in item && 'message' in item;

export interface KitRun {
  code: number;
  output: string;
  /** The --json result, when the run wrote one. */
  json?: {
    exitCode: number;
    ruleSet: 'documented' | 'mock';
    verdicts: {
      rule: string;
      verdict: 'pass' | 'fail' | 'not-run';
      reason?: string;
      check?: string;
      foundBy?: string;
      exchange?: { method: string; path: string; status?: number; sent?: string; body?: unknown };
      judge?: { exchanges: number; violations: number };
    }[];
    judged: { judged: number; rules: number; acceptedNotRun: string[] };
    workers?: { chosen: number; ran: number };
    problems: string[];
    serverProfile: Record<string, string[]>;
    leftovers: unknown[];
    requests: number;
    budget?: number;
    transient?: { count: number; examples: string[] };
  };
}

const root = path.resolve(__dirname, '..', '..');
/**
 * The kit's bin as the package installs it (dist/) when dist/ was built from the sources as they
 * are (`npm test` builds first), else the clone's bin, which runs the sources through tsx: the same
 * kit, but the built one starts some seconds sooner, which counts where tests start it a hundred
 * times. The clone's bin is run by `npm test`'s contract part and by proxy.test.ts.
 */
const BIN = (require('../../scripts/build.js') as { upToDate(): boolean }).upToDate()
  ? path.join(root, 'dist', 'contract-tests', 'bin', 'messaging-contract.js')
  : path.join(root, 'contract-tests', 'bin', 'messaging-contract.js');

/** Runs the kit's bin as a user would, and reads its JSON verdicts. */
export function runBin(args: string[], env: Record<string, string | undefined> = {}): Promise<KitRun> {
  return startBin(args, env).done;
}

/** The same, with the child process at hand (to interrupt it). */
export function startBin(
  args: string[],
  env: Record<string, string | undefined> = {},
): { child: ReturnType<typeof spawn>; done: Promise<KitRun> } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-run-'));
  const jsonFile = path.join(dir, 'result.json');
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(childEnv)) if (key.startsWith('CONTRACT_')) delete childEnv[key];
  Object.assign(childEnv, env);
  const child = spawn(process.execPath, [BIN, ...args, '--json', jsonFile], { cwd: root, env: childEnv });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const done = new Promise<KitRun>((resolve) => {
    child.on('close', (code) => {
      const json = fs.existsSync(jsonFile)
        ? (JSON.parse(fs.readFileSync(jsonFile, 'utf8')) as KitRun['json'])
        : undefined;
      fs.rmSync(dir, { recursive: true, force: true });
      resolve({ code: code ?? -1, output, json });
    });
  });
  return { child, done };
}

/** The rules that the judge of every exchange, alone, found broken in a run (whatever their verdict). */
export const namedByJudge = (run: KitRun): string[] =>
  (run.json?.verdicts ?? []).filter((v) => (v.judge?.violations ?? 0) > 0).map((v) => v.rule);

export const failedRules = (run: KitRun) =>
  (run.json?.verdicts ?? []).filter((v) => v.verdict === 'fail').map((v) => v.rule);

/**
 * The failed rules with what showed each (the check, the reason, the test that found it, the
 * exchange): where a run must fail nothing, a failure then says why in the test's own output.
 */
export const failures = (run: KitRun) =>
  (run.json?.verdicts ?? [])
    .filter((v) => v.verdict === 'fail')
    .map((v) =>
      JSON.stringify({
        rule: v.rule,
        check: v.check,
        reason: v.reason,
        foundBy: v.foundBy,
        exchange: v.exchange,
      }),
    );

/** Runs `jobs` with at most `limit` at a time, keeping their order. */
export async function inBatches<T>(jobs: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, jobs.length) }, async () => {
      while (next < jobs.length) {
        const i = next++;
        results[i] = await jobs[i]!();
      }
    }),
  );
  return results;
}

/**
 * Runs the kit against each rogue, two at a time, each behind its own wrapped mock: `argsOf`
 * gives the bin's arguments for the rogue at `i` on the server at `url`. The runs are keyed by
 * the rogue's index. Two, on a 2-core machine: three at a time took the 99 rogues of
 * rogues.test.ts alone in 526 s against 677 s, but in the whole jest run, beside kit.test.ts and
 * its own kit runs, every file took longer and the run 1,553 s against 1,369 s (2026-11-29).
 */
export async function runRogues<R extends { make(): Wrapper; options?: AppOptions }>(
  rogues: readonly R[],
  argsOf: (rogue: R, i: number, url: string) => string[],
): Promise<Map<number, KitRun>> {
  const runs = new Map<number, KitRun>();
  await inBatches(
    rogues.map((rogue, i) => async () => {
      const server = await startWrapped(rogue.make(), rogue.options);
      try {
        // One worker, as on a quiet machine: under some load (a processor still free) the mock's
        // answers can take 20 ms, and the kit would take it for a far server and run four test
        // files at once, where a rogue that deletes another conversation's messages takes those
        // of another file too.
        runs.set(i, await runBin([...argsOf(rogue, i, server.url), '--workers', '1']));
      } finally {
        await server.close();
      }
    }),
    2,
  );
  return runs;
}
