/**
 * In-memory PGlite databases for tests and the in-process conformance target start from a migrated
 * template: initdb plus migrations take seconds, loading a dump of the result well under one. The dump is
 * cached in the OS temp directory, keyed by a hash of the migrations, so parallel test workers share it.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { openPglite } from './pglite-client.ts';

/** The migrated template's dump, built on first use. */
export async function migratedTemplate(
  migrationsFolder: string,
  migrate: (client: PGlite) => Promise<void>,
): Promise<Blob> {
  const hash = createHash('sha256');
  for (const file of readdirSync(migrationsFolder, { recursive: true }).map(String).sort()) {
    const full = path.join(migrationsFolder, file);
    if (file.endsWith('.sql') || file.endsWith('.json')) hash.update(file).update(readFileSync(full));
  }
  const cached = path.join(tmpdir(), `svckit-pglite-template-${hash.digest('hex').slice(0, 16)}.tar`);
  if (existsSync(cached)) return new Blob([readFileSync(cached)]);
  const client = await openPglite();
  await migrate(client);
  const dump = await client.dumpDataDir('none');
  await client.close();
  const partial = `${cached}.${process.pid}`;
  writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
  renameSync(partial, cached); // atomic: a parallel worker never reads half a file
  return dump;
}
