/** Where `svckit conformance` runs: a deployment by URL, the in-process reference, the specs or the mocks, and an institution's own webhook receiver. */
import { readFileSync } from 'node:fs';
import type { Target } from '../../../conformance/targets/target.ts';
import { readSetting } from '../../../src/config.ts';
import type { ConformanceOptions } from './options.ts';

/** Picks the target: URLs given → that deployment; otherwise the in-process reference stack or the specs alone. */
export async function chooseTarget(options: ConformanceOptions): Promise<Target> {
  if (options.rpcSenderKey !== undefined && options.rpc === undefined)
    throw new Error('"--rpc-sender-key" needs "--rpc"');
  // A bare JSON-RPC node (D-192): alone the whole target; beside a deployment's URLs, its chain endpoint.
  if (options.rpc !== undefined) {
    const { rpcTarget } = await import('../../../conformance/targets/rpc.ts');
    const caCert = options.caCert ? readFileSync(options.caCert, 'utf8') : undefined;
    const node = rpcTarget({
      url: options.rpc,
      ...(caCert ? { caCert } : {}),
      ...(options.rpcSenderKey !== undefined ? { senderKey: options.rpcSenderKey } : {}),
    });
    if (!options.base && !options.wallet && !options.site) return node;
    const deployment = await chooseTarget({ ...options, rpc: undefined, rpcSenderKey: undefined });
    deployment.capabilities.add('rpc');
    return { ...deployment, rpc: node.rpc, ...(node.rpcSenderKey ? { rpcSenderKey: node.rpcSenderKey } : {}) };
  }
  if (options.base || options.wallet || options.site) {
    const caCert = options.caCert ? readFileSync(options.caCert, 'utf8') : undefined;
    const [{ chooseReceiverTlsDir }, { remoteTarget }] = await Promise.all([
      import('../../../conformance/webhooks/receiver-tls.ts'),
      import('../../../conformance/targets/remote.ts'),
    ]);
    if (options.receiverTlsDir)
      chooseReceiverTlsDir(options.receiverTlsDir, options.receiverHost ? [options.receiverHost] : []);
    const adminToken = options.adminToken ?? readSetting('SVC_ADMIN_TOKEN');
    if (options.receiverPort !== undefined && !/^\d{1,5}$/.test(options.receiverPort))
      throw new Error(`"--receiver-port" expected a port number, got "${options.receiverPort}"`);
    return remoteTarget({
      base: options.base,
      wallet: options.wallet,
      site: options.site,
      caCert,
      ...(adminToken ? { adminToken } : {}),
      ...(options.secondToken ? { secondToken: options.secondToken } : {}),
      ...(options.receiverHost ? { receiverHost: options.receiverHost } : {}),
      ...(options.receiverPort ? { receiverPort: Number(options.receiverPort) } : {}),
    });
  }
  // Persisted, so the crash-recovery and stopped-chain checks (D-078) can restart it on the same data.
  if (options.target === 'specs') return (await import('../../../conformance/targets/specs-only.ts')).specsOnlyTarget();
  if (options.target === 'mocks') return (await import('../../../conformance/targets/mocks.ts')).mocksTarget();
  return (await import('../../../conformance/targets/reference.ts')).referenceTarget({ persist: true });
}

/**
 * The institution's own webhook receiver under test (`--webhook-receiver`, D-171), if one was named. Alone it
 * is the whole target; beside a deployment's URLs its checks join the catalogue.
 */
export async function chooseReceiver(options: ConformanceOptions) {
  if (options.webhookReceiver === undefined) {
    if (options.webhookSecret !== undefined || options.webhookPreviousSecret !== undefined)
      throw new Error('"--webhook-secret" and "--webhook-previous-secret" need "--webhook-receiver"');
    return undefined;
  }
  const { receiverUnderTest } = await import('../../../conformance/receiver-side/index.ts');
  return receiverUnderTest({
    url: options.webhookReceiver,
    secret: options.webhookSecret,
    previousSecret: options.webhookPreviousSecret,
    ...(options.caCert ? { caCert: readFileSync(options.caCert, 'utf8') } : {}),
  });
}
