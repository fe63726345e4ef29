import type { IntegerRule } from '../resources/formats';
/**
 * Every bound of the mock's input, in one place: what a request, a body or a page may hold (C12),
 * what one message may carry, and the bounds of the control routes. The core enforces them, the
 * OpenAPI document states them, and both read them here.
 */

/** The page size and what one message may carry. */
export const LIMITS = {
  pageSizeDefault: 10,
  pageSizeMax: 100,
  attachmentsPerRequest: 10,
  attachmentsPerMessage: 100,
  reactionNamesPerMessage: 50,
  usernamesPerReaction: 500,
} as const;

/** Convention C12: bounds that no body, query or multipart form can exceed. */
export const BODY_LIMITS = {
  bytes: 100 * 1024,
  label: '100 kB',
  parameters: 1000,
  depth: 5,
  arrayLength: 100,
} as const;

/** A whole world can be far larger than an API request; this bounds `PUT /__mock/state`. */
export const STATE_BODY_LIMIT = { bytes: 64 * 1024 * 1024, label: '64 MB' } as const;

/** The longest delay a `Prefer: delay` or a latency switch may ask for. */
export const MAX_DELAY_MS = 60_000;

/** The bounds of `PUT /__mock/switches`. */
export const SWITCH_LIMITS = {
  latency: { min: 0, max: MAX_DELAY_MS },
  status: { min: 400, max: 599 },
  count: { min: 1, max: 1000 },
} as const;

/** The size of a page a list may be asked for (`limit`). */
export const PAGE_SIZE: IntegerRule = { min: 1, max: LIMITS.pageSizeMax };
