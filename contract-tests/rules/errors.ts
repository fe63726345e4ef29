/**
 * The error codes of the mock's conventions (C2): those a request of the API can meet, and those
 * only the mock's switches and control routes give (docs/mock.md, "Error codes").
 */
export const API_ERROR_CODES = [
  'missing_token',
  'invalid_token',
  'not_found',
  'parameter_missing',
  'parameter_invalid',
  'parameter_unknown',
  'route_not_found',
  'method_not_allowed',
  'body_too_large',
  'unsupported_media_type',
  'malformed_body',
  'malformed_url',
  'too_many_parameters',
  'nesting_too_deep',
  'internal',
] as const;

export const ERROR_CODES: ReadonlySet<string> = new Set([
  ...API_ERROR_CODES,
  'forbidden',
  'world_full',
  'rate_limited',
  'service_unavailable',
  'simulated_error',
]);
