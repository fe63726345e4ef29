import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openApiDocument } from '../src/openapi';

/**
 * The lint of the OpenAPI document (scripts/lint-openapi.ts, `npm test`'s part openapi-lint) fails
 * on a warning of either linter, and its one exemption covers one operation only. The clean run
 * over the document the mock serves is that part itself.
 */
const root = path.join(__dirname, '..');

type Doc = {
  info: Record<string, unknown>;
  paths: Record<string, Record<string, { description?: string; responses: Record<string, unknown> }>>;
};

it('fails on a warning of Redocly or of Spectral, and exempts no operation but GET /openapi.json', () => {
  const broken = structuredClone(openApiDocument()) as Doc;
  // A warning of Redocly's recommended rules only, and one of Spectral's oas rules only.
  delete broken.info.license;
  delete broken.paths['/v1/contacts']!.get!.description;
  // An operation without a 4xx answer, like GET /openapi.json, but not exempted.
  const switches = broken.paths['/__mock/switches']!.get!.responses;
  for (const status of Object.keys(switches)) if (status.startsWith('4')) delete switches[status];

  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'messaging-openapi-lint-test-'));
  try {
    const file = path.join(folder, 'broken.json');
    fs.writeFileSync(file, JSON.stringify(broken));
    const ran = spawnSync(
      path.join(root, 'node_modules', '.bin', 'tsx'),
      ['scripts/lint-openapi.ts', '--document', file],
      { cwd: root, encoding: 'utf8' },
    );
    expect(ran.status).toBe(1);
    const [redocly, spectral] = ran.stdout.split(/^(?=Spectral)/m);
    expect(redocly).toMatch(/^Redocly \(recommended\): 0 errors, 2 warnings \(1 exempted/);
    expect(redocly).toContain('warning info-license  #/info\n');
    expect(redocly).toContain('warning operation-4xx-response  #/paths/~1__mock~1switches/get/responses\n');
    expect(spectral).toMatch(/^Spectral \(spectral:oas\): 0 errors, 1 warning\n/);
    expect(spectral).toContain('warning operation-description  #/paths/~1v1~1contacts/get\n');
    expect(ran.stdout).toMatch(/^openapi lint: 0 passed, 2 failed$/m);
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}, 120_000);
