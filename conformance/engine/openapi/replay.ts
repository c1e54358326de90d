/**
 * Replays a case file written next to the engine's reports: the case's request is rebuilt against a given
 * base, sent, and judged by the named check that failed (and the others), so a fix can be confirmed.
 */
import { readFileSync } from 'node:fs';
import { SPECS_DIR } from '../../../src/paths.ts';
import type { CaseFile } from '../../report/cases.ts';
import type { CaseVerdict } from '../core/checks.ts';
import { evaluate } from './judges.ts';
import { engineClient, type WireRequest, type WireResponse } from '../core/client.ts';
import type { EngineCase } from '../core/cases.ts';
import { type Contract, ENGINE_SURFACES, type EngineSurface, loadContract, type Operation } from './contract.ts';
import { toRequest } from './context.ts';

/** The outcome of one replay. */
export interface ReplayOutcome {
  request: WireRequest;
  response: WireResponse;
  /** The verdict of the check the case file records. */
  verdict: CaseVerdict | undefined;
  /** Every verdict of the named checks on the answer. */
  verdicts: CaseVerdict[];
}

/** The methods a case may send (an `unsupported_method` case sends one its path does not document). */
const METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'PATCH'];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads and checks a case file: its kind, surface and the shape of the case the request is built from. */
export function readCaseFile(path: string): CaseFile {
  const file = JSON.parse(readFileSync(path, 'utf8')) as CaseFile;
  if (file?.kind !== 'svckit-conformance-case' || !file.case || !(file.case.surface in ENGINE_SURFACES))
    throw new Error(`${path} is not an svckit conformance case file`);
  const c = file.case as unknown as Record<string, unknown>;
  const params = isObject(c.input) ? c.input.params : undefined;
  if (
    typeof file.check !== 'string' ||
    typeof c.operation !== 'string' ||
    typeof c.kind !== 'string' ||
    typeof c.authenticated !== 'boolean' ||
    !METHODS.includes(String(c.method)) ||
    (c.authorization !== undefined && typeof c.authorization !== 'string') ||
    !isObject(params) ||
    Object.values(params).some((v) => typeof v !== 'string')
  )
    throw new Error(
      `${path} is not an svckit conformance case file: its case lacks a field or has one of the wrong type`,
    );
  return file;
}

/** The base URL of a surface's paths under `{base_url}` (or `{wallet_api_url}` for the wallet surface). */
export function surfaceBase(surface: EngineSurface, base: URL, specsDir = SPECS_DIR): URL {
  const root = base.href.endsWith('/') ? base : new URL(`${base.href}/`);
  if (surface === 'wallet') return root;
  return new URL(`${loadContract(specsDir, surface).basePath.replace(/^\//, '')}/`, root);
}

/** A case ready to send: the request built from it, checked against its operation (D-223). */
export interface PreparedReplay {
  request: WireRequest;
  contract: Contract;
  op: Operation;
}

/** Escapes `text` for a regular expression. */
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Why `request` does not carry the case's operation (D-223), or undefined when it does: the method is the
 * operation's (or, for an `unsupported_method` case, one its path does not document), the origin is the
 * deployment's, and the path is the operation's route template under the surface's base path, every path
 * parameter one segment.
 */
export function replayMismatch(
  contract: Contract,
  op: Operation,
  c: EngineCase,
  request: WireRequest,
  root: URL,
): string | undefined {
  const method = c.method.toUpperCase();
  const documented = contract.paths[op.route] ?? [];
  if (method !== op.method && !(c.kind === 'unsupported_method' && !documented.includes(method)))
    return c.kind === 'unsupported_method'
      ? `the case sends ${c.method} as an undocumented method, but ${op.route} documents ${c.method}`
      : `the case sends ${c.method} but its operation is ${op.id}`;
  const url = new URL(request.url);
  if (url.origin !== root.origin) return `the case's request goes to ${url.origin}, not to ${root.origin}`;
  for (const p of op.parameters) {
    const value = c.input.params[`path:${p.name}`];
    if (p.in === 'path' && (value === '.' || value === '..'))
      return `the case's path parameter "${p.name}" is "${value}", which would leave ${op.route}`;
  }
  const segments = op.route.split(/\{[^}]+\}/).map(literal);
  const prefix = literal(root.pathname.replace(/\/$/, ''));
  if (!new RegExp(`^${prefix}${segments.join('[^/]+')}$`).test(url.pathname))
    return `the case's path ${url.pathname} is not ${op.route} under ${root.pathname}`;
  return undefined;
}

/**
 * Builds the request of `file` against `base` and checks that it is the request of the case's operation
 * (D-223); throws, sending nothing, when the case names an unknown operation or its request is another's.
 */
export function prepareReplay(
  file: CaseFile,
  options: { base: URL; authorization?: string; specsDir?: string },
): PreparedReplay {
  const specsDir = options.specsDir ?? SPECS_DIR;
  const contract = loadContract(specsDir, file.case.surface);
  const op = contract.operations.find((o) => o.id === file.case.operation);
  if (!op) throw new Error(`the ${file.case.surface} contract has no operation ${file.case.operation}`);
  const root = surfaceBase(file.case.surface, options.base, specsDir);
  const request = toRequest(root, op, file.case, options.authorization);
  const wrong = replayMismatch(contract, op, file.case, request, root);
  if (wrong) throw new Error(`refusing to send the case: ${wrong}`);
  return { request, contract, op };
}

/** Sends a prepared case and judges the answer by the named check of `file`. */
export async function sendReplay(
  file: CaseFile,
  prepared: PreparedReplay,
  options: { caCert?: string } = {},
): Promise<ReplayOutcome> {
  const { request, contract, op } = prepared;
  const client = engineClient({ ...(options.caCert ? { caCert: options.caCert } : {}), connections: 1 });
  try {
    const response = await client.send(request);
    const verdicts = evaluate(contract, op, file.case, response);
    const name = file.check.replace(/^generated\./, '');
    return { request, response, verdicts, verdict: verdicts.find((v) => v.check === name) };
  } finally {
    client.close();
  }
}

/** Sends the case of `file` to `base` and judges the answer (no question asked: for callers in process). */
export async function replayCase(
  file: CaseFile,
  options: { base: URL; caCert?: string; authorization?: string; specsDir?: string },
): Promise<ReplayOutcome> {
  return sendReplay(file, prepareReplay(file, options), options);
}
