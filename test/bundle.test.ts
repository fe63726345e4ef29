import fs from 'node:fs';
import path from 'node:path';
import { bundleCost, holding, total, type BundleCost } from '../scripts/bench/bundle';

const root = path.join(__dirname, '..');

/**
 * The browser bundle of an app with MSW's setupWorker and messaging-api-mock/msw, as Vite builds
 * it (scripts/bench/bundle.ts, from dist/: `npm test` builds first). Its first chunk may cost at
 * most 60 kB gzipped more than MSW alone; faker and the default world come only in chunks loaded
 * when a world is asked for. `npm run bench -- --only bundle` prints the same figures.
 */
const BUDGET = 60 * 1024;
let cost: BundleCost;

beforeAll(async () => {
  cost = await bundleCost();
}, 120_000);

it('costs at most 60 kB gzipped more than MSW alone, before the page runs', () => {
  expect(total(cost.withMock.first) - total(cost.mswAlone.first)).toBeLessThanOrEqual(BUDGET);
});

it('loads faker, the generator and the default world only when a world is asked for', () => {
  const { first, later } = cost.withMock;
  // The package's chunks (dist/esm/chunks/) by the source they come from: seed.ts, default-world.json.
  for (const part of ['@faker-js/faker', 'chunks/seed-', 'chunks/default-world-']) {
    expect([part, holding(first, part).map((c) => c.file)]).toEqual([part, []]);
    expect([part, holding(later, part).length]).toEqual([part, 1]);
  }
});

it('loads the OpenAPI document only when it is asked for', () => {
  const { first, later } = cost.withMock;
  expect(holding(first, 'chunks/openapi-').map((c) => c.file)).toEqual([]);
  expect(holding(later, 'chunks/openapi-').length).toBe(1);
});

it("loads a twin's conventions (src/twin/) only with a server profile, and its OpenAPI document only when asked", () => {
  const { first, later } = cost.withMock;
  for (const part of ['chunks/layer-', 'chunks/document-']) {
    expect([part, holding(first, part).map((c) => c.file)]).toEqual([part, []]);
    expect([part, holding(later, part).length]).toEqual([part, 1]);
  }
});

it('never loads the data dir (src/durable/): worlds in a browser are kept by Web Storage', () => {
  // The CommonJS build is a file per module: a bundle of it names each module it took.
  const { first, later } = cost.withMockCommonJs;
  expect(holding([...first, ...later], 'dist/durable/').map((c) => c.file)).toEqual([]);
  expect(holding(first, 'dist/core/').length).toBeGreaterThan(0);
  // The ES build is bundled already: none of its files holds the data dir's code.
  const marker = 'dropped a torn last record';
  expect(fs.readFileSync(path.join(root, 'dist', 'durable', 'data-dir.js'), 'utf8')).toContain(marker);
  const esm = fs.readdirSync(path.join(root, 'dist', 'esm'), { recursive: true, encoding: 'utf8' });
  const holdingIt = esm.filter(
    (file) =>
      file.endsWith('.mjs') && fs.readFileSync(path.join(root, 'dist', 'esm', file), 'utf8').includes(marker),
  );
  expect(holdingIt).toEqual([]);
});

it('the measure catches a bundle that takes faker in whole: the adapter through require, as before the ES modules', () => {
  const { first } = cost.withMockCommonJs;
  expect(holding(first, '@faker-js/faker').length).toBeGreaterThan(0);
  expect(total(first) - total(cost.mswAlone.first)).toBeGreaterThan(BUDGET);
});
