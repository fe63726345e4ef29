export { createApp, type AppOptions } from './app';
export { listen, type RunningServer } from './server';
export { generateWorld, type SeedOptions } from './seed';
export { World, type WorldData, type StoredMessage } from './store/world';
export { ApiError, ERROR_STATUS, errors, type ErrorCode } from './errors';
export type * from './types';
