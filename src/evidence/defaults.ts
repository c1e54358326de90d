// Defaults shared by the evidence builder, the verifier and the CLI (kept free of heavy imports).

/** D-045: "a document older than 30 days is stale" (the verifier's default limit; an option). */
export const DEFAULT_MAX_AGE_DAYS = 30;

/** The npm registry packages resolve from unless the lockfile names another. */
export const DEFAULT_REGISTRY = 'https://registry.npmjs.org/';

/** Where `svckit evidence build` writes by default, and where the site plugin reads the document. */
export const DEFAULT_EVIDENCE_DIR = '.data/evidence';
