// The SDK package's public entry points (packages/sdk/package.json `exports`, D-229), run from the sources the
// repository maps them to: each subpath has its exports, the browser ones bundle without Node built-ins, and each
// one's exports work as an integrator uses them. The compiled package, installed from its tarball, is
// scripts/test-packages.ts's (.ci/run).
import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import {
  mldsaAuthorization,
  signRequestsWithMldsa,
  login,
  verifyWebhook as verifyFromClient,
} from '@svckit/sdk/client';
import { mlDsa65, sha3_256, toHex, fromHex } from '@svckit/sdk/crypto';
import { adminGetHealth } from '@svckit/sdk/admin';
import { createClient as adminClient } from '@svckit/sdk/admin/client';
import { createChainRpcClient, ChainRpcError } from '@svckit/sdk/chain';
import type { PqcEvidenceDocument } from '@svckit/sdk/evidence';
import { pqcEvidenceSchema } from '@svckit/sdk/evidence/schema';
import { explorerGetStats } from '@svckit/sdk/explorer';
import { createClient as explorerClient } from '@svckit/sdk/explorer/client';
import { institutionalGetAccount } from '@svckit/sdk/institutional';
import { createClient as institutionalClient } from '@svckit/sdk/institutional/client';
import { walletGetFeeConfig } from '@svckit/sdk/wallet';
import { createClient as walletSessionClient } from '@svckit/sdk/wallet/client';
import { webhookMessageByEvent, webhookSchemaDefs } from '@svckit/sdk/webhooks/schemas';
import type { PaymentSettledPayload } from '@svckit/sdk/webhooks';
import { Wallet, evmAddress, toChecksumAddress } from '@svckit/sdk/wallet-library';
import { verifyWebhook, WebhookVerificationError } from '@svckit/sdk/webhooks/verifier';
import { build } from 'esbuild';
import { REPO_ROOT } from '../../src/paths.ts';
import { SDK_MODULES, SDK_PACKAGE, syncSdkModules } from '../../scripts/sdk-modules.ts';

/** Each public subpath and one runtime export it must have; `null` for the type-only modules. */
const ENTRY_POINTS: Record<string, string | null> = {
  '@svckit/sdk/institutional': 'institutionalGetAccount',
  '@svckit/sdk/institutional/client': 'createClient',
  '@svckit/sdk/institutional/zod': 'zError',
  '@svckit/sdk/institutional/schemas': 'ErrorSchema',
  '@svckit/sdk/explorer': 'explorerGetStats',
  '@svckit/sdk/explorer/client': 'createClient',
  '@svckit/sdk/explorer/zod': 'zError',
  '@svckit/sdk/explorer/schemas': 'ErrorSchema',
  '@svckit/sdk/wallet': 'walletGetFeeConfig',
  '@svckit/sdk/wallet/client': 'createClient',
  '@svckit/sdk/wallet/zod': 'zError',
  '@svckit/sdk/wallet/schemas': 'ErrorSchema',
  '@svckit/sdk/admin': 'adminGetHealth',
  '@svckit/sdk/admin/client': 'createClient',
  '@svckit/sdk/admin/zod': 'zError',
  '@svckit/sdk/admin/schemas': 'ErrorSchema',
  '@svckit/sdk/chain': 'createChainRpcClient',
  '@svckit/sdk/chain/types': null,
  '@svckit/sdk/chain/document': 'chainOpenRpcDocument',
  '@svckit/sdk/webhooks': null,
  '@svckit/sdk/webhooks/schemas': 'webhookSchemaDefs',
  '@svckit/sdk/webhooks/verifier': 'verifyWebhook',
  '@svckit/sdk/evidence': null,
  '@svckit/sdk/evidence/schema': 'pqcEvidenceSchema',
  '@svckit/sdk/signer': 'signRequestsWithMldsa',
  '@svckit/sdk/client': 'signRequestsWithMldsa',
  '@svckit/sdk/wallet-library': 'Wallet',
  '@svckit/sdk/wallet-library/browser': 'svcIdOfSeed',
  '@svckit/sdk/wallet-library/addresses': 'toChecksumAddress',
  '@svckit/sdk/crypto': 'mlDsa65',
  '@svckit/sdk/crypto/backends': 'opensslMlDsa65Sign',
  '@svckit/sdk/errors': 'SvcError',
  '@svckit/sdk/clock': 'systemClock',
};

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

/** A fetch that records the request it gets and answers `answer`. */
function recordingFetch(answer: () => Response) {
  const seen: Request[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    seen.push(new Request(input, init));
    return answer();
  };
  return { fetch: fetch as typeof globalThis.fetch, seen };
}
const notFound = () => Response.json({ error: { code: 'not_found', message: 'no such thing' } }, { status: 404 });

describe('the SDK package shape (scripts/sdk-modules.ts)', () => {
  it('lists exactly the entry points checked here', () => {
    expect(SDK_MODULES.map((module) => `${SDK_PACKAGE}/${module.subpath}`)).toEqual(Object.keys(ENTRY_POINTS));
  });

  it('packages/sdk/package.json exports and tsconfig.json paths are the ones the table gives', () => {
    expect(syncSdkModules(false)).toEqual([]);
    // No subpath twice (a second entry would silently replace the first in `exports`).
    expect(new Set(SDK_MODULES.map((module) => module.subpath)).size).toBe(SDK_MODULES.length);
  });

  it('every subpath has its named export', async () => {
    for (const [name, expected] of Object.entries(ENTRY_POINTS)) {
      const module: Record<string, unknown> = await import(name);
      if (expected === null) expect(Object.keys(module), name).toEqual([]);
      else expect(module[expected], `${expected} from ${name}`).toBeDefined();
    }
  });

  it('every browser entry point bundles for the browser with no Node built-in, and the others are the Node ones', async () => {
    const reachesNode: string[] = [];
    for (const module of SDK_MODULES) {
      const result = await build({
        absWorkingDir: REPO_ROOT,
        entryPoints: [module.source],
        bundle: true,
        platform: 'browser',
        write: false,
        logLevel: 'silent',
        metafile: true,
      }).catch((error: { errors?: Array<{ text: string }> }) => ({ failed: error.errors?.map((e) => e.text) ?? [] }));
      if ('failed' in result) reachesNode.push(module.subpath);
      else if (Object.values(result.metafile.inputs).some((i) => i.imports.some((x) => x.path.startsWith('node:'))))
        reachesNode.push(module.subpath);
    }
    expect(reachesNode).toEqual(SDK_MODULES.filter((module) => !module.browser).map((module) => module.subpath));
  });
});

describe('README.md', () => {
  it('imports in its TypeScript samples only through these subpaths (or node:), names each one exports', async () => {
    const samples = [
      ...readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8').matchAll(/```ts\n([\s\S]*?)\n```/g),
    ].map((match) => match[1]!);
    const lines = samples.flatMap((sample) => sample.split('\n').filter((line) => line.startsWith('import ')));
    const imports = lines
      .map((line) => /^import \{([^}]+)\} from '([^']+)';$/.exec(line))
      .filter((match) => match !== null);
    expect(
      imports.map((match) => match[0]),
      "every import is `import { … } from '…';`",
    ).toEqual(lines);
    expect(imports.length).toBeGreaterThan(0);
    for (const [, names, from] of imports) {
      if (from!.startsWith('node:')) continue;
      expect(Object.keys(ENTRY_POINTS), from).toContain(from);
      const module: Record<string, unknown> = await import(from!);
      for (const name of names!.split(',').map((n) => n.trim()))
        expect(module[name], `${name} from ${from}`).toBeDefined();
    }
  });
});

describe('the entry points at work', () => {
  it('@svckit/sdk/webhooks/verifier verifies a signed delivery and refuses a tampered one', () => {
    const body = JSON.stringify({ event: 'payment.settled', txRef: 'TXN20260101-ABCDEFGH' });
    const timestamp = '1767225600';
    const headers = {
      'X-SVC-Signature': `sha256=${createHmac('sha256', 'a-shared-secret').update(`${timestamp}.${body}`).digest('hex')}`,
      'X-SVC-Timestamp': timestamp,
      'X-SVC-Event': 'payment.settled',
      'X-SVC-Delivery': '0b9f3c1e-5d2a-4c8e-9f61-2a7d4e8b1c03',
    };
    const now = Number(timestamp) * 1000;
    expect(verifyWebhook(body, headers, 'a-shared-secret', { now })).toEqual({
      event: 'payment.settled',
      deliveryId: '0b9f3c1e-5d2a-4c8e-9f61-2a7d4e8b1c03',
      timestamp: Number(timestamp),
      replayKey: createHash('sha256').update(`${timestamp}.${body}`).digest('hex'),
      payload: JSON.parse(body),
    });
    expect(() => verifyWebhook(body.replace('ABCDEFGH', 'ABCDEFGX'), headers, 'a-shared-secret', { now })).toThrow(
      WebhookVerificationError,
    );
    expect(verifyFromClient).toBe(verifyWebhook);
  });

  it('@svckit/sdk/client signs every request of an SDK client with ML-DSA-65, and has the session login', async () => {
    const keys = mlDsa65.keygen();
    const use: ((request: Request) => Request | Promise<Request>)[] = [];
    signRequestsWithMldsa({ interceptors: { request: { use: (fn) => use.push(fn) } } }, keys, () => 1_767_225_600_000);
    const signed = await use[0]!(new Request('https://svckit.test/wallet/api/v1/accounts?limit=5'));
    const [publicKey, timestamp, signature] = signed.headers.get('Authorization')!.replace('SVC-MLDSA ', '').split('.');
    expect([publicKey, timestamp]).toEqual([toHex(keys.publicKey), '1767225600000']);
    expect(
      mlDsa65.verify(
        keys.publicKey,
        new TextEncoder().encode('1767225600000:GET:/wallet/api/v1/accounts?limit=5'),
        fromHex(signature!),
      ),
    ).toBe(true);
    expect(mldsaAuthorization(keys, 'get', '/x', 1)).toMatch(/^SVC-MLDSA [0-9a-f]{3904}\.1\.[0-9a-f]+$/);
    expect(login).toBeTypeOf('function');
  });

  it('@svckit/sdk/crypto hashes and signs', () => {
    expect(toHex(sha3_256(new Uint8Array()))).toBe('a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a');
    const keys = mlDsa65.keygen();
    const message = new TextEncoder().encode('svckit');
    expect(mlDsa65.verify(keys.publicKey, message, mlDsa65.sign(keys.secretKey, message))).toBe(true);
  });

  it("@svckit/sdk/wallet-library derives the BIP-39 test mnemonic's addresses", () => {
    const wallet = Wallet.fromMnemonic(MNEMONIC);
    expect(wallet.address('1')).toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
    expect(wallet.address('bitcoin')).toBe('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
    expect(wallet.address('tron')).toBe('TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH');
    expect(toChecksumAddress('0x9858effd232b4033e47d90003d41ec34ecaeda94')).toBe(
      '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
    );
    expect(evmAddress).toBeTypeOf('function');
  });

  it("@svckit/sdk/<surface> and its /client build each surface's requests and return its errors", async () => {
    const answered = async (
      surface: string,
      call: (fetch: typeof globalThis.fetch) => Promise<{ error?: unknown; response?: Response }>,
    ) => {
      const { fetch, seen } = recordingFetch(notFound);
      const result = await call(fetch);
      expect(result.error, surface).toEqual({ error: { code: 'not_found', message: 'no such thing' } });
      return `${result.response?.status} ${seen[0]!.method} ${seen[0]!.url}`;
    };
    const at = (base: string, fetch: typeof globalThis.fetch) => ({ baseUrl: `https://svckit.test${base}`, fetch });
    expect(
      await answered('institutional', (fetch) =>
        institutionalGetAccount({
          client: institutionalClient(at('/wallet/api/v1', fetch)),
          path: { id: 'acc_01JD3Z8Q4V6WQ8N2K7M5R9T3XA' },
        }),
      ),
    ).toBe('404 GET https://svckit.test/wallet/api/v1/accounts/acc_01JD3Z8Q4V6WQ8N2K7M5R9T3XA');
    expect(await answered('explorer', (fetch) => explorerGetStats({ client: explorerClient(at('/api', fetch)) }))).toBe(
      '404 GET https://svckit.test/api/stats',
    );
    expect(
      await answered('wallet', (fetch) => walletGetFeeConfig({ client: walletSessionClient(at('', fetch)) })),
    ).toBe('404 GET https://svckit.test/fees/config');
    expect(await answered('admin', (fetch) => adminGetHealth({ client: adminClient(at('/admin/v1', fetch)) }))).toBe(
      '404 GET https://svckit.test/admin/v1/health',
    );
  });

  it("@svckit/sdk/chain calls JSON-RPC methods and throws the server's errors", async () => {
    const answers = [
      { jsonrpc: '2.0', id: 1, result: '0x10f447' },
      { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'method not found' } },
    ];
    const { fetch, seen } = recordingFetch(() => Response.json(answers.shift()));
    const rpc = createChainRpcClient({ url: 'https://svckit.test/chain', fetch });
    expect(await rpc.call('eth_chainId')).toBe('0x10f447');
    await expect(rpc.call('eth_blockNumber')).rejects.toMatchObject({ constructor: ChainRpcError, code: -32601 });
    expect(await seen[0]!.json()).toEqual({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });
  });

  it('@svckit/sdk/webhooks types a payload that @svckit/sdk/webhooks/schemas validates', () => {
    const payload: PaymentSettledPayload = {
      event: 'payment.settled',
      uetr: '8a562c67-ca16-48ba-b074-65581be6f011',
      txRef: 'PMT-20260101-0123456789AB',
      status: 'SETTLED',
      instrAmtCcy: 'EUR',
      instrAmt: 100,
      settlAmtCcy: 'SVC',
      settlAmt: 105,
      onChainTxHash: `0x${'ab'.repeat(32)}`,
      sttlmTm: '2026-01-01T00:00:00.000Z',
      dbtrInst: 'BANKDEFFXXX',
      cdtrInst: 'BANKGB2LXXX',
    };
    const ajv = new Ajv({ strict: false });
    addFormats.default(ajv);
    ajv.addSchema({ $id: 'webhooks', $defs: webhookSchemaDefs });
    const validate = ajv.getSchema(`webhooks#/$defs/${webhookMessageByEvent['payment.settled']}Payload`)!;
    expect(validate(payload), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...payload, status: 'LOST' })).toBe(false);
  });

  it('@svckit/sdk/evidence/schema compiles and refuses a document without its required fields', () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    const validate = ajv.compile<PqcEvidenceDocument>(pqcEvidenceSchema);
    expect(validate({})).toBe(false);
    expect(validate.errors?.[0]?.keyword).toBe('required');
  });
});
