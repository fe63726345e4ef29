import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { errors } from '../errors';
import { BODY_LIMITS } from '../input/limits';

/**
 * Node's HTTP parser refuses some requests before Express sees them: a malformed request line,
 * a NUL in a header, a head over 16 kB, Content-Length together with Transfer-Encoding (request
 * smuggling), a head or body that stops coming. Node's own answer is a bare status line; this
 * writes the error object with the usual headers instead. Wire it with
 * `server.on('clientError', answerClientError)`. Like Node's default (lib/_http_server.js), it
 * only writes when the socket is writable and no answer on it has begun.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const apiError =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? errors.headersTooLarge()
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? errors.requestTimeout()
        : error.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW'
          ? errors.bodyTooLarge(BODY_LIMITS.label)
          : errors.malformedRequest();
  const body = JSON.stringify(apiError);
  socket.end(
    [
      `HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status]}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'X-Content-Type-Options: nosniff',
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
}

/**
 * An `Expect` header other than `100-continue` (RFC 9110 §10.1.1): 417 with the error object
 * instead of Node's bare one. Wire it with `server.on('checkExpectation', answerExpectationFailed)`.
 */
export function answerExpectationFailed(req: IncomingMessage, res: ServerResponse): void {
  const apiError = errors.expectationFailed(String(req.headers.expect ?? ''));
  const body = JSON.stringify(apiError);
  res.writeHead(apiError.status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'X-Content-Type-Options': 'nosniff',
    Connection: 'close',
  });
  res.end(body);
}
