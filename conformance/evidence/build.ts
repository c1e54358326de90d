// `svckit evidence build`: writes the evidence document from real runs only - the ACVP, Wycheproof and
// interoperability results (run now, or read from results files those commands wrote), the protocol
// conformance report when one is given, the CycloneDX SBOM, the npm audit and the lockfile packages.
// No count is typed by hand; anything not measured (offline audit, attestations) says so instead.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { PqcEvidenceDocument } from '@svckit/sdk/evidence';
import { cryptoBackends } from '@svckit/sdk/crypto';
import { acvpResultsFile, type AcvpResultsFile, writeAcvpOutputs } from '../crypto/acvp/output.ts';
import { runAcvp } from '../crypto/acvp/run.ts';
import { IMPLEMENTATION_IDS } from '../crypto/implementations.ts';
import { runInterop, writeInteropOutputs, type InteropResultsFile } from '../crypto/interop/run.ts';
import {
  writeWycheproofOutputs,
  wycheproofResultsFile,
  type WycheproofResultsFile,
} from '../crypto/wycheproof/output.ts';
import { runWycheproof } from '../crypto/wycheproof/run.ts';
import { buildCbom } from './cbom.ts';
import {
  hybridConstructions,
  POST_QUANTUM_ALGORITHMS,
  runtimeOffersHybridTls,
  summariseSkipReasons,
  SYMMETRIC_ALGORITHMS,
} from './claims.ts';
import {
  readAcvpResults,
  readInteropResults,
  readProtocolReport,
  readWycheproofResults,
  type ProtocolSummary,
} from './results-files.ts';
import {
  exactPins,
  generateSbom,
  lockedProductionPackages,
  packagesWithProvenance,
  runNpmAudit,
  type AuditResult,
  type FetchLike,
} from './supply-chain.ts';
import { formatVerifyResult, verifyEvidence } from '../../src/evidence/verify.ts';
import { dateOf, systemClock, type Clock } from '@svckit/sdk/clock';

/** The file name of the document (served at /.well-known/pqc-evidence.json). */
export const EVIDENCE_FILE = 'pqc-evidence.json';

/** Options of buildEvidence. */
export interface BuildEvidenceOptions {
  /** Repository root (package.json, package-lock.json). */
  repoRoot: string;
  /** Where to write the document, SBOM, CBOM and any runs made now. */
  outDir: string;
  /** Vector directory for runs made now. */
  vectorsDir: string;
  /** Read ACVP results from this file instead of running now. */
  acvpResults?: string;
  /** Read Wycheproof results from this file instead of running now. */
  wycheproofResults?: string;
  /** Read interop results from this file instead of running now. */
  interopResults?: string;
  /** The JSON report of `svckit conformance --report json`, for conformance.protocol. */
  protocolResults?: string;
  /** Run the SHA-3 large data tests in the ACVP run made now. */
  largeData?: boolean;
  /** Query the registry: npm audit and the provenance attestations (the only online steps). */
  online: boolean;
  /** Registry for packages the lockfile does not resolve explicitly. */
  registry: string;
  /** The vendor publishing the document. */
  vendor: { name: string; url: string };
  /** URI of the dependency policy. */
  dependencyPolicy: string;
  /** {site_url}, to give the SBOM and CBOM their URLs (they are served beside the document). */
  siteUrl?: string;
  /** Optional security contact. */
  contact?: string;
  /** The clock that dates the document (house rule 6). Default the system clock. */
  clock?: Clock;
  /** fetch for the attestation lookups (tests inject one). */
  fetch?: FetchLike;
  /** The dependency audit of the online mode (default: npm audit; tests inject one). */
  audit?: (repoRoot: string, now: Date) => Promise<AuditResult>;
  /** Progress lines. */
  log?: (line: string) => void;
}

/** What buildEvidence wrote. */
export interface BuildEvidenceResult {
  /** The document. */
  document: PqcEvidenceDocument;
  /** Every file written. */
  written: string[];
}

/** Runs or reads every input, writes SBOM, CBOM and the document, and verifies the document before writing it. */
export async function buildEvidence(options: BuildEvidenceOptions): Promise<BuildEvidenceResult> {
  const clock = options.clock ?? systemClock;
  const log = options.log ?? (() => {});
  const written: string[] = [];
  mkdirSync(options.outDir, { recursive: true });
  // Paths in reproduce commands are relative to the repository root when inside it (the default
  // vectors/ among them), absolute otherwise, so each command runs from the repository root.
  const rel = (path: string) => {
    const r = relative(options.repoRoot, path);
    return r === '' ? '.' : !r.startsWith('..') ? r : path;
  };
  const vectorsArg = rel(options.vectorsDir);

  let acvp: AcvpResultsFile;
  if (options.acvpResults) acvp = readAcvpResults(options.acvpResults);
  else {
    log('running the ACVP vectors (OpenSSL and noble)...');
    const reproduce = `npx svckit acvp --vectors ${vectorsArg} --impl all --out ${rel(join(options.outDir, 'acvp'))}${options.largeData ? ' --large-data' : ''}`;
    const run = runAcvp({
      vectorsDir: options.vectorsDir,
      implementations: IMPLEMENTATION_IDS,
      largeData: options.largeData ?? false,
    });
    written.push(...(await writeAcvpOutputs(run, join(options.outDir, 'acvp'), reproduce)));
    acvp = acvpResultsFile(run, reproduce);
  }
  let wycheproof: WycheproofResultsFile;
  if (options.wycheproofResults) wycheproof = readWycheproofResults(options.wycheproofResults);
  else {
    log('running the Wycheproof vectors (OpenSSL and noble)...');
    const reproduce = `npx svckit wycheproof --vectors ${vectorsArg} --impl all --out ${rel(join(options.outDir, 'wycheproof'))}`;
    const run = runWycheproof({ vectorsDir: options.vectorsDir, implementations: IMPLEMENTATION_IDS });
    written.push(await writeWycheproofOutputs(run, join(options.outDir, 'wycheproof'), reproduce));
    wycheproof = wycheproofResultsFile(run, reproduce);
  }
  let interop: InteropResultsFile;
  if (options.interopResults) interop = readInteropResults(options.interopResults);
  else {
    log('running the interoperability matrix (OpenSSL, noble, liboqs)...');
    interop = await runInterop(`npx svckit interop --out ${rel(join(options.outDir, 'interop'))}`);
    written.push(await writeInteropOutputs(interop, join(options.outDir, 'interop')));
  }
  const protocol = options.protocolResults ? readProtocolReport(options.protocolResults) : undefined;

  log('generating the CycloneDX SBOM from package-lock.json...');
  const sbom = await generateSbom(options.repoRoot, join(options.outDir, 'sbom.cdx.json'));
  written.push(sbom.path);
  const generatedAt = dateOf(clock);
  const date = generatedAt.toISOString().slice(0, 10);
  let audit: AuditResult;
  if (options.online) {
    log('running npm audit (online)...');
    audit = await (options.audit ?? runNpmAudit)(options.repoRoot, generatedAt);
  } else {
    audit = {
      tool: 'npm audit',
      performed: false,
      note: 'not run: the evidence was built offline; svckit evidence build --online runs it against the registry',
    };
  }
  if (options.online) log('looking up npm provenance attestations (online)...');
  const fetchImpl: FetchLike = options.fetch ?? ((url) => fetch(url, { signal: AbortSignal.timeout(20_000) }));
  const packages = await packagesWithProvenance(
    lockedProductionPackages(options.repoRoot, options.registry),
    options.online ? { fetch: fetchImpl, date } : null,
  );

  const manifest = JSON.parse(readFileSync(join(options.repoRoot, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    license: string;
  };
  const openssl = process.versions.openssl ?? 'unknown';
  const hybrid = hybridConstructions(openssl, runtimeOffersHybridTls());
  const pins = exactPins(options.repoRoot);
  const siteFile = (file: string) =>
    options.siteUrl ? { url: new URL(`/pqc-evidence/${file}`, options.siteUrl).href } : {};

  const cbomPath = join(options.outDir, 'cbom.cdx.json');
  writeFileSync(
    cbomPath,
    `${JSON.stringify(buildCbom({ name: manifest.name, version: manifest.version }, hybrid, generatedAt.toISOString()), null, 2)}\n`,
  );
  written.push(cbomPath);

  const document: PqcEvidenceDocument = {
    $schema: 'https://svckit.dev/schemas/pqc-evidence.schema.json',
    generated: generatedAt.toISOString(),
    vendor: options.vendor,
    product: {
      name: manifest.name,
      license: manifest.license,
      version: manifest.version,
      modality: 'software kit and reference server',
      languages: ['TypeScript'],
      runtime: { node: process.versions.node, openssl },
    },
    algorithms: [
      POST_QUANTUM_ALGORITHMS[0] as PqcEvidenceDocument['algorithms'][0],
      ...POST_QUANTUM_ALGORITHMS.slice(1),
    ],
    symmetricAlgorithms: SYMMETRIC_ALGORITHMS,
    nistSecurityCategories: [...new Set(POST_QUANTUM_ALGORITHMS.map((a) => a.nistSecurityCategory as number))],
    hybrid,
    implementation: {
      backends: cryptoBackends().map((b) => `${b.name} ${b.version}`),
      note: 'node:crypto (OpenSSL) first; @noble/post-quantum where OpenSSL lacks the interface (rnd, deterministic, internal interface, external mu, pre-hash).',
    },
    conformance: {
      acvp: {
        source: acvpSource(acvp),
        total: acvp.summary.total.total,
        passed: acvp.summary.total.passed,
        failed: acvp.summary.total.failed,
        skipped: acvp.summary.total.skipped,
        ...(acvp.summary.total.skipped > 0 ? { skippedReason: summariseSkipReasons(acvp.summary.skipReasons) } : {}),
        reproduce: acvp.reproduce,
      },
      acvpByImplementation: acvp.summary.byImplementation,
      wycheproof: {
        source: `C2SP Wycheproof testvectors_v1 (${wycheproof.vectors.files.map((f) => f.path.split(/[\\/]/).pop()).join(', ')}); each case run once per implementation (${wycheproof.implementations.map((i) => i.id).join(', ')}); valid must be accepted, invalid rejected`,
        ...wycheproof.summary.total,
        ...(wycheproof.summary.total.skipped > 0
          ? { skippedReason: summariseSkipReasons(wycheproof.summary.skipReasons) }
          : {}),
        reproduce: wycheproof.reproduce,
        byImplementation: wycheproof.summary.byImplementation,
      },
      interoperability: {
        checks: interop.summary.checks,
        failed: interop.summary.failed,
        notApplicable: interop.summary.notApplicable,
        rows: interop.summary.rows,
        bothDirections: interop.summary.bothDirections,
        negativeControls: interop.summary.negativeControls > 0,
        peers: interop.peers.map(({ name, version, language }) => ({ name, version, language })),
        reproduce: interop.reproduce,
      },
      ...protocolSection(protocol),
    },
    supplyChain: {
      provenance: `${manifest.name} is not published to a registry, so no provenance statement exists for it; its dependencies' npm attestations are listed per package`,
      sbom: { ...sbom.summary, ...siteFile('sbom.cdx.json') },
      cbom: { format: 'CycloneDX', specVersion: '1.6', file: 'cbom.cdx.json', ...siteFile('cbom.cdx.json') },
      reproducibleBuilds: { verified: false, note: 'no independent rebuild has been compared' },
      dependencyPolicy: options.dependencyPolicy,
      dependencyPolicySummary: `few, pinned, well-kept dependencies, each with a reason; ${pins.exact} of ${pins.total} dependencies in package.json are pinned to an exact version; package-lock.json is committed and installs use npm ci; cryptography comes from node:crypto first and @noble/* where OpenSSL lacks the interface`,
      dependencyAudit: audit,
    },
    packages: [packages[0] as PqcEvidenceDocument['packages'][0], ...packages.slice(1)],
    productionEvidence: { note: 'reference implementation; no production deployment is claimed' },
    ...(options.contact ? { contact: options.contact } : {}),
  };

  const check = verifyEvidence(document, { now: generatedAt });
  if (check.status !== 'verified')
    throw new Error(
      `the built document does not verify, so it was not written:\n${formatVerifyResult('pqc-evidence.json', check)}`,
    );
  const path = join(options.outDir, EVIDENCE_FILE);
  // Written beside and renamed into place, so a site serving the folder never reads half a document.
  writeFileSync(`${path}.partial`, `${JSON.stringify(document, null, 2)}\n`);
  renameSync(`${path}.partial`, path);
  written.push(path);
  return { document, written };
}

function acvpSource(acvp: AcvpResultsFile): string {
  const sets = acvp.vectors.sets.map((s) => s.set).join(', ');
  const files = acvp.vectors.sets.reduce((n, s) => n + s.files.length, 0);
  const sums = acvp.vectors.sumsFile
    ? `${acvp.vectors.filesMatchingSums} of ${files} files match SHA256SUMS`
    : 'no SHA256SUMS to check the files against';
  const impls = acvp.implementations
    .map(
      (i) =>
        `${i.id} (${Object.entries(i.versions)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')})`,
    )
    .join('; ');
  return `NIST ACVP-Server gen-val JSON vectors: ${sets}; ${sums}; each case run once per implementation: ${impls}`;
}

// D-045: conformance.protocol holds {checks, passed, failed, skipped, reproduce} from the harness.
// Without a report it is left out and a note says so, rather than inventing counts.
function protocolSection(protocol: ProtocolSummary | undefined): Record<string, unknown> {
  if (!protocol) {
    return {
      protocolNote:
        'not included: no API, webhook and JSON-RPC conformance report was given (svckit evidence build --protocol-results reports/conformance.json)',
    };
  }
  const { checks, passed, failed, skipped, reproduce, generatedAt } = protocol;
  return { protocol: { checks, passed, failed, skipped, reproduce, generated: generatedAt } };
}
