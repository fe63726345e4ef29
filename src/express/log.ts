import type { Request, RequestHandler } from 'express';
import { styleText } from 'node:util';

type Color = Parameters<typeof styleText>[0];

function statusColor(status: number): Color {
  return status >= 500 ? 'red' : status >= 400 ? 'yellow' : status >= 300 ? 'cyan' : 'green';
}

/**
 * One concise line per answered request: method, path, status, milliseconds; coloured on a TTY.
 * The requests that `leftOut` picks are not logged.
 */
export function requestLog(
  write: (line: string) => void,
  color: boolean,
  leftOut?: (req: Request) => boolean,
): RequestHandler {
  const paint = (style: Color, text: string) => (color ? styleText(style, text) : text);
  return (req, res, next) => {
    if (leftOut?.(req)) return next();
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = (Number(process.hrtime.bigint() - start) / 1e6).toFixed(1);
      write(
        `${paint('bold', req.method)} ${req.originalUrl} ${paint(statusColor(res.statusCode), String(res.statusCode))} ${paint('gray', `${ms} ms`)}`,
      );
    });
    next();
  };
}
