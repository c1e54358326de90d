// What the harness runs against: the in-process reference server, a vendor's deployment given by URL, or
// the contract files alone.

/** Every capability a check may need (Check.needs) and a target may offer. */
export const CAPABILITIES = [
  'specs', // the contract files in specs/ (they ship with the harness)
  'base', // {base_url}: institutional API, /rpc, /ws, /api
  'rpc', // a chain JSON-RPC endpoint: {base_url}/rpc, or a bare node given by `--rpc` (D-192)
  'wallet', // {wallet_api_url}: wallet session API
  'site', // {site_url}: /.well-known/pqc-evidence.json
  'admin', // the administrator API (D-048), which needs an admin token
  'reference', // the in-process reference stack only (its clock, store and chain can be driven)
  'mocks', // the validating mocks of the OpenAPI contracts: contract-level answers only, no behaviour
] as const;

/** One capability name. */
export type Capability = (typeof CAPABILITIES)[number];

/** The kinds of target the harness knows. */
export type TargetKind = 'reference' | 'remote' | 'specs-only' | 'mocks' | 'rpc';

/** A target: where the surfaces live and what can be exercised there. */
export interface Target {
  /** Which kind of target this is. */
  kind: TargetKind;
  /** {base_url}: HTTPS root of the service host. */
  base?: URL;
  /** {wallet_api_url}: HTTPS base of the wallet session API. */
  wallet?: URL;
  /** {site_url}: HTTPS root of the vendor web site that serves the evidence document. */
  site?: URL;
  /** PEM text of an extra CA certificate to trust for the target's TLS. */
  caCert?: string;
  /** The chain JSON-RPC endpoint when it is not `{base_url}/rpc`: a bare node (`--rpc`, D-192). */
  rpc?: URL;
  /** A funded key allowed to send on the chain (`--rpc-sender-key`, D-193); never printed. */
  rpcSenderKey?: `0x${string}`;
  /** The capabilities the target offers; a check needing anything else is skipped. */
  capabilities: Set<string>;
  /** The administrator token (D-048), when the harness may use the admin API. */
  adminToken?: string;
  /** An institutional API key of a second tenant (`--second-token`), for the cross-tenant check (D-242). */
  secondToken?: string;
  /** In-process control of the reference stack (capability 'reference'). */
  reference?: ReferenceControl;
  /** Host name or IP at which the target can reach the harness's webhook receiver (default 127.0.0.1). */
  receiverHost?: string;
  /** Port of the harness's webhook receiver (default: ephemeral). */
  receiverPort?: number;
  /** The target's platform BIC (D-049) when it is not the default SVCKGB2LXXX. */
  platformBic?: string;
  /** Stops what the target started (the in-process stack). */
  close?(): Promise<void>;
}

/** What checks can drive on the in-process reference stack. */
export interface ReferenceControl {
  /** Moves the stack's clock forward (cache windows, expiries, schedules). */
  advanceClock(ms: number): void;
  /** Seals one block now (the stack runs with instant mining). */
  mineBlock(): Promise<void>;
  /** The stack's clock (ms since the epoch): what SVC-MLDSA timestamps are compared with. */
  now?(): number;
  /** The UTF-8 memo in transaction `txHash`'s data, opened with the recipient account's ML-KEM-768 key (D-032). */
  openMemo?(txHash: string): Promise<string>;
  /** Holds the next transfer between its stored record and its broadcast until `release()` (D-078's window). */
  holdNextBroadcast?(): { reached: Promise<void>; release(): void };
  /**
   * The chain node refuses the next eth_sendRawTransaction the server sends it from `from`, once, with a JSON-RPC
   * error; until `end()`, `attempts(txHash)` counts how often the server sent that transaction to the node.
   */
  refuseNextSend?(from: `0x${string}`): SendFault;
  /** Kills the server once the next transfer is stored and before its broadcast; resolves when it is down (D-078). */
  crashAtNextBroadcast?(): Promise<void>;
  /** Starts the stack again on the same data directory (PGlite files or DATABASE_URL, Anvil state); URLs change. */
  restart?(): Promise<void>;
  /** Starts building the evidence document in the background, as `svckit serve` does at start (D-153); once per stack. */
  buildEvidence?(): void;
}

/** A one-shot refusal of a broadcast on the in-process reference stack ({@link ReferenceControl.refuseNextSend}). */
export interface SendFault {
  /** How many eth_sendRawTransaction of `txHash` the server sent the node since the fault was set (the refused one too). */
  attempts(txHash: `0x${string}`): number;
  /** Removes the fault and stops counting. */
  end(): void;
}

/** A JSON-safe description of a target, for reports (never includes the CA text). */
export interface TargetDescription {
  /** Which kind of target this is. */
  kind: TargetKind;
  /** {base_url}, if any. */
  base?: string;
  /** {wallet_api_url}, if any. */
  wallet?: string;
  /** {site_url}, if any. */
  site?: string;
  /** The chain JSON-RPC endpoint given by `--rpc`, if any. */
  rpc?: string;
  /** Whether an extra CA certificate was given. */
  caCert: boolean;
  /** Sorted capability names. */
  capabilities: string[];
}

/** Describes a target for a report. */
export function describeTarget(target: Target): TargetDescription {
  const out: TargetDescription = {
    kind: target.kind,
    caCert: target.caCert !== undefined,
    capabilities: [...target.capabilities].sort(),
  };
  if (target.base) out.base = target.base.href;
  if (target.wallet) out.wallet = target.wallet.href;
  if (target.site) out.site = target.site.href;
  if (target.rpc) out.rpc = target.rpc.href;
  return out;
}

/** D-049: the platform BIC of the reference stack, which a target keeps unless it names its own. */
export const DEFAULT_PLATFORM_BIC = 'SVCKGB2LXXX';

/** The target's platform BIC (D-049). */
export function platformBicOf(target: Pick<Target, 'platformBic'>): string {
  return target.platformBic ?? DEFAULT_PLATFORM_BIC;
}
