import type { RequestHandler } from 'express';
import { errors } from '../errors';

/** Long enough for any JWT a client may send; a bound so that a token cannot be a memory sink. */
export const MAX_TOKEN_LENGTH = 4096;

// RFC 6750 §2.1: "Bearer" 1*SP b64token; the scheme name is case-insensitive (RFC 7235 §2.1).
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * Convention C4: `Authorization: Bearer <token>` with a non-empty token. With `tokens`, only
 * those are accepted. Puts the token in `res.locals.token`.
 */
export function authenticate(tokens: readonly string[] | undefined): RequestHandler {
  const accepted = tokens && tokens.length > 0 ? new Set(tokens) : undefined;
  return (req, res, next) => {
    const header = req.headers.authorization;
    if (header === undefined || header.trim() === '') return next(errors.missingToken());
    if (header.length > MAX_TOKEN_LENGTH) return next(errors.invalidToken('The access token is too long.'));
    const match = BEARER.exec(header);
    if (!match) {
      return next(errors.invalidToken('The Authorization header is not of the form "Bearer <token>".'));
    }
    const token = match[1]!;
    if (accepted && !accepted.has(token))
      return next(errors.invalidToken('The access token is not accepted here.'));
    res.locals.token = token;
    next();
  };
}
