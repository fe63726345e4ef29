import http from 'node:http';
import https from 'node:https';
import { type PendingWrite, type ProxyExchange } from '../http/exchange';
import { MAX_HEADER_BYTES } from '../../common/http';

/**
 * The forwarding half of the proxy, on node:http: every request goes to the target as it came
 * (method, path and query, headers, body streamed), and the target's answer comes back as it
 * is (status, headers, body streamed). Only the hop-by-hop headers, which belong to each
 * connection and not to the exchange, are left to each side, and Host names the target. Both
 * bodies are teed as they stream, up to `keepBytes` each, and the exchange is handed over only
 * once the answer has been sent: the checks never hold up the client.
 */
export interface ForwardOptions {
  target: URL;
  /** How long the target may stay silent, in ms, before the client gets a 504. */
  timeoutMs: number;
  /** The bytes of each body kept for the checks; a larger body passes through unjudged. */
  keepBytes: number;
  onExchange(exchange: Omit<ProxyExchange, 'seq'>): void;
  /**
   * A request came in: told before it is forwarded; the function it returns is called once it is
   * over (just before its exchange is handed over, or when it failed), so that the judge of an
   * exchange knows the writes still on their way.
   */
  onRequest?(request: PendingWrite): () => void;
  /** The target could not be reached, timed out, or dropped an answer half-way. */
  onTargetProblem(problem: TargetProblem): void;
}

export interface TargetProblem {
  /** 'transient': the target (or a gateway before it) answered 502, 503 or 504 (proxy.ts). */
  kind: 'unreachable' | 'timeout' | 'dropped' | 'transient';
  method: string;
  url: string;
  message: string;
  /** What the client got: 502, 504, or nothing more (the answer was cut off as it was). */
  status?: number;
}

/** RFC 9110 §7.6.1: headers of one connection, never forwarded. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** The raw header pairs (name, value, name, value…) without the hop-by-hop ones. */
function endToEnd(raw: string[], drop: readonly string[] = []): string[] {
  const listed = new Set(drop);
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i]!.toLowerCase() === 'connection')
      for (const name of raw[i + 1]!.split(',')) listed.add(name.trim().toLowerCase());
  const kept: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (!HOP_BY_HOP.has(name) && !listed.has(name)) kept.push(raw[i]!, raw[i + 1]!);
  }
  return kept;
}

function headerRecord(raw: string[]): Record<string, string> {
  const record: Record<string, string> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    record[name] = record[name] === undefined ? raw[i + 1]! : `${record[name]}, ${raw[i + 1]!}`;
  }
  return record;
}

/** Collects a stream's chunks up to a size; past it, only that there was more. */
class Tee {
  private chunks: Buffer[] = [];
  private size = 0;
  private over = false;
  constructor(private readonly limit: number) {}
  add = (chunk: Buffer): void => {
    if (this.over) return;
    this.size += chunk.length;
    if (this.size > this.limit) {
      this.over = true;
      this.chunks = [];
    } else this.chunks.push(chunk);
  };
  get bytes(): Buffer | undefined {
    return this.over ? undefined : Buffer.concat(this.chunks);
  }
}

/** An error answer in the API's own error shape (convention C2), for what the proxy could not forward. */
function gatewayError(res: http.ServerResponse, status: 502 | 504, message: string): void {
  const body = JSON.stringify({
    type: 'api_error',
    code: status === 502 ? 'bad_gateway' : 'gateway_timeout',
    message,
  });
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    // A browser's page must be able to read it, as it reads the target's own errors.
    'Access-Control-Allow-Origin': '*',
  });
  res.end(body);
}

export function createForwarder(options: ForwardOptions): http.Server {
  const { target } = options;
  const secure = target.protocol === 'https:';
  const agent = secure ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
  const prefix = target.pathname.replace(/\/+$/, '');
  const server = http.createServer({ maxHeaderSize: MAX_HEADER_BYTES }, (req, res) => {
    const startedAt = Date.now();
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const authorization = req.headers.authorization;
    const over = options.onRequest?.({
      method,
      url,
      ...(authorization !== undefined ? { authorization } : {}),
    });
    let done = false;
    const release = () => {
      if (!done) over?.();
      done = true;
    };
    const requestTee = new Tee(options.keepBytes);
    const answerTee = new Tee(options.keepBytes);
    const headers = endToEnd(req.rawHeaders, ['host', 'expect']);
    headers.push('Host', target.host);
    let timedOut = false;
    let answered = false;
    let clientGone = false;
    let requestEnded = false;
    const send = (body?: Buffer): http.ClientRequest => {
      const request = (secure ? https : http).request({
        protocol: target.protocol,
        hostname: target.hostname,
        port: target.port,
        method,
        path: `${prefix}${url}`,
        headers,
        agent: body === undefined ? agent : false,
        maxHeaderSize: MAX_HEADER_BYTES,
        // Host is among the headers already: the target's.
        setHost: false,
      });
      request.setTimeout(options.timeoutMs, () => {
        timedOut = true;
        request.destroy(new Error(`no answer within ${options.timeoutMs} ms`));
      });
      request.on('error', (error: NodeJS.ErrnoException) => {
        if (answered || clientGone) return;
        // A kept-alive connection the target closed while this request was on its way: the
        // target never saw it, so it goes again once on a connection of its own (as browsers
        // do), when its whole body is at hand.
        const whole = requestEnded ? requestTee.bytes : undefined;
        if (
          body === undefined &&
          request.reusedSocket &&
          !timedOut &&
          (error.code === 'ECONNRESET' || error.code === 'EPIPE') &&
          whole !== undefined
        ) {
          outgoing = send(whole);
          return;
        }
        const status = timedOut ? 504 : 502;
        const message = timedOut
          ? `The target ${target.origin} did not answer within ${options.timeoutMs} ms.`
          : `The proxy could not reach the target ${target.origin}: ${error.code ?? error.message}.`;
        options.onTargetProblem({ kind: timedOut ? 'timeout' : 'unreachable', method, url, message, status });
        if (!res.headersSent) gatewayError(res, status, message);
        else res.destroy();
      });
      request.on('response', (answer) => onAnswer(answer));
      if (body !== undefined) request.end(body);
      return request;
    };
    let outgoing = send();
    const onAnswer = (answer: http.IncomingMessage) => {
      answered = true;
      let complete = false;
      try {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.rawHeaders));
      } catch (error) {
        // A status or header that node's client read but its server will not write.
        const message = `The target's ${answer.statusCode} answer cannot be passed on: ${(error as Error).message}.`;
        options.onTargetProblem({ kind: 'unreachable', method, url, message, status: 502 });
        answer.destroy();
        gatewayError(res, 502, message);
        return;
      }
      answer.on('data', answerTee.add);
      answer.on('end', () => (complete = true));
      const dropped = (why: string) => {
        if (complete || clientGone) return;
        complete = true;
        options.onTargetProblem({
          kind: timedOut ? 'timeout' : 'dropped',
          method,
          url,
          message: `The target ${timedOut ? 'went silent' : 'closed the connection'} in the middle of its ${answer.statusCode} answer (${why}); the client got the answer cut off, as it was.`,
        });
        res.destroy();
      };
      answer.on('aborted', () => dropped('aborted'));
      answer.on('error', (error) => dropped(error.message));
      answer.on('close', () => {
        if (!complete && !answer.complete) dropped('closed');
      });
      answer.pipe(res);
      res.on('finish', () => {
        if (!answer.complete) return;
        const exchange: Omit<ProxyExchange, 'seq'> = {
          method,
          url,
          requestHeaders: headerRecord(req.rawHeaders),
          ...(requestTee.bytes !== undefined ? { requestBody: requestTee.bytes } : {}),
          status: answer.statusCode ?? 0,
          responseHeaders: headerRecord(answer.rawHeaders),
          ...(answerTee.bytes !== undefined ? { responseBody: answerTee.bytes } : {}),
          startedAt,
          finishedAt: Date.now(),
        };
        // The answer is out: the checks run after this turn of the event loop.
        setImmediate(() => {
          release();
          options.onExchange(exchange);
        });
      });
    };
    // A client that goes away takes its request to the target with it.
    res.on('close', () => {
      if (res.writableFinished) return;
      release();
      clientGone = true;
      outgoing.destroy();
    });
    req.on('data', requestTee.add);
    req.on('end', () => (requestEnded = true));
    req.pipe(outgoing);
  });
  server.on('close', () => agent.destroy());
  return server;
}
