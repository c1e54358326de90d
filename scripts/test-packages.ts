/**
 * The tarball test (D-229, D-230), run by .ci/run: both packages as users get them, outside the checkout.
 *
 * 1. `npm pack` both packages (svckit's prepack builds everything), and `npm publish --dry-run` each.
 * 2. In a fresh folder outside the repository, install both tarballs; there:
 *    - `npx svckit serve` on ephemeral ports until its ready line, then
 *      `npx svckit conformance --base … --only explorer chain` against it: 0 failed;
 *    - `npx svckit conformance --only explorer` with the default in-process target: 0 failed.
 * 3. In a second fresh folder, install only `@svckit/sdk`; there:
 *    - import every subpath from the system's Node 20, from Node 22 and from Node 26, ESM;
 *    - type-check a consumer project with `moduleResolution` `nodenext` and `bundler`, `skipLibCheck` off;
 *    - run the README's SDK example as written against the stack of step 2, on Node 26 and Node 22 (hybrid TLS);
 *    - bundle a browser entry with esbuild and run it in headless Chromium against the same stack.
 * 4. Record the tarball sizes and the installed package counts (printed, and written as packages.json into
 *    SVCKIT_TEST_REPORT_DIR when it is set).
 *
 * Nothing run in the two folders can see the checkout: their PATH has no folder of it, and they resolve
 * packages from their own node_modules. The orchestration (this file, esbuild, tsc, playwright) is the
 * checkout's tooling, pointed at the installed packages.
 *
 *   npm run test:packages
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_FLAGS, spkiHash } from '../test/chromium.ts';
import { REPO_ROOT } from '../src/paths.ts';
import { installPackages, outsideEnv, packPackages } from './packages/pack.ts';

const SYSTEM_NODE = '/usr/bin/node';
const work = mkdtempSync(path.join(tmpdir(), 'svckit-packages-'));
const failures: string[] = [];
const figures: Record<string, unknown> = {};

function step(title: string) {
  console.log(`\n== ${title}`);
}
function check(ok: boolean, what: string, detail = '') {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${detail ? `: ${detail}` : ''}`);
  if (!ok) failures.push(what);
}
/** Runs a command in `cwd` with the outside environment; returns status and output. */
function run(cwd: string, command: string, args: string[], extra: Record<string, string> = {}) {
  try {
    const stdout = execFileSync(command, args, {
      cwd,
      env: outsideEnv(extra),
      encoding: 'utf8',
      maxBuffer: 64 << 20,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 600_000,
    });
    return { status: 0, stdout, stderr: '' };
  } catch (error) {
    const e = error as { status?: number; stdout?: string; stderr?: string };
    return { status: e.status ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? String(error) };
  }
}
/** The summary line of a conformance run: the last line that is exactly "N passed, M failed, K skipped". */
function tally(output: string) {
  const match = [...output.matchAll(/^(\d+) passed, (\d+) failed, (\d+) skipped$/gm)].at(-1);
  return match ? { passed: Number(match[1]), failed: Number(match[2]), skipped: Number(match[3]) } : undefined;
}

/** Runs `npx svckit conformance <args> --quiet` in `folder`; checks it ran with 0 failed and returns its tally. */
function conformance(folder: string, what: string, args: string[]) {
  const result = run(folder, 'npx', ['--no-install', 'svckit', 'conformance', ...args, '--quiet']);
  const counts = tally(result.stdout);
  check(
    result.status === 0 && counts !== undefined && counts.failed === 0 && counts.passed > 0,
    `${what}: 0 failed`,
    counts ? JSON.stringify(counts) : `${result.stdout.slice(-2000)}${result.stderr.slice(-2000)}`,
  );
  return counts;
}

/** Starts `npx svckit serve` and resolves with its ready event. */
function serve(cwd: string): Promise<{
  child: ChildProcess;
  ready: { base: string; wallet: string; site: string; caCert: string };
  output: () => string;
}> {
  const child = spawn('npx', ['--no-install', 'svckit', 'serve'], {
    cwd,
    env: outsideEnv({
      SVC_BASE_PORT: '0',
      SVC_WALLET_PORT: '0',
      SVC_SITE_PORT: '0',
      SVC_DATA_DIR: path.join(cwd, '.data'),
      SVC_LOG_LEVEL: 'warn',
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line in 120 s:\n${output}`)), 120_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      for (const line of output.split('\n')) {
        if (!line.includes('"event":"ready"')) continue;
        clearTimeout(timer);
        resolve({ child, ready: JSON.parse(line), output: () => output });
        return;
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`svckit serve exited (${code}) before its ready line:\n${output}`));
    });
  });
}

/** Stops the serve process group and waits for it. */
async function stop(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid!, 'SIGINT');
  const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}

/** The HTTP status of one GET of `url` over TLS trusting `caCert` (0 when it fails). */
function statusOf(url: URL, caCert: string): Promise<number> {
  const ca = readFileSync(caCert, 'utf8');
  return new Promise<number>((resolve) => {
    const request = https.get(url, { ca }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', () => resolve(0));
  });
}

/** Polls the evidence document until it answers 200 (the build runs in the background), the build fails, or 300 s pass. */
async function evidenceServed(url: URL, caCert: string, failed: () => boolean): Promise<number> {
  const ca = readFileSync(caCert, 'utf8');
  const status = () =>
    new Promise<number>((resolve) => {
      const request = https.get(url, { ca }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on('error', () => resolve(0));
    });
  let last = 0;
  for (const deadline = Date.now() + 300_000; Date.now() < deadline; ) {
    last = await status();
    if (last === 200 || failed()) break;
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
  return last;
}

/** The README's SDK example: the first ```js block under "Install as a package". */
function readmeExample(): string {
  const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Install as a package'));
  const match = /```js\n([\s\S]*?)\n```/.exec(section);
  if (!match?.[1]) throw new Error('README.md has no ```js block under "## Install as a package"');
  return match[1];
}

let served: ChildProcess | undefined;
try {
  step('pack');
  const tarballs = packPackages(path.join(work, 'tarballs'));
  for (const t of [tarballs.svckit, tarballs.sdk])
    console.log(`${t.name}@${t.version}: ${t.size} bytes packed, ${t.unpackedSize} unpacked, ${t.entryCount} files`);
  figures.tarballs = tarballs;
  for (const args of [[], ['--workspace', '@svckit/sdk']]) {
    // The packages were just built by the pack above; the dry run checks what npm would publish, as it is.
    const published = run(REPO_ROOT, 'npm', ['publish', '--dry-run', '--ignore-scripts', ...args]);
    check(
      published.status === 0,
      `npm publish --dry-run ${args.join(' ')}`.trim(),
      published.stderr
        .split('\n')
        .filter((line) => line.includes('+ ') || line.includes('ERR'))
        .join(' '),
    );
  }

  step('install both packages outside the checkout');
  const app = installPackages(path.join(work, 'app'), [tarballs.sdk.file, tarballs.svckit.file]);
  console.log(`${app.packages} packages in ${app.seconds.toFixed(1)} s`);
  figures.svckitInstall = app;
  const node26 = path.join(app.folder, 'node_modules/node/bin/node');

  step('npx svckit serve, then npx svckit conformance --base … --only explorer chain');
  const started = await serve(app.folder);
  served = started.child;
  const { ready } = started;
  check(ready.base.startsWith('https://'), 'svckit serve printed its ready line', ready.base);
  figures.conformanceByUrl = conformance(app.folder, 'conformance --base … --only explorer chain', [
    '--base',
    ready.base,
    '--ca-cert',
    ready.caCert,
    '--only',
    'explorer',
    'chain',
  ]);

  step('the SDK alone, in a second folder');
  const sdk = installPackages(path.join(work, 'sdk'), [tarballs.sdk.file]);
  console.log(`${sdk.packages} packages in ${sdk.seconds.toFixed(1)} s`);
  figures.sdkInstall = sdk;
  check(sdk.packages <= 30, '@svckit/sdk installs at most 30 packages', String(sdk.packages));
  const manifest = JSON.parse(readFileSync(path.join(sdk.folder, 'node_modules/@svckit/sdk/package.json'), 'utf8')) as {
    exports: Record<string, unknown>;
    dependencies: Record<string, string>;
  };
  const subpaths = Object.keys(manifest.exports)
    .filter((subpath) => subpath !== './package.json')
    .map((subpath) => `@svckit/sdk${subpath.slice(1)}`);
  const forbidden = [
    'fastify',
    '@electric-sql/pglite',
    'pg',
    'ioredis',
    'prool',
    'node',
    '@foundry-rs/anvil-linux-amd64',
  ];
  check(
    !Object.keys(manifest.dependencies).some((name) => forbidden.includes(name)),
    '@svckit/sdk depends on no server, database, chain or runtime package',
    Object.keys(manifest.dependencies).join(', '),
  );

  writeFileSync(
    path.join(sdk.folder, 'import-all.mjs'),
    `const found = {};\nfor (const name of ${JSON.stringify(subpaths)}) found[name] = Object.keys(await import(name)).length;\nconsole.log(JSON.stringify({ node: process.version, found }));\n`,
  );
  // Node 22 (the other maintained line the SDK claims) comes from the npm `node` package, in a folder of its own
  // so the SDK folder's package count stays the SDK's.
  const node22Binary = path.join(
    installPackages(path.join(work, 'node22'), ['node@22']).folder,
    'node_modules/node/bin/node',
  );
  for (const [label, node] of [
    ['Node 20 (the system)', SYSTEM_NODE],
    ['Node 22', node22Binary],
    ['Node 26', node26],
  ] as const) {
    const imported = run(sdk.folder, node, ['import-all.mjs']);
    const result =
      imported.status === 0
        ? (JSON.parse(imported.stdout) as { node: string; found: Record<string, number> })
        : undefined;
    check(
      result !== undefined && Object.keys(result.found).length === subpaths.length,
      `${label} imports all ${subpaths.length} subpaths`,
      result ? result.node : imported.stderr.slice(-2000),
    );
  }

  writeFileSync(
    path.join(sdk.folder, 'consumer.ts'),
    [
      "import { createClient } from '@svckit/sdk/explorer/client';",
      "import { explorerGetStats, type ChainStats } from '@svckit/sdk/explorer';",
      "import { createChainRpcClient } from '@svckit/sdk/chain';",
      "import type { PaymentSettledPayload } from '@svckit/sdk/webhooks';",
      "import { verifyWebhook } from '@svckit/sdk/webhooks/verifier';",
      "import { signRequestsWithMldsa } from '@svckit/sdk/signer';",
      "import { Wallet } from '@svckit/sdk/wallet-library';",
      "import { svcIdOfSeed } from '@svckit/sdk/wallet-library/browser';",
      "import type { PqcEvidenceDocument } from '@svckit/sdk/evidence';",
      "import { SvcError } from '@svckit/sdk/errors';",
      '',
      "const client = createClient({ baseUrl: 'https://localhost:8443/api' });",
      'const stats = await explorerGetStats({ client });',
      'const height: number | undefined = (stats.data as ChainStats | undefined)?.blockNumber;',
      "const rpc = createChainRpcClient({ url: 'https://localhost:8443/rpc' });",
      "const chainId: string = await rpc.call('eth_chainId');",
      "const settled: PaymentSettledPayload['status'] = 'SETTLED';",
      'const document: PqcEvidenceDocument | undefined = undefined;',
      'export { height, chainId, settled, document, verifyWebhook, signRequestsWithMldsa, Wallet, svcIdOfSeed, SvcError };',
      '',
    ].join('\n'),
  );
  for (const resolution of ['nodenext', 'bundler'] as const) {
    const tsconfig = {
      compilerOptions: {
        target: 'ES2022',
        module: resolution === 'nodenext' ? 'nodenext' : 'esnext',
        moduleResolution: resolution,
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        lib: ['ES2022', 'DOM'],
        types: ['node'],
        typeRoots: [path.join(REPO_ROOT, 'node_modules/@types')],
      },
      files: ['consumer.ts'],
    };
    writeFileSync(path.join(sdk.folder, `tsconfig.${resolution}.json`), JSON.stringify(tsconfig, null, 2));
    const checked = run(sdk.folder, path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), [
      '-p',
      `tsconfig.${resolution}.json`,
    ]);
    check(
      checked.status === 0,
      `a consumer type-checks with moduleResolution ${resolution}`,
      `${checked.stdout}${checked.stderr}`.slice(0, 3000),
    );
  }

  step("the README's SDK example, as written, against the installed svckit serve");
  const readmeCode = readmeExample();
  const sdkReadme = readFileSync(path.join(sdk.folder, 'node_modules/@svckit/sdk/README.md'), 'utf8');
  check(sdkReadme.includes(`\`\`\`js\n${readmeCode}\n\`\`\``), "the installed SDK's README shows the same example");
  writeFileSync(path.join(sdk.folder, 'readme-example.mjs'), `${readmeCode}\n`);
  // Node 26 and Node 22 with OpenSSL 3.5 offer X25519MLKEM768, as the README says.
  for (const [label, node] of [
    ['Node 26', node26],
    ['Node 22', node22Binary],
  ] as const) {
    const example = run(sdk.folder, node, ['readme-example.mjs'], {
      SVCKIT_BASE_URL: ready.base,
      NODE_EXTRA_CA_CERTS: ready.caCert,
    });
    check(
      example.status === 0 && /blockNumber/.test(example.stdout) && !/error/i.test(example.stdout),
      `${label}: the README's example reads the chain statistics over hybrid TLS`,
      `${example.stdout}${example.stderr}`.slice(0, 2000),
    );
  }

  step('a browser bundle of the SDK in headless Chromium');
  writeFileSync(
    path.join(sdk.folder, 'browser-entry.js'),
    [
      "import { createClient } from '@svckit/sdk/explorer/client';",
      "import { explorerGetStats } from '@svckit/sdk/explorer';",
      "import { createChainRpcClient } from '@svckit/sdk/chain';",
      "import { svcIdOfSeed } from '@svckit/sdk/wallet-library/browser';",
      'window.sdkResult = (async () => {',
      "  const { data, error } = await explorerGetStats({ client: createClient({ baseUrl: location.origin + '/api' }) });",
      "  const chainId = await createChainRpcClient({ url: location.origin + '/rpc' }).call('eth_chainId');",
      '  const svcId = await svcIdOfSeed(new Uint8Array(64).fill(7));',
      '  return { data, error, chainId, svcId };',
      '})();',
    ].join('\n'),
  );
  const bundled = await build({
    absWorkingDir: sdk.folder,
    entryPoints: ['browser-entry.js'],
    bundle: true,
    platform: 'browser',
    format: 'iife',
    write: false,
    logLevel: 'silent',
    metafile: true,
  });
  const nodeBuiltins = Object.values(bundled.metafile.inputs).flatMap((input) =>
    input.imports.filter((imported) => imported.path.startsWith('node:')).map((imported) => imported.path),
  );
  check(nodeBuiltins.length === 0, 'the browser bundle has no Node built-in', nodeBuiltins.join(', '));
  const script = bundled.outputFiles[0]!.text;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      ...CHROMIUM_FLAGS,
      `--ignore-certificate-errors-spki-list=${await spkiHash(new URL(ready.base), readFileSync(ready.caCert, 'utf8'))}`,
    ],
  });
  try {
    const page = await browser.newPage();
    const pageUrl = new URL('/sdk-tarball-test.html', ready.base).href;
    // The page is served at the base origin by the browser itself, so its fetches are same-origin, real requests.
    await page.route(pageUrl, (route) =>
      route.fulfill({ contentType: 'text/html', body: `<!doctype html><script>${script}</script>` }),
    );
    await page.goto(pageUrl);
    const result = (await page.evaluate('window.sdkResult')) as {
      data?: { blockNumber?: number };
      error?: unknown;
      chainId?: string;
      svcId?: string;
    };
    check(
      typeof result.data?.blockNumber === 'number' && result.chainId === '0x10f447' && typeof result.svcId === 'string',
      'Chromium runs the bundle: /api/stats, eth_chainId and a wallet identity over hybrid TLS',
      JSON.stringify(result),
    );
  } finally {
    await browser.close();
  }

  step('the administrator console, built when the package was packed (D-271)');
  for (const pathname of ['/console/', '/console/assets/console.js', '/console/assets/console.css']) {
    const status = await statusOf(new URL(pathname, ready.base), ready.caCert);
    check(status === 200, `the installed svckit serve answers ${pathname}`, `status ${status}`);
  }

  step('the evidence document, built by the installed svckit serve (surface F)');
  const evidence = await evidenceServed(new URL('/.well-known/pqc-evidence.json', ready.site), ready.caCert, () =>
    started.output().includes('the evidence build failed'),
  );
  const evidenceLog = started
    .output()
    .split('\n')
    .filter((line) => line.startsWith('svckit serve:') || line.startsWith('svckit evidence') || line.startsWith('  '))
    .join(' | ');
  check(evidence === 200, 'svckit serve built and serves its evidence document', `status ${evidence}; ${evidenceLog}`);
  figures.conformanceEvidence = conformance(app.folder, 'conformance --site … --only evidence', [
    '--site',
    ready.site,
    '--ca-cert',
    ready.caCert,
    '--only',
    'evidence',
  ]);

  step('npx svckit diff on the contracts the package ships, and svckit proxy');
  {
    // The shipped chain contract against a copy without its first method: one breaking change, exit 1.
    const shipped = path.join(app.folder, 'node_modules/svckit/specs/chain.openrpc.json');
    const contract = JSON.parse(readFileSync(shipped, 'utf8')) as { methods: { name: string }[] };
    const removed = contract.methods.shift()?.name;
    const changed = path.join(work, 'chain-without-a-method.openrpc.json');
    writeFileSync(changed, JSON.stringify(contract));
    const same = run(app.folder, 'npx', ['--no-install', 'svckit', 'diff', shipped, shipped, '--fail-on', 'breaking']);
    check(same.status === 0, 'svckit diff of a contract against itself exits 0', same.stderr.slice(-300));
    const diff = run(app.folder, 'npx', [
      ...['--no-install', 'svckit', 'diff', shipped, changed, '--fail-on', 'breaking', '--format', 'json'],
    ]);
    check(
      diff.status === 1 && diff.stdout.includes('openrpc.method_removed') && diff.stdout.includes(String(removed)),
      `svckit diff reports ${removed} removed as breaking and exits 1`,
      `exit ${diff.status}: ${diff.stdout.slice(0, 300)} ${diff.stderr.slice(-300)}`,
    );
    const proxy = run(app.folder, 'npx', ['--no-install', 'svckit', 'proxy', '--help']);
    check(proxy.status === 0 && proxy.stdout.includes('--upstream'), 'svckit proxy is in the package', proxy.stderr);
  }

  step('npx svckit conformance --only explorer, the default in-process target');
  await stop(served);
  served = undefined;
  figures.conformanceInProcess = conformance(app.folder, 'conformance --only explorer (in-process reference)', [
    '--only',
    'explorer',
  ]);
} catch (error) {
  failures.push(error instanceof Error ? error.message : String(error));
  console.error(error);
} finally {
  if (served) await stop(served).catch(() => undefined);
  const reportDir = process.env.SVCKIT_TEST_REPORT_DIR;
  if (reportDir)
    writeFileSync(path.join(reportDir, 'packages.json'), `${JSON.stringify({ ...figures, failures }, null, 2)}\n`);
  rmSync(work, { recursive: true, force: true });
}

console.log(
  `\n${failures.length === 0 ? 'the tarball test passed' : `the tarball test failed: ${failures.join('; ')}`}`,
);
process.exitCode = failures.length === 0 ? 0 : 1;
