import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorAnswer, withCommonHeaders, type CoreAnswer } from '../core/answer';
import { errors, type ApiError } from '../errors';
import { BODY_LIMITS } from '../input/limits';

/**
 * Node's HTTP parser refuses some requests before Express sees them: a malformed request line,
 * a NUL in a header, a head over 16 kB, Content-Length together with Transfer-Encoding (request
 * smuggling), a head or body that stops coming. Node's own answer is a bare status line; this
 * writes the error object with the usual headers instead. Wire it with
 * `server.on('clientError', answerClientError)`. Like Node's default (its _http_server.js), it
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
  const { status, headers, body } = answerOf(apiError);
  socket.end(
    [
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
}

/** The refusal as the core answers every request: the error object, with the headers of every answer (C19's CORS too). */
function answerOf(apiError: ApiError): CoreAnswer {
  return withCommonHeaders(errorAnswer(apiError));
}

/**
 * An `Expect` header other than `100-continue` (RFC 9110 §10.1.1): 417 with the error object
 * instead of Node's bare one. Wire it with `server.on('checkExpectation', answerExpectationFailed)`.
 */
export function answerExpectationFailed(req: IncomingMessage, res: ServerResponse): void {
  const { status, headers, body } = answerOf(errors.expectationFailed(String(req.headers.expect ?? '')));
  res.writeHead(status, { ...headers, 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
  res.end(body);
}
