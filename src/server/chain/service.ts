/**
 * The observer's JSON-RPC dispatcher, shared by POST /rpc, the /ws endpoint and the explorer: validates
 * each request against the OpenRPC contract, answers local methods itself and relays the rest to the node,
 * in one upstream batch per client batch.
 */
import { type Address, parseTransaction, recoverTransactionAddress, type TransactionSerialized } from 'viem';
import type { BlockProducer } from '../../node/block-producer.ts';
import type { ChainPermissions } from '../../node/permissions.ts';
import type { FinalBlockCache } from '../../node/final-blocks.ts';
import {
  type Upstream,
  UpstreamRpcError,
  UpstreamUnavailableError,
  type RpcCall,
  type RpcResponse,
} from '../../node/upstream.ts';
import { JsonRpcFailure } from './errors.ts';
import { localMethods, type LocalContext } from './local-methods.ts';
import { contractError, fromNode } from './node-errors.ts';
import { ParamsValidator } from './params.ts';
import { FollowerNode } from './follower.ts';
import { capGas, proofParams, SIMULATED_METHODS, SIMULATION_WAIT_MS, SimulationGate } from './simulation.ts';
import { DEFAULT_SIMULATION, type SimulationLimits } from './simulation-limits.ts';
import { systemClock, type Clock } from '@svckit/sdk/clock';
import { ChainReader } from './chain-reader.ts';
import { feeHistory } from './fees.ts';
import { FILTER_LIMITS, type FilterLimits, Filters, type FilterStore } from './filters.ts';
import { MemoryFilterStore } from './filter-store.ts';

/** spec (D-013): groups that are not enabled on the observer. */
const NOT_ENABLED_GROUPS = ['debug', 'miner', 'trace', 'perm', 'clique', 'ibft', 'eea', 'priv', 'plugins'];
/**
 * D-013, D-253: Besu methods of the enabled groups the observer refuses: they change the node (peers, log level,
 * log caches) or reveal its internals (net_services: its listeners), or need keys the node does not hold.
 */
const NOT_ENABLED_METHODS = new Set([
  'admin_addPeer',
  'admin_removePeer',
  'admin_changeLogLevel',
  'admin_generateLogBloomCache',
  'admin_logsRepairCache',
  'admin_logsRemoveCache',
  'net_services',
  'eth_sendTransaction',
]);
/** Why a method of an enabled group is refused, in the -32604 answer's `data`. */
const REFUSED_BECAUSE: Record<string, string> = {
  eth_sendTransaction: 'the node holds no keys; sign the transaction and send it with eth_sendRawTransaction',
  net_services: 'the observer does not publish its listeners',
};

/** D-256: the filter methods, answered by the gateway for the sender's IP. */
const FILTER_METHODS = new Set([
  'eth_newFilter',
  'eth_newBlockFilter',
  'eth_newPendingTransactionFilter',
  'eth_getFilterChanges',
  'eth_getFilterLogs',
  'eth_uninstallFilter',
]);

/** D-051: batches of 1 to 100 requests. */
export const MAX_BATCH = 100;

type Id = number | string | null;
type Prepared =
  | { id: Id; kind: 'error'; error: JsonRpcFailure }
  | { id: Id; kind: 'local' | 'relay' | 'simulate'; method: string; params: unknown[] };

/** Who sent a request, for the D-200 bounds: the client IP, or `local` for the server's own readers. */
export const LOCAL_CLIENT = 'local';

/** What the dispatcher needs from the rest of the stack. */
export type DispatcherDeps = LocalContext & {
  /** Present when the chain is the embedded one: writes are permissioned (D-050) and trigger a block. */
  producer: BlockProducer | undefined;
  permissions: ChainPermissions | undefined;
  /** Embedded chain only: sealed blocks and the head, answered without the node. */
  blockCache: FinalBlockCache | undefined;
  /** Real QBFT upstream: qbft_* are relayed to the validators' RPC instead of emulated. */
  qbftRelay: ((method: string, params: unknown[]) => Promise<RpcResponse>) | undefined;
  /** D-199, D-200: the gas cap and concurrency bounds of eth_call and eth_estimateGas (default: the documented ones). */
  simulation?: SimulationLimits;
  /** D-256: where the filters live (default: in process), the clock their expiry reads, and their bounds. */
  filterStore?: FilterStore;
  clock?: Clock;
  filterLimits?: FilterLimits;
};

/** A request refused before it is run. */
function failed(id: Id, error: JsonRpcFailure): Prepared {
  return { id, kind: 'error', error };
}

/** Validates and answers JSON-RPC requests. */
export class RpcDispatcher {
  private readonly params = new ParamsValidator();
  private readonly gasCap: number;
  private readonly gate: SimulationGate;
  /**
   * D-203: with a follower, the sealing node runs one simulated call at a time (those at an older block). Only
   * calls the gateway-wide gate admitted reach it, so its queue is as long as that gate's bound.
   */
  private readonly sealingGate: SimulationGate;
  /** D-201: units of the D-024 rate limit one eth_call or eth_estimateGas takes. */
  readonly simulationWeight: number;
  /** D-203: where simulated calls at the head run, when this gateway drives the sealing node. */
  private readonly follower: FollowerNode | undefined;
  /** Sealed blocks and receipts for the gateway's own methods (D-255, D-256). */
  private readonly reader: ChainReader;
  /** D-256: the filters. */
  private readonly filters: Filters;

  /** D-278: hears the answer to each client request of /rpc and /ws (the metrics); undefined costs one property read. */
  onAnswer: ((request: unknown, answer: RpcResponse) => void) | undefined = undefined;

  /** Whether `method` is a method of the contract (D-278: the metrics' method label is one of these or `other`). */
  knows(method: string): boolean {
    return this.params.has(method);
  }

  /** Creates a dispatcher over the stack's chain parts. */
  constructor(private readonly deps: DispatcherDeps) {
    const limits = deps.simulation ?? DEFAULT_SIMULATION;
    this.gasCap = limits.gasCap;
    this.simulationWeight = limits.weight;
    this.gate = new SimulationGate(limits);
    this.sealingGate = new SimulationGate(
      { perClient: Number.MAX_SAFE_INTEGER, total: 1 },
      SIMULATION_WAIT_MS,
      limits.total,
    );
    this.follower = deps.producer ? new FollowerNode(deps.upstream.url, deps.producer) : undefined;
    this.reader = new ChainReader(deps.upstream, deps.blockCache);
    this.filters = new Filters(
      deps.filterStore ?? new MemoryFilterStore(),
      {
        reader: this.reader,
        // D-256: a filter's logs are eth_getLogs's, with its error objects (D-197).
        getLogs: async (filter) => fromNode('eth_getLogs', await deps.upstream.send('eth_getLogs', [filter])),
      },
      deps.clock ?? systemClock,
      deps.filterLimits ?? FILTER_LIMITS,
    );
  }

  /** Stops what the dispatcher started (the D-203 simulation node). */
  async stop(): Promise<void> {
    await this.follower?.stop();
  }

  /**
   * Answers one parsed request object (from HTTP or WebSocket). `transport` decides the ws-only methods. The
   * same answers as a batch of one, without the batch's arrays and closures: a sealed block or the head is
   * answered from the cache with no allocation beyond the answer (D-196). `client` is the sender's IP (D-200).
   */
  async handle(request: unknown, transport: 'http' | 'ws' = 'http', client = LOCAL_CLIENT): Promise<RpcResponse> {
    const p = this.prepare(request, transport);
    if (p.kind === 'simulate') return this.simulate(p.id, p.method, p.params, client);
    if (p.kind !== 'relay' || p.method === 'eth_sendRawTransaction') return (await this.run([p], client))[0]!;
    const found = this.deps.blockCache?.lookup(p.method, p.params);
    if (found?.hit) return { jsonrpc: '2.0', id: p.id, result: found.value };
    return this.relayOne(p.id, p.method, p.params, found?.store);
  }

  /** Validates params of a contract method (used by the WebSocket endpoint for eth_subscribe). */
  checkParams(method: string, params: unknown): unknown[] {
    return this.params.check(method, params);
  }

  /** Answers a batch; the caller has checked it is a non-empty array of at most MAX_BATCH entries. */
  async handleBatch(
    requests: unknown[],
    transport: 'http' | 'ws' = 'http',
    client = LOCAL_CLIENT,
  ): Promise<RpcResponse[]> {
    return this.run(
      requests.map((r) => this.prepare(r, transport)),
      client,
    );
  }

  private prepare(request: unknown, transport: 'http' | 'ws'): Prepared {
    const raw = (request ?? {}) as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
    const id = typeof raw.id === 'number' || typeof raw.id === 'string' ? raw.id : null;
    // No closure per request here: under tsx every function expression also costs a name definition.
    if (typeof request !== 'object' || request === null || Array.isArray(request)) {
      return failed(id, new JsonRpcFailure('InvalidRequest', 'a request must be a JSON object'));
    }
    if (raw.jsonrpc !== '2.0') return failed(id, new JsonRpcFailure('InvalidRequest', '"jsonrpc" expected "2.0"'));
    if (typeof raw.method !== 'string')
      return failed(id, new JsonRpcFailure('InvalidRequest', '"method" expected a string'));
    if ('id' in raw && raw.id !== null && typeof raw.id !== 'number' && typeof raw.id !== 'string') {
      return failed(id, new JsonRpcFailure('InvalidRequest', '"id" expected a string, a number or null'));
    }
    const method = raw.method;
    if (!this.params.has(method) || (transport === 'http' && this.params.websocketOnly.has(method))) {
      const group = method.split('_')[0] ?? '';
      if (NOT_ENABLED_METHODS.has(method) || NOT_ENABLED_GROUPS.includes(group)) {
        const why = REFUSED_BECAUSE[method];
        return failed(id, new JsonRpcFailure('MethodNotEnabled', why ? `${method}: ${why}` : method));
      }
      const where = this.params.websocketOnly.has(method) ? ` (${method} is served on the WebSocket endpoint /ws)` : '';
      return failed(id, new JsonRpcFailure('MethodNotFound', `${method}${where}`));
    }
    try {
      const params = this.params.check(method, raw.params);
      const local =
        method in localMethods ||
        FILTER_METHODS.has(method) ||
        method === 'eth_feeHistory' ||
        (method.startsWith('qbft_') && this.deps.qbftRelay !== undefined);
      // D-257: a proof's keys go as 32-byte words and its block defaults to latest, as execution-apis says.
      if (method === 'eth_getProof') return { id, kind: 'simulate', method, params: proofParams(params) };
      if (SIMULATED_METHODS.has(method)) return { id, kind: 'simulate', method, params: capGas(params, this.gasCap) };
      return { id, kind: local ? 'local' : 'relay', method, params };
    } catch (error) {
      return failed(id, error as JsonRpcFailure);
    }
  }

  /** One relayed call the cache did not answer, sent to the node as a single request (what `run` does for one miss). */
  private async relayOne(
    id: Id,
    method: string,
    params: unknown[],
    store: ((result: unknown) => void) | undefined,
    node: Upstream = this.deps.upstream,
  ): Promise<RpcResponse> {
    try {
      const response = await node.send(method, params);
      if (!response.error) {
        this.deps.blockCache?.observe(method, params, response.result);
        store?.(response.result);
      }
      return { ...fromNode(method, response), id };
    } catch (error) {
      return this.failure(id, error, method);
    }
  }

  /**
   * D-199, D-200: one capped simulated call, run once the gate admits it; D-203: on a gateway that drives the
   * sealing node, at the head on the follower, at an older block (or when the follower cannot start) on the
   * sealing node, one at a time.
   */
  private async simulate(id: Id, method: string, params: unknown[], client: string): Promise<RpcResponse> {
    try {
      return await this.gate.run(client, async () => {
        if (!this.follower) return this.relayOne(id, method, params, undefined);
        // D-257: a fork cannot prove state it has not read, so a proof is built on the sealing node.
        if (method === 'eth_getProof')
          return this.sealingGate.run(LOCAL_CLIENT, () => this.relayOne(id, method, params, undefined));
        const node = await this.follower.clientFor(params[1]).catch(() => undefined);
        if (node) return this.relayOne(id, method, params, undefined, node);
        return this.sealingGate.run(LOCAL_CLIENT, () => this.relayOne(id, method, params, undefined));
      });
    } catch (error) {
      return this.failure(id, error, method);
    }
  }

  private async run(prepared: Prepared[], client = LOCAL_CLIENT): Promise<RpcResponse[]> {
    const answers: (RpcResponse | undefined)[] = new Array(prepared.length);
    const relay: { index: number; call: RpcCall }[] = [];
    // D-200: a batch's simulated calls go one after another, each through the gate, beside the rest.
    const simulated = prepared.flatMap((p, index) => (p.kind === 'simulate' ? [{ ...p, index }] : []));
    const simulations = (async () => {
      for (const s of simulated) answers[s.index] = await this.simulate(s.id, s.method, s.params, client);
    })();
    await Promise.all(
      prepared.map(async (p, index) => {
        if (p.kind === 'simulate') return;
        if (p.kind === 'error') answers[index] = { jsonrpc: '2.0', id: p.id, error: p.error.toObject() };
        else if (p.kind === 'local') answers[index] = await this.local(p.id, p.method, p.params, client);
        else if (p.method === 'eth_sendRawTransaction') answers[index] = await this.sendRaw(p.id, p.params);
        else relay.push({ index, call: { method: p.method, params: p.params } });
      }),
    );
    // Sealed blocks are final (QBFT): answers the cache holds never reach the node; the rest go in one batch.
    const misses: { index: number; call: RpcCall; store?: (result: unknown) => void }[] = [];
    for (const r of relay) {
      const found = this.deps.blockCache?.lookup(r.call.method, r.call.params);
      if (found?.hit)
        answers[r.index] = { jsonrpc: '2.0', id: (prepared[r.index] as { id: Id }).id, result: found.value };
      else misses.push({ ...r, ...(found ? { store: found.store } : {}) });
    }
    if (misses.length) {
      try {
        // One call goes as a single request: no batch array to build, parse and match by id on either side.
        const responses =
          misses.length === 1
            ? [await this.deps.upstream.send(misses[0]!.call.method, misses[0]!.call.params)]
            : await this.deps.upstream.batch(misses.map((r) => r.call));
        misses.forEach((r, i) => {
          const response = responses[i]!;
          if (!response.error) {
            this.deps.blockCache?.observe(r.call.method, r.call.params, response.result);
            r.store?.(response.result);
          }
          answers[r.index] = { ...fromNode(r.call.method, response), id: (prepared[r.index] as { id: Id }).id };
        });
      } catch (error) {
        for (const r of misses)
          answers[r.index] = this.failure((prepared[r.index] as { id: Id }).id, error, r.call.method);
      }
    }
    await simulations;
    return answers as RpcResponse[];
  }

  private async local(id: Id, method: string, params: unknown[], client: string): Promise<RpcResponse> {
    try {
      if (method.startsWith('qbft_') && this.deps.qbftRelay)
        return { ...(await this.deps.qbftRelay(method, params)), id };
      if (FILTER_METHODS.has(method))
        return { jsonrpc: '2.0', id, result: await this.filters.call(method, params, client) };
      if (method === 'eth_feeHistory') return { jsonrpc: '2.0', id, result: await feeHistory(params, this.reader) };
      return { jsonrpc: '2.0', id, result: await localMethods[method]!(params, this.deps) };
    } catch (error) {
      return this.failure(id, error, method);
    }
  }

  /** D-050: only allowed senders may write; an accepted transaction triggers a block in instant mode. */
  private async sendRaw(id: Id, [signed]: unknown[]): Promise<RpcResponse> {
    try {
      if (this.deps.permissions) {
        let sender: Address;
        try {
          const serialized = signed as TransactionSerialized;
          parseTransaction(serialized);
          sender = await recoverTransactionAddress({ serializedTransaction: serialized });
        } catch (error) {
          throw new JsonRpcFailure(
            'InvalidInput',
            `"signedTx" is not a valid signed transaction: ${(error as Error).message.split('\n')[0]}`,
          );
        }
        if (!(await this.deps.permissions.isAllowed(sender))) throw new JsonRpcFailure('SenderNotAuthorized', sender);
      }
      const response = await this.deps.upstream.send('eth_sendRawTransaction', [signed]);
      if (!response.error) this.deps.producer?.onTransaction();
      return { ...fromNode('eth_sendRawTransaction', response), id };
    } catch (error) {
      return this.failure(id, error, 'eth_sendRawTransaction');
    }
  }

  private failure(id: Id, error: unknown, method: string): RpcResponse {
    if (error instanceof JsonRpcFailure) return { jsonrpc: '2.0', id, error: error.toObject() };
    if (error instanceof UpstreamRpcError) return { jsonrpc: '2.0', id, error: contractError(method, error.error) };
    if (error instanceof UpstreamUnavailableError)
      return { jsonrpc: '2.0', id, error: new JsonRpcFailure('ResourceUnavailable', error.message).toObject() };
    return { jsonrpc: '2.0', id, error: new JsonRpcFailure('InternalError').toObject() };
  }
}
