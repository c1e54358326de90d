/** The engine's shared types: its target, options, tallies, failures and result, the same for every contract format. */
import type { EventSink } from '../../events.ts';
import type { Target } from '../../targets/target.ts';
import type { EngineCase, Phase } from './cases.ts';
import type { WireRequest } from './client.ts';
import type { SurfaceCoverage } from './coverage.ts';
import type { DocumentCase, DocumentCheck, DocumentSurface } from './documents.ts';
import type { NamedCheck } from './names.ts';
import type { EngineSurface } from '../openapi/contract.ts';
import type { CHAIN_SURFACE, RpcCase } from '../openrpc/contract.ts';

/** A surface of the engine's results: an OpenAPI contract's, or the chain JSON-RPC contract's. */
export type ResultSurface = EngineSurface | typeof CHAIN_SURFACE;

/** Where each surface is served and which Authorization values the engine may send. */
export interface EngineTarget {
  /** Absolute base URL of each surface's contract paths (e.g. `https://host/wallet/api/v1/`). */
  bases: Partial<Record<EngineSurface, URL>>;
  /** Authorization header value per security scheme name (`bearerKey`, `adminToken`...). */
  credentials: Record<string, string>;
  /**
   * Makes a credential of a scheme afresh when the deployment answers it expired (a wallet session lives 15
   * minutes, D-005; a run by URL takes longer): given the expired value, resolves to the scheme's current one
   * (renewed once for every case that held it), or undefined when the value was never the scheme's.
   */
  renew?: Partial<Record<string, (expired: string) => Promise<string | undefined>>>;
  /** The deployment's values of `x-deployment-value` fields (D-185), e.g. `platform-bic`. */
  deploymentValues?: Readonly<Record<string, string>>;
  /** PEM of an extra CA to trust. */
  caCert?: string;
  /** Why the target keeps no state (the mocks): its stateful sequences are skipped with this reason. */
  stateless?: string;
  /** The chain JSON-RPC endpoint (`{base_url}/rpc`, or a bare node, D-192): the chain surface's cases go there. */
  rpc?: URL;
  /** {site_url}: an origin whose TLS group is checked too (`tls_hybrid_group`). */
  site?: URL;
  /** Where the run's writes are recorded to be put back, and whether the target is a deployment (D-235). */
  writes?: WriteScope;
}

/** Options of {@link runEngine}. */
export interface EngineOptions {
  phases: readonly Phase[];
  /** fast-check seed: the same seed, contracts and target give the same cases. */
  seed: number;
  /** Fuzz cases per operation. */
  maxExamples: number;
  /** Surfaces to run (default: every surface the target has a base for, and chain when it has an rpc endpoint). */
  surfaces?: readonly ResultSurface[];
  /** Requests in flight at once (default 16). */
  concurrency?: number;
  /** Directory of the contracts (default: the repository's specs/). */
  specsDir?: string;
  /** Kept failures per surface and check (default 20). */
  maxFailures?: number;
  /** Time limit of one shrink (ms, default 20,000). */
  shrinkMs?: number;
  /** Document surfaces judged in process (`webhooks`, `evidence`; default none, the command runs both). */
  documents?: readonly DocumentSurface[];
  /** The generated checks to tally, by name (default: all); the others judge nothing and are not reported (D-232). */
  checks?: ReadonlySet<string>;
  /** Ends the run early: no further case is sent. */
  signal?: AbortSignal;
  /** Where each judged answer is reported (the run's event stream). */
  events?: EventSink;
  /** The bounds of `response_time` (`checks["generated.response_time"]` of --config). */
  responseTime?: ResponseTimeBounds;
  /** Statuses a QA team expects per check and operation, over the checks' own rules (D-245). */
  expectedStatuses?: ExpectedStatuses;
}

/** Per check, the statuses expected per operation (`METHOD /route`) by a --config file (D-245). */
export type ExpectedStatuses = ReadonlyMap<NamedCheck, Readonly<Record<string, readonly number[]>>>;

/** A failure of a named check, with the (shrunk) case and how the server answered. */
export interface EngineFailure {
  check: NamedCheck | DocumentCheck;
  message: string;
  case: EngineCase | RpcCase | DocumentCase;
  request: WireRequest;
  response: { status: number; headers: Record<string, string>; body: string };
  /** True when fast-check shrank the case to this minimal one. */
  shrunk: boolean;
}

/** Counts of one named check on one surface. */
export interface CheckTally {
  surface: ResultSurface | DocumentSurface;
  check: NamedCheck | DocumentCheck;
  passed: number;
  failed: number;
  /** Cases the check could not judge (e.g. no credential for a secured operation); never passes. */
  skipped: number;
  skipReasons: string[];
  failures: EngineFailure[];
}

/** Wall time and requests of one phase on one surface. */
export interface PhaseTiming {
  surface: ResultSurface | DocumentSurface;
  phase: Phase;
  requests: number;
  ms: number;
}

/** Everything a run produced. */
export interface EngineResult {
  seed: number;
  phases: Phase[];
  maxExamples: number;
  requests: number;
  durationMs: number;
  timings: PhaseTiming[];
  tallies: CheckTally[];
  coverage: Record<string, SurfaceCoverage>;
}

/** What the engine records its writes against. */
export interface WriteScope {
  /** The harness target: its kind says whether it is a deployment (D-237); its registry takes the undos. */
  target: Target;
  /** Lower-case addresses on the chain sender allow-list when the run started (D-239). */
  senders: ReadonlySet<string>;
}

/** The bounds of `checks["generated.response_time"]` in a --config file. */
export interface ResponseTimeBounds {
  p95Ms?: number;
  p99Ms?: number;
  /** Per operation (`POST /transfers`, `eth_call`), over the run-wide bounds. */
  operations?: Record<string, { p95Ms?: number; p99Ms?: number }>;
}
