export { createApp, type AppOptions } from './app';
export { listen, type RunningServer } from './server';
export { createMockServer, type MockServer } from './mock-server';
export { generateWorld, type SeedOptions } from './seed';
export { validateFixture, loadFixtureFile, FixtureError } from './fixtures';
export { World, type WorldData, type StoredMessage } from './store/world';
export { openApiDocument } from './openapi';
export type {
  Contact,
  Message,
  MessageContact,
  Reaction,
  Attachment,
  Page,
  Timestamp,
  ApiErrorBody as ApiError,
} from './types';
