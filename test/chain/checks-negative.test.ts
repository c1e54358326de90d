// The surface C and transport checks must fail a target that breaks the rules, not only pass a good one.
// The target here is a deliberately non-conforming JSON-RPC server: geth-style error messages, wrong chain
// and network IDs, a 1 gwei gas price, SHA3-256 instead of keccak-256, classical TLS and TLS 1.2 allowed,
// and an nginx-style answer to plain HTTP on its TLS port.
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sha3_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, hexToBytes } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../conformance/checks/index.ts';
import { runChecks, type CheckResult } from '../../conformance/runner.ts';
import { remoteTarget } from '../../conformance/targets/remote.ts';
import { ensureDevCertificates } from '../../src/server/tls/dev-certificates.ts';
import { httpsOptions } from '../../src/server/tls/tls-options.ts';

type Req = { id?: unknown; method?: string; params?: unknown[] };

/** Answers like a careless node: wrong values and error objects whose message carries the detail. */
function answer(req: Req): unknown {
  const ok = (result: unknown) => ({ jsonrpc: '2.0', id: req.id ?? null, result });
  const fail = (code: number, message: string) => ({ jsonrpc: '2.0', id: req.id ?? null, error: { code, message } });
  switch (req.method) {
    case 'eth_chainId':
      return ok('0x1');
    case 'net_version':
      return ok('1');
    case 'eth_gasPrice':
      return ok('0x3b9aca00');
    case 'eth_blockNumber':
      return ok('0x0');
    case 'eth_getBlockByNumber':
      return ok({ number: '0x0', baseFeePerGas: '0x7', transactions: [] });
    case 'web3_sha3':
      return ok(bytesToHex(sha3_256(hexToBytes(String(req.params?.[0]) as `0x${string}`))));
    default:
      return fail(-32601, `the method ${String(req.method)} does not exist/is not available`);
  }
}

let dir: string;
let tlsServer: https.Server;
let front: net.Server;
let results: Map<string, CheckResult>;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'svckit-bad-'));
  const material = await ensureDevCertificates(dir, []);
  tlsServer = https.createServer({ ...httpsOptions(material, true), minVersion: 'TLSv1.2' }, (req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c));
    req.on('end', () => {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = {};
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(Array.isArray(body) ? body.map((r: Req) => answer(r)) : answer(body as Req)));
    });
  });
  await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
  const inner = (tlsServer.address() as net.AddressInfo).port;
  // One public port for both: TLS records (first byte 0x16) are piped to the HTTPS server, anything else
  // gets a plain-HTTP 400, as some proxies answer.
  front = net.createServer((socket) => {
    socket.once('data', (first: Buffer) => {
      if (first[0] !== 0x16) {
        socket.end(
          'HTTP/1.1 400 Bad Request\r\nContent-Length: 47\r\n\r\nThe plain HTTP request was sent to HTTPS port\r\n',
        );
        return;
      }
      const upstream = net.connect(inner, '127.0.0.1', () => upstream.write(first));
      socket.pipe(upstream).pipe(socket);
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
    });
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const { port } = front.address() as net.AddressInfo;
  const target = remoteTarget({ base: `https://127.0.0.1:${port}`, caCert: material.caCert });
  const list = await runChecks(buildCatalogue(), target, { only: ['chain', 'transport'] });
  results = new Map(list.map((r) => [r.id, r]));
});
afterAll(async () => {
  front?.close();
  tlsServer?.close();
  rmSync(dir, { recursive: true, force: true });
});

const status = (id: string) => results.get(id)?.status;
const reason = (id: string) => results.get(id)?.reason ?? '';

describe('the checks against a non-conforming target', () => {
  it('fail the wrong chain ID, network ID, gas price and hash function', () => {
    expect(status('chain.eth_chainid.value')).toBe('failed');
    expect(reason('chain.eth_chainid.value')).toContain('eth_chainId expected "0x10f447"');
    expect(status('chain.net_version')).toBe('failed');
    expect(reason('chain.gas_price_zero')).toBe(
      'eth_gasPrice expected "0x0", got "0x3b9aca00"; latest block baseFeePerGas expected "0x0", got "0x7"',
    );
    expect(status('chain.web3_sha3.value')).toBe('failed');
    expect(reason('chain.web3_sha3.value')).toMatch(/web3_sha3\(0x68656c6c6f…\) expected 0x1c8aff95/);
  });

  it('fail error objects whose code or message differs from the contract', () => {
    expect(reason('chain.errors.method_not_found')).toContain('error message expected "Method not found"');
    expect(reason('chain.errors.method_not_enabled')).toContain(
      'error code expected -32604 (MethodNotEnabled), got -32601',
    );
    expect(reason('chain.batch.empty')).toMatch(/expected one JSON-RPC response object, got \[\]/);
    expect(status('chain.methods.schemas')).toBe('failed');
  });

  it('fail classical-only and TLS 1.2 handshakes and a plain-HTTP answer, while the hybrid group still passes', () => {
    expect(status('transport.tls.hybrid_group')).toBe('passed');
    expect(reason('transport.tls.classical_refused')).toMatch(
      /a classical-only client completed a handshake \(TLSv1\.3, group X25519\)/,
    );
    expect(reason('transport.tls.legacy_version_refused')).toMatch(
      /a TLS 1\.2 client completed a handshake \(TLSv1\.2/,
    );
    expect(reason('transport.plain_http_refused')).toContain('answered plain HTTP: "HTTP/1.1 400 Bad Request');
  });

  it('skip, never pass, the checks that must drive the chain', () => {
    for (const id of [
      'chain.methods.schemas_with_transactions',
      'chain.receipt.null_while_pending',
      'chain.qbft.votes',
    ]) {
      expect(status(id)).toBe('skipped');
    }
  });
});
