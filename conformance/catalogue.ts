// The check catalogue. House rule 7: "Each conformance check has a stable id ... It records its
// source (a quote from the interface specification, or a decision id), a severity (MUST for the
// spec, SHOULD for a decision) and the surface. Registering the same id twice throws."
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { repoPath } from '../src/paths.ts';
import type { Clock } from './clock.ts';
import { CAPABILITIES, type Capability, type Target } from './targets/target.ts';

/** A check id: dotted lower-case segments, at least two (e.g. `institutional.auth.missing_credentials`). */
export const CHECK_ID_PATTERN = /^[a-z0-9_]+(\.[a-z0-9_]+)+$/;

/**
 * The surfaces a check can belong to: the spec's six (A to F), the contracts themselves, and `all` for a check
 * generated from the contracts that judges the answers of every surface the run reaches (D-232).
 */
export const SURFACES = ['A', 'B', 'C', 'D', 'E', 'F', 'specs', 'all'] as const;

/** One surface. */
export type Surface = (typeof SURFACES)[number];

/** The name of each surface, which is also the first segment of its checks' ids (`chain.batch.empty`). */
export const SURFACE_NAMES = {
  A: 'institutional',
  B: 'webhooks',
  C: 'chain',
  D: 'explorer',
  E: 'wallet',
  F: 'evidence',
  specs: 'specs',
  all: 'generated',
} as const satisfies Record<Surface, string>;

/** First id segments of checks that span surfaces: the TLS of every origin, and the administrator API (D-048). */
export const CROSS_SURFACE_PREFIXES = ['transport', 'admin'] as const;

/** Every first segment a check id may have. */
export const CHECK_ID_PREFIXES: readonly string[] = [...Object.values(SURFACE_NAMES), ...CROSS_SURFACE_PREFIXES];

/** MUST for a requirement quoted from the spec, SHOULD for one fixed by a decision. */
export type Severity = 'MUST' | 'SHOULD';

/** A decision id from specs/DECISIONS.md, e.g. `D-045`. */
export type DecisionId = `D-${string}`;

/** Where a check's requirement comes from: a verbatim spec quote, or a decision. */
export type CheckSource = { quote: string } | { decision: DecisionId };

/** The HTTP (or JSON-RPC over HTTP) request a check made, for reports. */
export interface CheckRequest {
  /** HTTP method. */
  method: string;
  /** Absolute URL. */
  url: string;
  /** Request headers (reports redact credentials). */
  headers?: Record<string, string>;
  /** Request body, as sent or as JSON. */
  body?: unknown;
}

/** Fields a check may add to explain its verdict. */
interface VerdictDetail {
  /** The request made, if any. */
  request?: CheckRequest;
  /** What the spec requires. */
  expected?: unknown;
  /** What the target did. */
  actual?: unknown;
}

/** What a check's run() returns; the runner adds the duration. A reason is required unless passed. */
export type CheckVerdict =
  | (VerdictDetail & { status: 'passed'; reason?: string })
  | (VerdictDetail & { status: 'failed' | 'skipped'; reason: string });

/** A verdict plus its duration. A skipped check is never a pass. */
export type CheckOutcome = CheckVerdict & { durationMs: number };

/** What a check receives when it runs. */
export interface CheckContext {
  /** The target under test. */
  target: Target;
  /** The injectable clock (house rule 6). */
  clock: Clock;
  /** Directory holding the contract files (specs/), ending with a slash. */
  specsDir: URL;
}

/** What every registered check states, hand-written or generated (D-232). */
interface CheckEntry {
  /** Stable dotted id, matching CHECK_ID_PATTERN. */
  id: string;
  /** One-line human title. */
  title: string;
  /** The surface it exercises. */
  surface: Surface;
  /** The spec quote or decision it enforces. */
  source: CheckSource;
  /** MUST for a spec quote, SHOULD for a decision (enforced at registration). */
  severity: Severity;
  /** Target capabilities it needs; a target lacking one gets the check skipped. */
  needs: readonly Capability[];
  /** Its deadline in ms when it needs longer than the runner's default (D-181); `--check-timeout` overrides it. */
  deadlineMs?: number;
}

/** A hand-written check: one scenario against the target, judged as a whole. */
export interface Check extends CheckEntry {
  origin?: 'hand-written';
  /** Runs the check and judges what it saw. Throwing counts as a failure. */
  run(ctx: CheckContext): Promise<CheckVerdict>;
}

/** The phases of the generated cases (examples, coverage, fuzz, stateful). */
export type GeneratedPhase = 'examples' | 'coverage' | 'fuzz' | 'stateful';

/**
 * A check generated from the contracts: the engine derives cases phase by phase and the check judges each
 * answer (its judge lives with the engine, which applies it to every case of its phases).
 */
export interface GeneratedCheck extends CheckEntry {
  origin: 'generated';
  /** The phases whose cases it judges; `--only` of this check alone runs just these. */
  phases: readonly GeneratedPhase[];
}

/** Any registered check. */
export type RegisteredCheck = Check | GeneratedCheck;

/** True for a check generated from the contracts. */
export const isGenerated = (check: RegisteredCheck): check is GeneratedCheck => check.origin === 'generated';

/** Where the catalogue finds the texts it validates sources against. */
export interface CatalogueOptions {
  /**
   * An interface specification to match quotes against. By default quotes are matched against
   * conformance/spec-quotes.json, the committed quotes (D-133): nothing at run time reads the
   * specification, which is not part of the kit.
   */
  specPath?: string | URL;
  /** The decision register (default: specs/DECISIONS.md). */
  decisionsPath?: string | URL;
}

/** Thrown when a check cannot be registered. */
export class CatalogueError extends Error {
  /** Stable machine code for the failure. */
  readonly code: string;
  /** Builds the error with its stable code. */
  constructor(code: string, message: string) {
    super(message);
    this.name = 'CatalogueError';
    this.code = code;
  }
}

/** conformance/spec-quotes.json: the verbatim interface-specification quotes the checks cite (D-133). */
export const SPEC_QUOTES_URL = pathToFileURL(repoPath('conformance/spec-quotes.json'));

/** The committed quotes, whitespace-normalised. */
export function readSpecQuotes(): string[] {
  const data = JSON.parse(readFileSync(SPEC_QUOTES_URL, 'utf8')) as { quotes: string[] };
  return data.quotes.map(normaliseWhitespace);
}

/** Collapses runs of whitespace, so quotes survive line wrapping and table padding. */
export function normaliseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The set of checks, keyed by id, each validated on registration. */
export class Catalogue {
  readonly #checks = new Map<string, RegisteredCheck>();
  readonly #specPath: string | URL;
  readonly #decisionsPath: string | URL;
  #specText: string | undefined;
  #decisionIds: Set<string> | undefined;

  /** Creates an empty catalogue; the spec and decision files are read on first use. */
  constructor(options: CatalogueOptions = {}) {
    this.#specPath = options.specPath ?? SPEC_QUOTES_URL;
    this.#decisionsPath = options.decisionsPath ?? repoPath('specs/DECISIONS.md');
  }

  /** Adds a check; throws CatalogueError on a duplicate id, bad id or id prefix, unknown source or wrong severity. */
  register(check: RegisteredCheck): this {
    const { id } = check;
    if (typeof id !== 'string' || !CHECK_ID_PATTERN.test(id)) {
      throw new CatalogueError(
        'bad_id',
        `check id expected dotted lower-case segments matching ${CHECK_ID_PATTERN}, got ${JSON.stringify(id)}`,
      );
    }
    if (this.#checks.has(id)) {
      throw new CatalogueError('duplicate_id', `check id "${id}" is already registered`);
    }
    if (typeof check.title !== 'string' || check.title.trim() === '') {
      throw new CatalogueError('bad_title', `check "${id}": title expected a non-empty string`);
    }
    if (!(SURFACES as readonly string[]).includes(check.surface)) {
      throw new CatalogueError(
        'bad_surface',
        `check "${id}": surface expected one of ${SURFACES.join(', ')}, got ${JSON.stringify(check.surface)}`,
      );
    }
    const prefix = id.slice(0, id.indexOf('.'));
    if (prefix !== SURFACE_NAMES[check.surface] && !(CROSS_SURFACE_PREFIXES as readonly string[]).includes(prefix)) {
      const allowed = [SURFACE_NAMES[check.surface], ...CROSS_SURFACE_PREFIXES].map((p) => `${p}.`).join(', ');
      throw new CatalogueError(
        'bad_prefix',
        `check "${id}": id expected to start with one of ${allowed} (surface ${check.surface}), got "${prefix}."`,
      );
    }
    for (const need of check.needs) {
      if (!(CAPABILITIES as readonly string[]).includes(need)) {
        throw new CatalogueError(
          'bad_need',
          `check "${id}": needs expected capabilities among ${CAPABILITIES.join(', ')}, got ${JSON.stringify(need)}`,
        );
      }
    }
    this.#checkSource(check);
    this.#checks.set(id, check);
    return this;
  }

  /** Every check, hand-written and generated, in registration order. */
  list(): RegisteredCheck[] {
    return [...this.#checks.values()];
  }

  /** The hand-written checks, in registration order. */
  handWritten(): Check[] {
    return this.list().filter((c): c is Check => !isGenerated(c));
  }

  /** The check with this id, if registered. */
  get(id: string): RegisteredCheck | undefined {
    return this.#checks.get(id);
  }

  /** Validates the source and that the severity follows from it (MUST: spec, SHOULD: decision). */
  #checkSource(check: RegisteredCheck): void {
    const { id, source } = check;
    const isQuote = typeof source === 'object' && source !== null && 'quote' in source;
    const isDecision = typeof source === 'object' && source !== null && 'decision' in source;
    if (isQuote === isDecision) {
      throw new CatalogueError('bad_source', `check "${id}": source expected exactly one of {quote} or {decision}`);
    }
    const expected: Severity = isQuote ? 'MUST' : 'SHOULD';
    if (check.severity !== expected) {
      throw new CatalogueError(
        'severity_mismatch',
        `check "${id}": severity expected ${expected} for a ${isQuote ? 'spec quote' : 'decision'}, got ${JSON.stringify(check.severity)}`,
      );
    }
    if ('quote' in source) {
      const quote = normaliseWhitespace(String(source.quote));
      if (quote === '' || !this.#spec().includes(quote)) {
        const where =
          this.#specPath === SPEC_QUOTES_URL
            ? 'the committed spec quotes (conformance/spec-quotes.json; add it with `npx tsx scripts/spec-quotes.ts --write`)'
            : `the interface specification (${String(this.#specPath)})`;
        throw new CatalogueError(
          'unknown_quote',
          `check "${id}": quote not found in ${where}: ${JSON.stringify(source.quote)}`,
        );
      }
    } else if (!this.#decisions().has(source.decision)) {
      throw new CatalogueError(
        'unknown_decision',
        `check "${id}": decision ${JSON.stringify(source.decision)} not found in ${String(this.#decisionsPath)}`,
      );
    }
  }

  #spec(): string {
    // The committed quotes are joined with a separator no quote contains, so a quote matches one entry
    // (or part of one), never text spanning two.
    this.#specText ??=
      this.#specPath === SPEC_QUOTES_URL
        ? readSpecQuotes().join('\u0000')
        : normaliseWhitespace(readFileSync(this.#specPath, 'utf8'));
    return this.#specText;
  }

  #decisions(): Set<string> {
    // Entries are headed "### D-0nn Title" in specs/DECISIONS.md.
    this.#decisionIds ??= new Set(
      [...readFileSync(this.#decisionsPath, 'utf8').matchAll(/^###\s+(D-\d{3})\b/gm)].map((m) => m[1] as string),
    );
    return this.#decisionIds;
  }
}
