import type { RequestHandler } from 'express';
import type { Worlds } from '../store/worlds';

const BODY_EXCERPT = 2048;

/** Keeps each answered API request in its token's journal (`GET /__mock/requests`). */
export function journal(worlds: Worlds): RequestHandler {
  return (req, res, next) => {
    const start = process.hrtime.bigint();
    const token = res.locals.token as string;
    res.on('finish', () => {
      const entry: Parameters<Worlds['record']>[1] = {
        time: new Date().toISOString(),
        method: req.method,
        path:
          req.originalUrl.length > BODY_EXCERPT
            ? `${req.originalUrl.slice(0, BODY_EXCERPT)}…`
            : req.originalUrl,
        status: res.statusCode,
        duration_ms: Math.round(Number(process.hrtime.bigint() - start) / 1e4) / 100,
      };
      if (req.body !== undefined) {
        const text = JSON.stringify(req.body);
        entry.body = text.length <= BODY_EXCERPT ? req.body : `(${text.length} characters, not kept)`;
      }
      worlds.record(token, entry);
      // A write may have grown the world: count it again against the budget of all worlds.
      if (req.method !== 'GET' && req.method !== 'HEAD') worlds.refresh(token);
    });
    next();
  };
}
