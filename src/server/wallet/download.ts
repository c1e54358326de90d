/**
 * The signed browser-extension package. spec: "HTTP 302 redirect to a signed .zip of the browser extension";
 * issue: "The signature is ML-DSA-65, and a SHA-256 digest sits beside it." The package is built from the
 * extension directory the project's build writes (`dist/extension`, manifest.json inside), zipped
 * deterministically and signed with the release key (D-086). No build, no package: 503, never a stand-in.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { toHex } from '@svckit/sdk/crypto';
import { ErrorCode, RestError } from '../http/errors.ts';
import type { ServiceKey } from './keys.ts';
import { zip } from './zip.ts';

/** The file name stem of the package; the version comes from manifest.json. */
export const PACKAGE_STEM = 'svckit-wallet-extension';

/** A built, signed package. */
export type ExtensionPackage = { fileName: string; version: string; zip: Buffer; sha256: string; signature: string };

function walk(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const full = path.join(dir, d.name);
    if (d.isDirectory()) return walk(full, base);
    return d.isFile() ? [path.relative(base, full).split(path.sep).join('/')] : [];
  });
}

/**
 * Builds the signed package of the extension directory once and serves it from memory. The directory is
 * listed and read only when the build changes: a rebuild replaces manifest.json (a new inode and change
 * time) and touches the directory last (scripts/build-extension.ts), so two stats per request tell, and no
 * request walks the tree.
 */
export class ExtensionPackager {
  private cached: { stamp: string; pkg: ExtensionPackage } | undefined;

  constructor(
    private readonly dir: string,
    /** The current release key (D-086, D-214): the same on every instance; a rotation changes it. */
    private readonly releaseKey: () => ServiceKey,
  ) {}

  /** The release key (D-086); its public key is served beside the package. */
  get key(): ServiceKey {
    return this.releaseKey();
  }

  /** The build's identity: the directory's and manifest.json's inode and change time, or undefined when not built. */
  private stamp(manifestPath: string): string | undefined {
    try {
      const dir = statSync(this.dir, { bigint: true });
      const manifest = statSync(manifestPath, { bigint: true });
      // The release key's kid too: after a rotation (D-215) the package is signed again with the new key.
      return `${dir.ino}:${dir.ctimeNs}|${manifest.ino}:${manifest.ctimeNs}:${manifest.size}:${manifest.mtimeNs}|${this.key.kid}`;
    } catch {
      return undefined;
    }
  }

  /** The current package, or a 503 EXTENSION_NOT_BUILT when the directory holds no manifest.json. */
  current(): ExtensionPackage {
    const manifestPath = path.join(this.dir, 'manifest.json');
    const stamp = this.stamp(manifestPath);
    if (stamp === undefined) {
      this.cached = undefined;
      throw new RestError(
        ErrorCode.EXTENSION_NOT_BUILT,
        `the browser extension has not been built on this deployment (no ${path.basename(this.dir)}/manifest.json); build it, then try again`,
      );
    }
    if (this.cached?.stamp === stamp) return this.cached.pkg;
    let manifest: { manifest_version?: unknown; version?: unknown };
    try {
      manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    } catch {
      throw new RestError(
        ErrorCode.EXTENSION_NOT_BUILT,
        'the built extension has an unreadable manifest.json; rebuild it',
      );
    }
    // A Manifest V3 extension (a real Manifest V3 extension); Chrome's version is 1 to 4 dot-separated integers.
    if (
      manifest.manifest_version !== 3 ||
      typeof manifest.version !== 'string' ||
      !/^\d+(\.\d+){0,3}$/.test(manifest.version)
    ) {
      throw new RestError(
        ErrorCode.EXTENSION_NOT_BUILT,
        'the built extension is not a Manifest V3 package with a numeric version; rebuild it',
      );
    }
    const files = walk(this.dir).sort();
    const archive = zip(files.map((name) => ({ name, data: readFileSync(path.join(this.dir, name)) })));
    const pkg: ExtensionPackage = {
      fileName: `${PACKAGE_STEM}-${manifest.version}.zip`,
      version: manifest.version,
      zip: archive,
      sha256: createHash('sha256').update(archive).digest('hex'),
      signature: toHex(this.key.sign(archive)),
    };
    this.cached = { stamp, pkg };
    return pkg;
  }
}

/** The site-origin routes: the .zip, its `.sig`, its `.sha256` and the release public key (D-086). */
export async function extensionSiteRoutes(app: FastifyInstance, opts: { packager: ExtensionPackager }): Promise<void> {
  app.get(`/downloads/${PACKAGE_STEM}.pub`, async (_request, reply) =>
    reply.type('text/plain; charset=utf-8').send(`${toHex(opts.packager.key.publicBytes)}\n`),
  );
  app.get<{ Params: { file: string } }>('/downloads/:file', async (request, reply) => {
    const pkg = opts.packager.current();
    const file = request.params.file;
    if (file === pkg.fileName) {
      return reply
        .type('application/zip')
        .header('content-disposition', `attachment; filename="${pkg.fileName}"`)
        .send(pkg.zip);
    }
    // sha256sum format: digest, two spaces, file name (so `sha256sum -c` checks it).
    if (file === `${pkg.fileName}.sha256`)
      return reply.type('text/plain; charset=utf-8').send(`${pkg.sha256}  ${pkg.fileName}\n`);
    if (file === `${pkg.fileName}.sig`) return reply.type('text/plain; charset=utf-8').send(`${pkg.signature}\n`);
    throw new RestError(ErrorCode.NOT_FOUND, `no download ${file}; the current package is ${pkg.fileName}`);
  });
}
