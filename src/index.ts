export { createApp, type AppOptions } from './express/app';
export {
  createCore,
  type Core,
  type CoreOptions,
  type CoreRequest,
  type CoreAnswer,
  type BodyReader,
  type BodyLimit,
  type WorldStorage,
} from './create-core';
export { listen, type RunningServer } from './express/server';
export { createMockServer, type MockServer } from './mock-server';
export { generateWorld, type SeedOptions } from './seed';
export { validateFixture, FixtureError } from './fixtures';
export { loadFixtureFile } from './fixture-file';
export { World, type WorldData } from './store/world';
export { openApiDocument } from './openapi';
export { readProfile, ProfileError, type Conventions, type ReadProfile } from './twin/profile';
export type {
  Contact,
  Message,
  MessageContact,
  Reaction,
  Attachment,
  StoredMessage,
  Page,
  Timestamp,
  ApiErrorBody as ApiError,
} from './types';
