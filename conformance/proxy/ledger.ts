/**
 * What the proxy keeps of the traffic it judged (D-249): per surface and generated check the counts and the
 * first failures (the engine's tallies), contract coverage (which operations and statuses real traffic
 * exercised), one JSON line per violation and per client mistake, and the run report built from them with the
 * same builder and writers as `svckit conformance`.
 */
import type { GeneratedCheck } from '../catalogue.ts';
import { tlsHybridGroup } from '../engine/core/checks.ts';
import type { SurfaceCoverage } from '../engine/core/coverage.ts';
import { emptyCoverage, recordCoverage } from '../engine/core/coverage.ts';
import type { NamedCheck } from '../engine/core/names.ts';
import { GENERATED_CHECKS, generatedName } from '../engine/core/registry.ts';
import { engineFailure } from '../engine/core/tallies.ts';
import type { CheckTally, EngineResult } from '../engine/core/types.ts';
import type { EngineCase } from '../engine/core/cases.ts';
import type { Contract, Operation } from '../engine/openapi/contract.ts';
import type { RpcCase, RpcContract } from '../engine/openrpc/contract.ts';
import { emptyRpcCoverage, recordRpcCoverage } from '../engine/openrpc/run.ts';
import { resultOf } from '../engine/run-generated.ts';
import { SECRET_FIELD } from '../report/format.ts';
import type { CheckResult } from '../runner.ts';
import type { Judgement, ProxiedExchange } from './exchange.ts';
import { isDocumented, OPENAPI_PROXY_CHECKS } from './judge-openapi.ts';
import { RPC_PROXY_CHECKS } from './judge-rpc.ts';

/** Every generated check the proxy judges traffic by. */
export const PROXY_CHECKS: readonly NamedCheck[] = [
  ...new Set<NamedCheck>([...OPENAPI_PROXY_CHECKS, ...RPC_PROXY_CHECKS, 'security_headers', 'tls_hybrid_group']),
];

/** Failures kept per surface and check, as the engine keeps them (its default). */
const MAX_FAILURES = 20;

/** An svc_ API key or svcadm_ admin token (D-039) inside a text. */
const TOKEN = /\bsvc(adm)?_[A-Za-z0-9_-]{8,}/g;

/**
 * A line's fields with secrets taken out (stderr is a log): a value under a secret field's name, and any API key
 * or admin token in a message or value.
 */
function redactLine(line: Record<string, unknown>): string {
  const pointer = String(line.pointer ?? '');
  const out: Record<string, unknown> = { ...line };
  if (typeof out.value === 'string')
    out.value = pointer.split('/').some((segment) => SECRET_FIELD.test(segment))
      ? '"[redacted]"'
      : out.value.replace(TOKEN, 'svc_[redacted]');
  if (typeof out.message === 'string') out.message = out.message.replace(TOKEN, 'svc_[redacted]');
  return JSON.stringify(out);
}

/** The tallies, coverage and lines of one proxy run. */
export class ProxyLedger {
  readonly tallies = new Map<string, CheckTally>();
  readonly coverage: Record<string, SurfaceCoverage> = {};
  /** Exchanges forwarded, violations and client mistakes reported, answers not judged. */
  readonly counts = { exchanges: 0, violations: 0, clientMistakes: 0, notJudged: 0 };
  readonly startedAt = Date.now();

  /** `line` receives each JSON line (stderr in the command). */
  constructor(private readonly line: (text: string) => void) {}

  /** Opens the tallies and coverage of an OpenAPI surface or the chain. */
  open(surface: string, contract?: Contract | RpcContract): void {
    for (const check of PROXY_CHECKS) {
      const key = `${surface}:${check}`;
      if (!this.tallies.has(key))
        this.tallies.set(key, {
          surface: surface as CheckTally['surface'],
          check,
          passed: 0,
          failed: 0,
          skipped: 0,
          skipReasons: [],
          failures: [],
        });
    }
    if (contract && !(surface in this.coverage))
      this.coverage[surface] = 'methods' in contract ? emptyRpcCoverage(contract) : emptyCoverage(contract);
  }

  /** The tally of `check` on `surface` (opened on first use). */
  tally(surface: string, check: NamedCheck): CheckTally {
    const key = `${surface}:${check}`;
    const found = this.tallies.get(key);
    if (found) return found;
    this.open(surface);
    return this.tallies.get(key) as CheckTally;
  }

  /** Records one exchange's judgements; writes a line per violation and mistake; returns the violations. */
  record(exchange: ProxiedExchange, judgements: readonly Judgement[]): number {
    let violations = 0;
    for (const j of judgements) {
      for (const f of j.client) {
        this.counts.clientMistakes += 1;
        this.line(
          redactLine({
            side: 'client',
            n: exchange.n,
            operation: `${j.surface} ${f.operation}`,
            pointer: f.pointer,
            message: f.message,
          }),
        );
      }
      if (j.notJudged) {
        this.counts.notJudged += 1;
        this.line(
          redactLine({
            side: 'proxy',
            n: exchange.n,
            operation: `${j.surface} ${j.operation}`,
            notJudged: j.notJudged,
          }),
        );
        continue;
      }
      for (const v of j.verdicts) {
        const tally = this.tally(j.surface, v.check);
        if (v.ok) {
          tally.passed += 1;
          continue;
        }
        tally.failed += 1;
        violations += 1;
        if (tally.failures.length < MAX_FAILURES)
          tally.failures.push(
            engineFailure(v.check, v.message ?? '', j.case, exchange.request, exchange.response, false),
          );
        this.line(
          redactLine({
            check: `generated.${v.check}`,
            n: exchange.n,
            operation: `${j.surface} ${j.operation}`,
            status: exchange.response.status,
            pointer: v.pointer,
            ...(v.value !== undefined ? { value: v.value } : {}),
            message: v.message,
          }),
        );
      }
    }
    this.counts.exchanges += 1;
    this.counts.violations += violations;
    return violations;
  }

  /**
   * `tls_hybrid_group` on each upstream origin, with the catalogue's own handshake (spec: "hybrid post-quantum TLS
   * (X25519MLKEM768)"); a plain-http loopback upstream is skipped with the reason, never passed.
   */
  async judgeTls(origins: readonly { url: URL; surface: string }[], caCert: string | undefined): Promise<void> {
    for (const { surface } of origins) this.open(surface);
    const before = new Map([...this.tallies].map(([k, t]) => [k, t.failures.length]));
    await tlsHybridGroup(
      origins.map((o) => ({ url: o.url, surface: o.surface as CheckTally['surface'] })),
      caCert,
      this.tallies,
    );
    for (const { surface } of origins) {
      const t = this.tally(surface, 'tls_hybrid_group');
      for (const f of t.failures.slice(before.get(`${surface}:tls_hybrid_group`) ?? 0)) {
        this.counts.violations += 1;
        this.line(
          redactLine({
            check: 'generated.tls_hybrid_group',
            operation: `${surface} ${f.case.operation}`,
            pointer: '/tls/group',
            message: f.message,
          }),
        );
      }
    }
  }

  /** Records an exchange of `op` in its surface's coverage. */
  cover(op: Operation, c: EngineCase, exchange: ProxiedExchange): void {
    const cov = this.coverage[op.surface];
    if (cov) recordCoverage(cov, op, c, exchange.response, isDocumented(op, exchange.response.status));
  }

  /** Records a JSON-RPC call in the chain's coverage. */
  coverRpc(contract: RpcContract, j: Judgement, exchange: ProxiedExchange): void {
    const method = contract.methods.find((m) => m.name === j.operation);
    const cov = this.coverage.chain;
    if (!method || !cov || j.client.length) return;
    const own = (j.case as RpcCase).input.body as { id?: unknown };
    const answers = Array.isArray(exchange.response.json) ? (exchange.response.json as { id?: unknown }[]) : undefined;
    const json = answers ? answers.find((a) => a?.id === own?.id) : exchange.response.json;
    recordRpcCoverage(cov, method, j.case as RpcCase, { ...exchange.response, json });
  }

  /** The engine result and one check result per generated check the proxy judges. */
  results(): { engine: EngineResult; results: CheckResult[] } {
    const engine: EngineResult = {
      seed: 0,
      phases: [],
      maxExamples: 0,
      requests: this.counts.exchanges,
      durationMs: Date.now() - this.startedAt,
      timings: [],
      tallies: [...this.tallies.values()],
      coverage: this.coverage,
    };
    const checks = GENERATED_CHECKS.filter((c: GeneratedCheck) =>
      (PROXY_CHECKS as readonly string[]).includes(generatedName(c.id)),
    );
    const results = checks.map((check) => {
      const own = engine.tallies.filter((t) => t.check === generatedName(check.id));
      const reached = own.some((t) => t.passed + t.failed + t.skipped > 0);
      const first = own[0];
      if (!reached && first && first.skipReasons.length === 0)
        first.skipReasons.push('no proxied exchange reached it (D-249)');
      return resultOf(check, engine);
    });
    return { engine, results };
  }
}
