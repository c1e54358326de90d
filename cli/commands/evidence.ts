/** `svckit evidence build|verify`: writes the post-quantum evidence document from real runs, and checks one. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command, Option } from 'commander';
import { REPO_ROOT, repoPath } from '../../src/paths.ts';
import { DEFAULT_EVIDENCE_DIR, DEFAULT_MAX_AGE_DAYS, DEFAULT_REGISTRY } from '../../src/evidence/defaults.ts';

type BuildOptions = {
  out: string;
  vectors: string;
  acvpResults?: string;
  wycheproofResults?: string;
  interopResults?: string;
  protocolResults?: string;
  largeData?: boolean;
  online?: boolean;
  registry: string;
  vendorName: string;
  vendorUrl: string;
  dependencyPolicy: string;
  siteUrl?: string;
  contact?: string;
};

/** Builds the `evidence` command with its `build` and `verify` sub-commands. */
export function evidenceCommand(): Command {
  const evidence = new Command('evidence').description(
    'Build the post-quantum evidence document (/.well-known/pqc-evidence.json) from real runs, or verify one.',
  );
  evidence.addCommand(buildCommand());
  evidence.addCommand(verifyCommand());
  return evidence;
}

function buildCommand(): Command {
  return new Command('build')
    .description(
      'Run (or read the results of) svckit acvp, wycheproof and interop, generate the CycloneDX SBOM and CBOM, list the lockfile packages, ' +
        'and write pqc-evidence.json. Offline by default: npm audit and the provenance attestations need --online, and the document says ' +
        'when they were not checked.',
    )
    .option('--out <dir>', 'folder for the document, SBOM, CBOM and run results', DEFAULT_EVIDENCE_DIR)
    .option('--vectors <dir>', 'vectors directory for the runs made now', repoPath('vectors'))
    .option('--acvp-results <file>', 'use this acvp-results.json instead of running the ACVP vectors now')
    .option('--wycheproof-results <file>', 'use this wycheproof-results.json instead of running Wycheproof now')
    .option('--interop-results <file>', 'use this interop-results.json instead of running the matrix now')
    .option(
      '--protocol-results <file>',
      'the JSON report of "svckit conformance --report json" for conformance.protocol',
    )
    .option('--large-data', 'run the SHA-3 large data tests in the ACVP run made now')
    .option('--online', 'query the registry: npm audit and the npm provenance attestations')
    .option('--registry <url>', 'registry for packages the lockfile does not resolve explicitly', DEFAULT_REGISTRY)
    .option('--vendor-name <name>', 'vendor.name', 'svckit')
    .option('--vendor-url <url>', 'vendor.url', 'https://svckit.dev')
    .option(
      '--dependency-policy <url>',
      'supplyChain.dependencyPolicy (a URI)',
      'https://svckit.dev/docs/dependency-policy',
    )
    .option('--site-url <url>', '{site_url}, to give the SBOM and CBOM their URLs beside the document')
    .option('--contact <text>', 'security contact')
    .action(async (options: BuildOptions) => {
      try {
        // Loaded on use, so other commands start without the runners and the SBOM tooling.
        const { buildEvidence } = await import('../../conformance/evidence/build.ts');
        const { written } = await buildEvidence({
          repoRoot: REPO_ROOT,
          outDir: resolve(options.out),
          vectorsDir: resolve(options.vectors),
          acvpResults: options.acvpResults,
          wycheproofResults: options.wycheproofResults,
          interopResults: options.interopResults,
          protocolResults: options.protocolResults,
          largeData: options.largeData ?? false,
          online: options.online ?? false,
          registry: options.registry,
          vendor: { name: options.vendorName, url: options.vendorUrl },
          dependencyPolicy: options.dependencyPolicy,
          siteUrl: options.siteUrl,
          contact: options.contact,
          log: (line) => console.error(line),
        });
        for (const file of written) console.log(`written: ${file}`);
      } catch (error) {
        console.error(`svckit evidence build: ${(error as Error).message}`);
        process.exitCode = 1;
      }
    });
}

function verifyCommand(): Command {
  return new Command('verify')
    .description(
      'Check an evidence document (file or URL) against specs/evidence.schema.json and the rules: counts add up, a skipped case is not a pass, ' +
        'provenance and provenanceNote never together, and a stale "generated" makes it unverified (D-045). Exits 1 on any violation, naming each.',
    )
    .argument('<source>', 'a file path or an http(s) URL')
    .addOption(
      new Option('--max-age-days <days>', 'days after which "generated" is stale (D-045)')
        .default(DEFAULT_MAX_AGE_DAYS)
        .argParser(positiveNumber),
    )
    .option('--ca-cert <file>', 'PEM file of an extra CA to trust for an https URL')
    .option('--json', 'print the result as JSON')
    .action(async (source: string, options: { maxAgeDays: number; caCert?: string; json?: boolean }) => {
      const { loadEvidenceDocument } = await import('../../conformance/evidence/load.ts');
      const { formatVerifyResult, verifyEvidence } = await import('../../src/evidence/verify.ts');
      let document: unknown;
      try {
        document = await loadEvidenceDocument(source, {
          caCert: options.caCert ? readFileSync(options.caCert, 'utf8') : undefined,
        });
      } catch (error) {
        console.error(`svckit evidence verify: ${(error as Error).message}`);
        process.exit(2);
      }
      const result = verifyEvidence(document, { maxAgeDays: options.maxAgeDays });
      console.log(options.json ? JSON.stringify(result, null, 2) : formatVerifyResult(source, result));
      process.exitCode = result.status === 'verified' ? 0 : 1;
    });
}

function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`"--max-age-days" expected a positive number, got "${value}"`);
  return n;
}
