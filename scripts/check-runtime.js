// Fails fast, with a clear message, when `npm test` or `npm start` would run on a Node other than
// the pinned Node 26 (DESIGN.md: the npm `node` package provides it; npm run-scripts put it first on PATH).
const major = Number(process.versions.node.split('.')[0]);
const [opensslMajor, opensslMinor] = process.versions.openssl.split('.').map(Number);
if (major < 26 || opensslMajor < 3 || (opensslMajor === 3 && opensslMinor < 5)) {
  console.error(
    `svckit needs Node 26 with OpenSSL >= 3.5 (ML-DSA, ML-KEM, X25519MLKEM768); this is Node ${process.versions.node} ` +
      `with OpenSSL ${process.versions.openssl}. Run it through npm (npm test, npm start), which puts ` +
      `node_modules/.bin/node first on PATH, after \`npm ci\`.`,
  );
  process.exit(2);
}
