// The evidence's package list in an installed svckit package (D-230): npm packs no lockfile, so the versions come
// from the lockfile of the project that installed it, nested entries before hoisted ones.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lockedProductionPackages, lockRoot } from '../../conformance/evidence/supply-chain.ts';

const project = mkdtempSync(path.join(tmpdir(), 'svckit-installed-'));
const installed = path.join(project, 'node_modules/svckit');
const write = (file: string, json: unknown) => {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(json));
};
write(path.join(installed, 'package.json'), {
  name: 'svckit',
  version: '0.1.0',
  dependencies: { fastify: '5.12.8', zod: '4.6.7', '@svckit/sdk': '0.1.0' },
});
write(path.join(project, 'package-lock.json'), {
  lockfileVersion: 3,
  packages: {
    '': { name: 'consumer' },
    'node_modules/svckit': { version: '0.1.0', resolved: 'file:../svckit-0.1.0.tgz' },
    'node_modules/fastify': {
      version: '5.12.8',
      license: 'MIT',
      resolved: 'https://registry.npmjs.org/fastify/-/fastify-5.12.8.tgz',
    },
    'node_modules/zod': {
      version: '3.0.0',
      license: 'MIT',
      resolved: 'https://registry.npmjs.org/zod/-/zod-3.0.0.tgz',
    },
    'node_modules/svckit/node_modules/zod': {
      version: '4.6.7',
      license: 'MIT',
      resolved: 'https://registry.example/zod/-/zod-4.6.7.tgz',
    },
    'node_modules/@svckit/sdk': { version: '0.1.0', license: 'Apache-2.0', resolved: 'file:../svckit-sdk-0.1.0.tgz' },
  },
});
afterAll(() => rmSync(project, { recursive: true, force: true }));

describe('the supply chain of an installed svckit', () => {
  it('finds the lockfile of the project that installed it', () => {
    expect(lockRoot(installed)).toEqual({ root: project, prefix: 'node_modules/svckit/' });
  });

  it("takes svckit's dependencies at their installed versions, nested first, and the default registry for a tarball", () => {
    expect(lockedProductionPackages(installed, 'https://registry.npmjs.org/')).toEqual([
      {
        name: '@svckit/sdk',
        version: '0.1.0',
        license: 'Apache-2.0',
        registry: 'https://registry.npmjs.org/',
        requested: '0.1.0',
      },
      {
        name: 'fastify',
        version: '5.12.8',
        license: 'MIT',
        registry: 'https://registry.npmjs.org/',
        requested: '5.12.8',
      },
      { name: 'zod', version: '4.6.7', license: 'MIT', registry: 'https://registry.example/', requested: '4.6.7' },
    ]);
  });

  it('says what to do when no lockfile records the package', () => {
    const alone = mkdtempSync(path.join(tmpdir(), 'svckit-alone-'));
    write(path.join(alone, 'package.json'), { name: 'svckit', version: '0.1.0' });
    expect(() => lockRoot(alone)).toThrow(/no package-lock\.json above .* records it: install svckit with npm/);
    rmSync(alone, { recursive: true, force: true });
  });
});
