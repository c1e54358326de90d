// Supply-chain facts for the evidence document, each measured: the CycloneDX SBOM generated from the
// lockfile by @cyclonedx/cyclonedx-npm, the npm audit of production dependencies, and the packages
// from package-lock.json with their licence, registry and (online) npm provenance attestation.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import type { Package } from '@svckit/sdk/evidence';
import { DEFAULT_REGISTRY } from '../../src/evidence/defaults.ts';

const run = promisify(execFile);

/** Where the lockfile of what runs is, and where svckit's own entries sit in it (`node_modules/svckit/` or ''). */
export type LockRoot = { root: string; prefix: string };

/**
 * The lockfile of what runs (D-230): a checkout's own; for the installed svckit package, which has none (npm
 * never packs one), the project that installed it: the nearest folder above with a package-lock.json whose
 * tree holds this package. The SBOM and the audit then cover that installation, and the package list takes
 * svckit's dependencies at the versions installed there.
 */
export function lockRoot(repoRoot: string): LockRoot {
  if (existsSync(join(repoRoot, 'package-lock.json'))) return { root: repoRoot, prefix: '' };
  const real = realpathSync(repoRoot);
  for (let dir = dirname(real); dirname(dir) !== dir; dir = dirname(dir)) {
    const lockPath = join(dir, 'package-lock.json');
    if (!existsSync(lockPath)) continue;
    const at = relative(dir, real).split('\\').join('/');
    const lock = JSON.parse(readFileSync(lockPath, 'utf8')) as { packages?: Record<string, unknown> };
    if (lock.packages?.[at]) return { root: dir, prefix: `${at}/` };
  }
  throw new Error(
    `no package-lock.json above ${repoRoot} records it: install svckit with npm (which writes one), or build the evidence in a checkout`,
  );
}

/** A production dependency as the lockfile pins it. */
export interface LockedPackage {
  /** Package name. */
  name: string;
  /** Exact version from package-lock.json. */
  version: string;
  /** SPDX licence expression from the lockfile (or the installed package.json); NOASSERTION when none. */
  license: string;
  /** Registry root URL the package resolves from. */
  registry: string;
  /** The version range package.json asks for. */
  requested: string;
}

/** The direct production dependencies of package.json, optional ones included, at the versions package-lock.json pins. */
export function lockedProductionPackages(repoRoot: string, registry = DEFAULT_REGISTRY): LockedPackage[] {
  const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
    optionalDependencies?: Record<string, string>;
  };
  const locked = lockRoot(repoRoot);
  const lock = JSON.parse(readFileSync(join(locked.root, 'package-lock.json'), 'utf8')) as {
    lockfileVersion?: number;
    packages?: Record<string, { version?: string; license?: string; resolved?: string; link?: boolean }>;
  };
  if (!lock.packages) throw new Error('package-lock.json has no "packages" map (lockfileVersion 2 or 3 expected)');
  // Optional dependencies run too (the Anvil binary package among them), so they are listed with their locked versions.
  return Object.entries({ ...manifest.optionalDependencies, ...manifest.dependencies })
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, requested]) => {
      // Nested under svckit where the installation has another version at the top, else hoisted.
      const installed =
        lock.packages?.[`${locked.prefix}node_modules/${name}`] ?? lock.packages?.[`node_modules/${name}`];
      // A workspace package (@svckit/sdk, D-229) is a link to its folder, which carries the version; it is
      // published to the same registry as svckit, at the same version.
      const entry = installed?.link && installed.resolved ? lock.packages?.[installed.resolved] : installed;
      if (!entry?.version)
        throw new Error(`package-lock.json does not pin ${name}; run npm install to update the lockfile`);
      return {
        name,
        version: entry.version,
        license: entry.license ?? installedLicense(locked.root, name) ?? 'NOASSERTION',
        // A package installed from a tarball or a folder (file:, a workspace link) names no registry: the default.
        registry:
          entry.resolved?.startsWith('http') && !installed?.link ? `${new URL(entry.resolved).origin}/` : registry,
        requested,
      };
    });
}

/** How many of package.json's dependencies are pinned to an exact version (DESIGN: "Pin exact versions"). */
export function exactPins(repoRoot: string): { exact: number; total: number } {
  const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as Record<
    string,
    Record<string, string> | undefined
  >;
  const specs = [...Object.values(manifest.dependencies ?? {}), ...Object.values(manifest.devDependencies ?? {})];
  return { exact: specs.filter((s) => /^\d+\.\d+\.\d+(-[\w.]+)?$/.test(s)).length, total: specs.length };
}

/** The SBOM as written and described. */
export interface SbomResult {
  /** Description for supplyChain.sbom. */
  summary: {
    format: string;
    specVersion: string;
    tool: string;
    source: string;
    components: number;
    file: string;
    sha256: string;
  };
  /** Path written. */
  path: string;
}

/** Generates the CycloneDX 1.6 JSON SBOM from package-lock.json (production dependencies). */
export async function generateSbom(repoRoot: string, outPath: string): Promise<SbomResult> {
  // The package's "exports" give only its entry point, which sits at the package root.
  const packageDir = dirname(createRequire(join(repoRoot, 'package.json')).resolve('@cyclonedx/cyclonedx-npm'));
  const cli = join(packageDir, 'bin', 'cyclonedx-npm-cli.js');
  const { root } = lockRoot(repoRoot);
  const args = [
    cli,
    '--package-lock-only',
    '--omit',
    'dev',
    '--output-format',
    'JSON',
    '--spec-version',
    '1.6',
    '--output-reproducible',
    '--output-file',
    outPath,
    join(root, 'package.json'),
  ];
  try {
    await run(process.execPath, args, { cwd: root, maxBuffer: 64 << 20 });
  } catch (error) {
    const stderr = String((error as { stderr?: string }).stderr ?? '')
      .trim()
      .split('\n')
      .slice(-3)
      .join(' | ');
    throw new Error(
      `cyclonedx-npm could not write the SBOM (it needs npm on the PATH): ${stderr || (error as Error).message}`,
    );
  }
  const bytes = readFileSync(outPath);
  const bom = JSON.parse(bytes.toString('utf8')) as { specVersion?: string; components?: unknown[] };
  if (bom.specVersion !== '1.6' || !Array.isArray(bom.components))
    throw new Error(`${outPath} is not a CycloneDX 1.6 document`);
  const tool = `@cyclonedx/cyclonedx-npm ${JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')).version as string}`;
  return {
    path: outPath,
    summary: {
      format: 'CycloneDX',
      specVersion: bom.specVersion,
      tool,
      source: 'package-lock.json (--package-lock-only), production dependencies (--omit dev)',
      components: bom.components.length,
      file: outPath.split(/[\\/]/).pop() as string,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    },
  };
}

/** supplyChain.dependencyAudit: counts only when the audit ran. */
export type AuditResult =
  | { tool: string; performed: true; date: string; scope: string; findings: number; bySeverity: Record<string, number> }
  | { tool: string; performed: false; note: string };

/** Runs `npm audit` on the lockfile's production dependencies; needs the registry (online step). */
export async function runNpmAudit(repoRoot: string, now: Date): Promise<AuditResult> {
  const tool = 'npm audit';
  const npm =
    process.env.npm_execpath && existsSync(process.env.npm_execpath)
      ? [process.execPath, process.env.npm_execpath]
      : ['npm'];
  let stdout: string;
  try {
    ({ stdout } = await run(
      npm[0] as string,
      [...npm.slice(1), 'audit', '--json', '--package-lock-only', '--omit', 'dev'],
      { cwd: lockRoot(repoRoot).root, maxBuffer: 64 << 20 },
    ));
  } catch (error) {
    // npm audit exits 1 when it finds vulnerabilities; its JSON is still on stdout.
    stdout = String((error as { stdout?: string }).stdout ?? '');
    if (!stdout.trim().startsWith('{'))
      return { tool, performed: false, note: `npm audit did not run: ${(error as Error).message.split('\n')[0]}` };
  }
  return parseNpmAudit(stdout, now);
}

/** Reads `npm audit --json` output: counts only when npm reported them, else why not (e.g. the registry refused). */
export function parseNpmAudit(stdout: string, now: Date): AuditResult {
  const tool = 'npm audit';
  let report: {
    metadata?: { vulnerabilities?: Record<string, number> };
    message?: string;
    error?: { summary?: string };
  };
  try {
    report = JSON.parse(stdout);
  } catch {
    return { tool, performed: false, note: 'npm audit printed no JSON' };
  }
  const v = report.metadata?.vulnerabilities;
  if (!v || typeof v.total !== 'number') {
    return {
      tool,
      performed: false,
      note: `npm audit gave no counts: ${report.error?.summary || report.message || 'unexpected output'}`,
    };
  }
  const { total, ...bySeverity } = v;
  return {
    tool,
    performed: true,
    date: now.toISOString().slice(0, 10),
    scope: 'production dependencies in package-lock.json (--omit dev)',
    findings: total,
    bySeverity,
  };
}

/** A fetch-like function (injected in tests). */
export type FetchLike = (url: string) => Promise<{ status: number; json(): Promise<unknown> }>;

/** The packages list: `provenance` only where the registry publishes an attestation, else `provenanceNote`. */
export async function packagesWithProvenance(
  packages: readonly LockedPackage[],
  lookup: { fetch: FetchLike; date: string } | null,
): Promise<Package[]> {
  const out: Package[] = [];
  for (const p of packages) {
    const base = { name: p.name, version: p.version, license: p.license, registry: p.registry };
    if (!lookup) {
      out.push({
        ...base,
        provenanceNote:
          'attestation lookup not performed: the evidence was built offline (svckit evidence build --online checks the registry)',
      });
      continue;
    }
    const url = attestationUrl(p);
    try {
      const response = await lookup.fetch(url);
      if (response.status === 200) {
        const body = (await response.json()) as { attestations?: unknown[] };
        if (Array.isArray(body.attestations) && body.attestations.length > 0) {
          out.push({ ...base, provenance: url });
          continue;
        }
        out.push({
          ...base,
          provenanceNote: `the registry answered with no attestation for ${p.name}@${p.version} (checked ${lookup.date})`,
        });
      } else if (response.status === 404) {
        out.push({
          ...base,
          provenanceNote: `the registry publishes no attestation for ${p.name}@${p.version} (checked ${lookup.date})`,
        });
      } else {
        out.push({
          ...base,
          provenanceNote: `attestation lookup failed: HTTP ${response.status} (checked ${lookup.date})`,
        });
      }
    } catch (error) {
      out.push({
        ...base,
        provenanceNote: `attestation lookup failed: ${(error as Error).message} (checked ${lookup.date})`,
      });
    }
  }
  return out;
}

/** The npm attestations endpoint of a package version (scoped names escape the slash, as npm does). */
export function attestationUrl(p: { name: string; version: string; registry: string }): string {
  return `${p.registry.replace(/\/?$/, '/')}-/npm/v1/attestations/${p.name.replace('/', '%2f')}@${p.version}`;
}

function installedLicense(repoRoot: string, name: string): string | undefined {
  try {
    const manifest = JSON.parse(readFileSync(join(repoRoot, 'node_modules', name, 'package.json'), 'utf8')) as {
      license?: string | { type?: string };
    };
    return typeof manifest.license === 'string' ? manifest.license : manifest.license?.type;
  } catch {
    return undefined;
  }
}
