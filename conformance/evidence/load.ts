// Loads an evidence document from a file or an http(s) URL (optionally trusting an extra CA, such as
// the reference stack's development CA).
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** Reads and parses the document; errors name the source. */
export async function loadEvidenceDocument(
  source: string,
  options: { caCert?: string; timeoutMs?: number } = {},
): Promise<unknown> {
  const text = /^https?:\/\//i.test(source) ? await fetchText(new URL(source), options) : readLocal(source);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${source} is not JSON: ${(error as Error).message}`);
  }
}

function readLocal(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot read ${path}: ${(error as Error).message}`);
  }
}

function fetchText(url: URL, options: { caCert?: string; timeoutMs?: number }): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = request(
      url,
      { method: 'GET', headers: { accept: 'application/json' }, ...(options.caCert ? { ca: options.caCert } : {}) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 200)
            reject(new Error(`GET ${url.href} answered ${res.statusCode}: ${body.slice(0, 200)}`));
          else resolve(body);
        });
      },
    );
    req.setTimeout(options.timeoutMs ?? 15_000, () => req.destroy(new Error(`GET ${url.href} timed out`)));
    req.on('error', (error) => reject(new Error(`GET ${url.href} failed: ${error.message}`)));
    req.end();
  });
}
