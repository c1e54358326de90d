/**
 * The writers of the run's event stream (D-232): the NDJSON report, one event per line appended as it
 * happens (a run cut short keeps every line written so far), and the HAR 1.2 file of every exchange, written
 * when the run ends. Both are redacted: credential headers keep only their scheme, secret fields of bodies read
 * "[redacted]".
 */
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { EventSink, RunEvent } from '../events.ts';
import { redactBody, redactRequest, toJson } from './format.ts';

/** Redacts the credentials and secrets an event carries. */
export function redactEvent(event: RunEvent): RunEvent {
  if (event.type !== 'case_sent') return event;
  const headers = (h: Record<string, string>) => redactRequest({ method: '', url: '', headers: h }).headers ?? {};
  return {
    ...event,
    request: {
      ...event.request,
      headers: headers(event.request.headers),
      ...(event.request.body !== undefined ? { body: redactBody(event.request.body) } : {}),
    },
    ...(event.response
      ? {
          response: {
            ...event.response,
            headers: headers(event.response.headers),
            body: redactBody(event.response.body),
          },
        }
      : {}),
  };
}

/** An NDJSON writer: `sink` appends one redacted event per line to `path`; `close()` ends the file. */
export function ndjsonWriter(path: string): { sink: EventSink; close(): void } {
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, 'w');
  let open = true;
  return {
    sink: (event) => {
      if (open) writeSync(fd, `${toJson(redactEvent(event))}\n`);
    },
    close: () => {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
}

/** One HAR 1.2 entry (http://www.softwareishard.com/blog/har-12-spec/), with svckit's own fields prefixed `_`. */
export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    headers: { name: string; value: string }[];
    queryString: { name: string; value: string }[];
    cookies: [];
    headersSize: -1;
    bodySize: number;
    postData?: { mimeType: string; text: string };
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    headers: { name: string; value: string }[];
    cookies: [];
    content: { size: number; mimeType: string; text: string };
    redirectURL: '';
    headersSize: -1;
    bodySize: number;
    _error?: string;
  };
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
  _check?: string;
  _source: 'hand-written' | 'generated' | 'proxied';
  _rateLimited: boolean;
  _tlsGroup?: string;
}

/** The HAR document of a run. */
export interface Har {
  log: { version: '1.2'; creator: { name: string; version: string }; entries: HarEntry[] };
}

const pairs = (headers: Record<string, string>) => Object.entries(headers).map(([name, value]) => ({ name, value }));

/** A HAR recorder: `sink` keeps every exchange (redacted); `write()` writes the file. */
export function harRecorder(path: string, version: string): { sink: EventSink; har(): Har; write(): void } {
  const entries: HarEntry[] = [];
  const har = (): Har => ({ log: { version: '1.2', creator: { name: 'svckit', version }, entries } });
  return {
    sink: (raw) => {
      if (raw.type !== 'case_sent') return;
      const event = redactEvent(raw);
      if (event.type !== 'case_sent') return;
      const url = new URL(event.request.url);
      const body = event.request.body;
      const res = event.response;
      entries.push({
        startedDateTime: event.at,
        time: event.durationMs,
        request: {
          method: event.request.method,
          url: url.href,
          httpVersion: 'HTTP/1.1',
          headers: pairs(event.request.headers),
          queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
          cookies: [],
          headersSize: -1,
          bodySize: body === undefined ? 0 : Buffer.byteLength(body),
          ...(body !== undefined
            ? { postData: { mimeType: event.request.headers['content-type'] ?? 'application/json', text: body } }
            : {}),
        },
        response: {
          status: res?.status ?? 0,
          statusText: '',
          httpVersion: 'HTTP/1.1',
          headers: pairs(res?.headers ?? {}),
          cookies: [],
          content: {
            size: res ? Buffer.byteLength(res.body) : 0,
            mimeType: res?.headers['content-type'] ?? '',
            text: res?.body ?? '',
          },
          redirectURL: '',
          headersSize: -1,
          bodySize: res ? Buffer.byteLength(res.body) : 0,
          ...(event.error ? { _error: event.error } : {}),
        },
        cache: {},
        timings: { send: 0, wait: event.durationMs, receive: 0 },
        ...(event.check ? { _check: event.check } : {}),
        _source: event.source,
        _rateLimited: event.rateLimited,
        ...(res?.tlsGroup ? { _tlsGroup: res.tlsGroup } : {}),
      });
    },
    har,
    write: () => {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, `${toJson(har(), 2)}\n`, 'utf8');
    },
  };
}
