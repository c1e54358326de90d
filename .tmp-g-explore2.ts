import tls from 'node:tls';
import { referenceTarget } from './conformance/targets/reference.ts';
import { createPublicClient, createWalletClient, http, defineChain } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
const target = await referenceTarget();
try {
  const before = await fetch(new URL('rpc', target.base), { method: 'POST', body: '{}' }).then(() => 'ok', (e) => 'ERR ' + e.cause?.code);
  console.log('before', before);
  tls.setDefaultCACertificates([...tls.getCACertificates('default'), target.caCert!]);
  const chain = defineChain({ id: 1111111, name: 'svc', nativeCurrency: { name: 'U', symbol: 'U', decimals: 18 }, rpcUrls: { default: { http: [new URL('rpc', target.base).href] } } });
  const pub = createPublicClient({ chain, transport: http() });
  console.log(await pub.getChainId());
  const w = createWalletClient({ chain, transport: http(), account: privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d') });
  const h = await w.sendTransaction({ to: '0x0000000000000000000000000000000000000001', value: 1n });
  const r = await pub.waitForTransactionReceipt({ hash: h, pollingInterval: 50 });
  console.log(r.status, r.effectiveGasPrice, r.blockNumber);
} catch (e) { console.error(e); } finally { await target.close!(); process.exit(0); }
