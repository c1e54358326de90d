// The floor of a second hop, for `npm run bench -- proxy`: a pass-through HTTPS forwarder that judges nothing,
// with the same TLS groups, keep-alive upstream agent and whole-answer buffering as `svckit proxy` (D-250, D-251).
// Its added latency is what any proxy in front of the stack costs on this machine.
//
//   node scripts/bench/bare-forwarder.mjs <upstream origin> <upstream CA file> <tls dir>
// prints `listening <origin>` on stdout once it listens on 127.0.0.1.
import { readFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';

const [upstream, caFile, tlsDir] = process.argv.slice(2);
const agent = new https.Agent({ keepAlive: true, maxSockets: 64, ca: readFileSync(caFile, 'utf8') });
const server = https.createServer(
  {
    key: readFileSync(path.join(tlsDir, 'server-key.pem')),
    cert: readFileSync(path.join(tlsDir, 'server.pem')),
    ecdhCurve: 'X25519MLKEM768',
  },
  (req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const headers = { ...req.headers, host: new URL(upstream).host };
      const out = https.request(`${upstream}${req.url}`, { method: req.method, headers, agent }, (answer) => {
        const body = [];
        answer.on('data', (c) => body.push(c));
        answer.on('end', () => {
          const { connection: _c, 'keep-alive': _k, 'transfer-encoding': _t, ...rest } = answer.headers;
          res.writeHead(answer.statusCode ?? 502, rest);
          res.end(Buffer.concat(body));
        });
      });
      out.on('error', () => {
        res.writeHead(502);
        res.end();
      });
      out.end(Buffer.concat(chunks));
    });
  },
);
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening https://127.0.0.1:${server.address().port}\n`));
process.on('SIGTERM', () => process.exit(0));
