#!/usr/bin/env node
// The `svckit` command. Plain JavaScript that any Node from 18 on can parse, so an older Node gets told what
// to do instead of failing obscurely.
//
// - The server and the harness need Node 26 with OpenSSL >= 3.5 (ML-DSA, ML-KEM, X25519MLKEM768). The package
//   depends on the npm `node` package, which installs that runtime beside it; on any other Node this file runs
//   itself again on that runtime (D-228).
// - In a checkout (cli/main.ts is beside this file) it runs the TypeScript sources through tsx, so the
//   development flow needs no build; the installed package has no sources and runs the compiled dist/cli/
//   (D-230), with no TypeScript loader.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = fileURLToPath(import.meta.url);
const root = path.dirname(path.dirname(here));

/** Whether this Node can run the server and the harness. */
function capable(versions) {
  const major = Number(versions.node.split('.')[0]);
  const [opensslMajor, opensslMinor] = (versions.openssl ?? '0.0').split('.').map(Number);
  return major >= 26 && (opensslMajor > 3 || (opensslMajor === 3 && opensslMinor >= 5));
}

/** The Node 26 binary the `node` dependency installed, when it is there. */
function pinnedNode() {
  for (let dir = root; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', 'node', 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
    if (existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}

if (!capable(process.versions)) {
  const pinned = process.env.SVCKIT_REEXEC === '1' ? undefined : pinnedNode();
  if (pinned === undefined) {
    console.error(
      [
        `svckit needs Node 26 with OpenSSL >= 3.5 (for ML-DSA, ML-KEM and X25519MLKEM768 TLS); this is Node ${process.versions.node} with OpenSSL ${process.versions.openssl}.`,
        'The package installs that runtime through its `node` dependency, whose install script did not run here (installed with --ignore-scripts, or the script not approved). Either:',
        '  - reinstall without --ignore-scripts: npm install svckit',
        '  - or, where npm asks for approval of install scripts: npm install-scripts approve node, then npm rebuild node',
        '  - or run it on Node 26: npx -y -p node@26 -p svckit svckit <command>',
        '  - or install Node 26 from https://nodejs.org and run svckit with it.',
      ].join('\n'),
    );
    process.exit(2);
  }
  const child = spawn(pinned, [here, ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, SVCKIT_REEXEC: '1' },
  });
  // The child owns shutdown: signals are passed on, and this process ends with the child's code.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
} else if (existsSync(path.join(root, 'cli', 'main.ts'))) {
  const { register } = await import('tsx/esm/api');
  // The checkout's tsconfig maps @svckit/sdk/* to the SDK's sources, whatever the working directory.
  register({ tsconfig: path.join(root, 'tsconfig.json') });
  await import(pathToFileURL(path.join(root, 'cli', 'main.ts')).href);
} else {
  await import(pathToFileURL(path.join(root, 'dist', 'cli', 'main.js')).href);
}
