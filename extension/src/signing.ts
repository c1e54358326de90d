/**
 * The requests that sign, each after the user approves in approve.html with the keystore password:
 * personal_sign (EIP-191), eth_sendTransaction, eth_signTransaction (EIP-1474) and eth_signTypedData_v4
 * (EIP-712). Keys, signatures, fees and networks come from the wallet library's browser-safe module
 * (src/client/wallet/browser.ts), the same code the Node library runs.
 *
 * eth_sendTransaction (D-123, D-175): nonce, gas and gas price are filled from the chain's endpoint (the
 * gateway's /rpc on the native chain, gas price 0 there); the platform fee of GET {wallet_api_url}/fees/config
 * is shown and, when it is not zero, paid by a second transaction to the chain's collector at the next nonce,
 * signed together with the dApp's and broadcast after it. The result is the dApp's transaction hash.
 */
import {
  checkConfig,
  deriveChainKey,
  FeeError,
  fillEvmTransaction,
  formatUnits,
  platformFeeLeg,
  signChainMessage,
  signEvmTransaction,
  signEvmTypedData,
  type EvmTransactionFields,
  type FeeConfig,
  type Network,
} from '@svckit/sdk/wallet-library/browser';
import type { ApprovalRequest, ApprovalRow } from './approval.ts';
import { networkOf } from './chains.ts';
import { personalSignParams, transactionParams, typedDataParams } from './params.ts';
import { ERRORS, ProviderRpcError } from './protocol.ts';
import { accountIndex, endpointOf } from './access.ts';
import type { RouterDeps } from './router.ts';
import type { WalletState } from './state.ts';

/** EIP-191 personal_sign of a connected account. */
export async function personalSign(origin: string, params: unknown, state: WalletState, deps: RouterDeps) {
  const { bytes, account } = personalSignParams(params);
  const index = await accountIndex(origin, state, deps, account);
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  const password = await ask(deps, {
    kind: 'sign',
    origin,
    rows: [
      { label: 'Account', value: state.accounts[index]! },
      { label: 'Scheme', value: 'EIP-191 personal_sign' },
    ],
    detail: { label: 'Message', text },
    password: true,
  });
  return signWith(deps, state, password, index, (key) => signChainMessage(key, bytes));
}

/** eth_sendTransaction: fill, show, sign (with the platform fee leg) and broadcast; returns the hash. */
export async function sendTransaction(origin: string, params: unknown, state: WalletState, deps: RouterDeps) {
  const { index, network, url, tx } = await prepare(origin, 'eth_sendTransaction', params, state, deps);
  const fees = await feeConfig(deps);
  const { quote, fee: feeDraft } = feeLeg(fees, tx);
  // The fee leg's gas is estimated like the transfer's (the collector may be a contract).
  const fee = feeDraft && {
    ...feeDraft,
    gas: await fillEvmTransaction(
      (m, p) => deps.forward(url, m, p),
      feeDraft.chainId,
      state.accounts[index] as `0x${string}`,
      { to: feeDraft.to!, value: feeDraft.value, nonce: feeDraft.nonce, gasPrice: 0n },
    ).then((filled) => filled.gas),
  };
  const password = await ask(deps, {
    kind: 'send',
    origin,
    rows: [
      ...transactionRows(network, state.accounts[index]!, tx),
      {
        label: 'Platform fee',
        value: `${formatUnits(quote.fee, network.decimals)} ${network.symbol} (${quote.feeBps} bp${quote.collector ? ` to ${quote.collector}` : ''})`,
      },
      { label: 'Network fee (at most)', value: `${formatUnits(networkFee(tx), network.decimals)} ${network.symbol}` },
      {
        label: 'Total',
        value: `${formatUnits(quote.total + networkFee(tx) + (fee ? networkFee(fee) : 0n), network.decimals)} ${network.symbol}`,
      },
    ],
    ...dataDetail(tx),
    password: true,
  });
  const raws = await signWith(deps, state, password, index, async (key) => [
    await signEvmTransaction(key, tx),
    ...(fee ? [await signEvmTransaction(key, fee)] : []),
  ]);
  const hashes: unknown[] = [];
  for (const raw of raws) hashes.push(await deps.forward(url, 'eth_sendRawTransaction', [raw]));
  return hashes[0];
}

/** eth_signTransaction: fill, show and sign; returns the raw signed transaction (not broadcast). */
export async function signTransaction(origin: string, params: unknown, state: WalletState, deps: RouterDeps) {
  const { index, network, tx } = await prepare(origin, 'eth_signTransaction', params, state, deps);
  const fees = await feeConfig(deps);
  // D-175: a transaction signed but not sent cannot carry the platform fee leg, so it must owe none.
  if (feeLeg(fees, tx).fee)
    throw new ProviderRpcError(
      ERRORS.invalidParams,
      `eth_signTransaction of a transfer that owes the platform fee (${fees.feeBps} bp): use eth_sendTransaction (D-175)`,
    );
  const password = await ask(deps, {
    kind: 'signTransaction',
    origin,
    rows: [
      ...transactionRows(network, state.accounts[index]!, tx),
      { label: 'Network fee (at most)', value: `${formatUnits(networkFee(tx), network.decimals)} ${network.symbol}` },
      { label: 'Broadcast', value: 'No: the site receives the signed transaction' },
    ],
    ...dataDetail(tx),
    password: true,
  });
  return signWith(deps, state, password, index, (key) => signEvmTransaction(key, tx));
}

/** eth_signTypedData_v4 (EIP-712): the domain and message shown readably, then signed. */
export async function signTypedData(origin: string, params: unknown, state: WalletState, deps: RouterDeps) {
  const { account, typedData } = typedDataParams('eth_signTypedData_v4', params);
  const index = await accountIndex(origin, state, deps, account);
  const domain = (typedData.domain ?? {}) as Record<string, unknown>;
  if (domain.chainId !== undefined && BigInt(domain.chainId as string | number).toString(10) !== state.chainId)
    throw new ProviderRpcError(
      ERRORS.invalidParams,
      `the typed data's domain names chain ${String(domain.chainId)}, but the selected chain is ${state.chainId}`,
    );
  const network = networkOf(state);
  const domainRows: ApprovalRow[] = (['name', 'version', 'chainId', 'verifyingContract', 'salt'] as const)
    .filter((field) => domain[field] !== undefined)
    .map((field) => ({ label: `Domain ${DOMAIN_LABELS[field]}`, value: String(domain[field]) }));
  const password = await ask(deps, {
    kind: 'typedData',
    origin,
    rows: [
      { label: 'Network', value: `${network.name} (${network.chainId})` },
      { label: 'Account', value: state.accounts[index]! },
      ...domainRows,
      { label: 'Primary type', value: String(typedData.primaryType) },
    ],
    detail: { label: 'Message', text: readable(typedData.message) },
    password: true,
  });
  return signWith(deps, state, password, index, (key) => signEvmTypedData(key, typedData));
}

const DOMAIN_LABELS = {
  name: 'name',
  version: 'version',
  chainId: 'chain ID',
  verifyingContract: 'contract',
  salt: 'salt',
};

/** Checks the params, the account and the chain, and fills the transaction from the chain's endpoint. */
async function prepare(origin: string, method: string, params: unknown, state: WalletState, deps: RouterDeps) {
  const { from, chainId, draft } = transactionParams(method, params);
  const index = await accountIndex(origin, state, deps, from);
  if (chainId !== undefined && chainId !== state.chainId)
    throw new ProviderRpcError(
      ERRORS.invalidParams,
      `the transaction names chain ${chainId}, but the selected chain is ${state.chainId}: switch first`,
    );
  const url = endpointOf(state);
  const network = networkOf(state);
  let tx: EvmTransactionFields;
  try {
    tx = await fillEvmTransaction(
      (m, p) => deps.forward(url, m, p),
      Number(state.chainId),
      state.accounts[index] as `0x${string}`,
      draft,
    );
  } catch (error) {
    if (error instanceof ProviderRpcError) throw error; // the node's own answer (e.g. execution reverted)
    throw new ProviderRpcError(ERRORS.internal, (error as Error).message);
  }
  return { index, network, url, tx };
}

/** GET {wallet_api_url}/fees/config, checked; the wallet refuses to sign without it (rule 9). */
async function feeConfig(deps: RouterDeps): Promise<FeeConfig> {
  const base = await deps.walletApiUrl();
  const answer = await deps.walletApi(new URL('fees/config', `${base.replace(/\/+$/, '')}/`).href);
  try {
    if (answer.status !== 200) throw new FeeError(`GET /fees/config answered ${answer.status}`);
    checkConfig(answer.body as FeeConfig);
    return answer.body as FeeConfig;
  } catch (error) {
    throw new ProviderRpcError(
      ERRORS.internal,
      `refusing to sign without the fee configuration of ${new URL(base).origin}: ${(error as Error).message}`,
    );
  }
}

/** The platform fee leg of D-123; a fee the wallet cannot pay is an internal error naming why. */
function feeLeg(fees: FeeConfig, tx: EvmTransactionFields) {
  try {
    return platformFeeLeg(fees, tx);
  } catch (error) {
    throw new ProviderRpcError(ERRORS.internal, (error as Error).message);
  }
}

function networkFee(tx: EvmTransactionFields): bigint {
  return tx.gas * (tx.maxFeePerGas ?? tx.gasPrice ?? 0n);
}

function transactionRows(network: Network, from: string, tx: EvmTransactionFields): ApprovalRow[] {
  return [
    { label: 'Network', value: `${network.name} (${network.chainId})` },
    { label: 'From', value: from },
    { label: 'To', value: tx.to ?? 'New contract' },
    { label: 'Amount', value: `${formatUnits(tx.value, network.decimals)} ${network.symbol}` },
    {
      label: 'Gas',
      value: `${tx.gas} at ${tx.maxFeePerGas !== undefined ? `max ${tx.maxFeePerGas}` : String(tx.gasPrice ?? 0n)} wei`,
    },
    { label: 'Nonce', value: String(tx.nonce) },
  ];
}

function dataDetail(tx: EvmTransactionFields): Pick<ApprovalRequest, 'detail'> {
  return tx.data ? { detail: { label: 'Call data', text: tx.data } } : {};
}

/** Typed-data message as indented JSON (bigints as decimal strings). */
function readable(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString(10) : v), 2);
}

/** Asks the user; 4001 unless approved with a password. */
async function ask(deps: RouterDeps, request: ApprovalRequest): Promise<string> {
  const decision = await deps.approve(request);
  if (!decision.approved || !decision.password)
    throw new ProviderRpcError(ERRORS.userRejected, `the user rejected the ${request.kind} request`);
  return decision.password;
}

/** Runs `sign` with EVM account `index`'s key from the opened keystore; the key is zeroed after. */
function signWith<T>(
  deps: RouterDeps,
  state: WalletState,
  password: string,
  index: number,
  sign: (key: ReturnType<typeof deriveChainKey>) => T | Promise<T>,
): Promise<T> {
  return deps.withSeed(state, password, async (seed) => {
    const key = deriveChainKey(seed, 'evm', index);
    try {
      return await sign(key);
    } finally {
      key.privateKey.fill(0);
    }
  });
}
