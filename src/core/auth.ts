import { errors } from '../errors';

/** Long enough for any JWT a client may send; a bound so that a token cannot be a memory sink. */
export const MAX_TOKEN_LENGTH = 4096;

// RFC 6750 §2.1: "Bearer" 1*SP b64token; the scheme name is case-insensitive (RFC 7235 §2.1).
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * Convention C4: `Authorization: Bearer <token>` with a non-empty token. With `tokens`, only
 * those are accepted. Gives the token of a request's Authorization header, or throws the refusal.
 */
export function authenticator(tokens: readonly string[] | undefined): (header: string | undefined) => string {
  const accepted = tokens && tokens.length > 0 ? new Set(tokens) : undefined;
  return (header) => {
    if (header === undefined || header.trim() === '') throw errors.missingToken();
    if (header.length > MAX_TOKEN_LENGTH) throw errors.invalidToken('The access token is too long.');
    const match = BEARER.exec(header);
    // Several Authorization headers arrive joined with commas, which no token holds.
    if (!match && header.includes(','))
      throw errors.invalidToken('The request has several Authorization headers; send one.');
    if (!match) throw errors.invalidToken('The Authorization header is not of the form "Bearer <token>".');
    const token = match[1]!;
    if (accepted && !accepted.has(token)) throw errors.invalidToken('The access token is not accepted here.');
    return token;
  };
}
