import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ApiError, errors } from '../errors';
import { BODY_LIMITS } from './body';

/** Turns anything thrown while answering into the one error shape of convention C2. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const { status, message } = error as { status?: unknown; message?: unknown };
  // Express's router refuses a path segment that is not valid percent-encoding this way.
  if (
    error instanceof URIError ||
    (typeof message === 'string' && message.startsWith('Failed to decode param'))
  ) {
    return errors.malformedUrl();
  }
  if (status === 413) return errors.bodyTooLarge(BODY_LIMITS.label);
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return errors.malformedBody('the request could not be read.');
  }
  return errors.internal();
}

/** The one place that writes an error answer. Never a stack trace, never a library's name. */
export function errorHandler(logError: (error: unknown) => void): ErrorRequestHandler {
  return (error, _req, res, _next) => {
    const apiError = toApiError(error);
    if (apiError.code === 'internal') logError(error);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.status(apiError.status).set(apiError.headers).json(apiError);
  };
}

export const routeNotFound: RequestHandler = (req, _res, next) => {
  next(errors.routeNotFound(req.method, req.path));
};
