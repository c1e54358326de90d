// JUnit XML for CI: one <testsuite> per surface, one <testcase> per check, <failure> for failures
// and <skipped message=...> for skips (a skip is never reported as a pass). Escaped by hand: no XML
// library is installed, and the output needs only elements, attributes and text.
import { SURFACES, type Surface } from '../catalogue.ts';
import { summarise, type CheckResult } from '../runner.ts';
import { detailLines } from './format.ts';

/** Testsuite names per surface. */
export const SURFACE_LABELS: Record<Surface, string> = {
  A: 'A institutional REST API',
  B: 'B webhooks',
  C: 'C chain JSON-RPC',
  D: 'D explorer REST API',
  E: 'E wallet session API',
  F: 'F evidence document',
  specs: 'specs',
  all: 'generated from the contracts',
};

// XML 1.0 "Char": anything else (most C0 controls, lone surrogates, U+FFFE/FFFF) cannot appear at
// all, not even as a character reference, so it is replaced.
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Escapes text content. */
export function escapeXmlText(text: string): string {
  return text.replace(NOT_XML_CHAR, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Escapes an attribute value (double-quoted); tabs and line breaks are kept as character references. */
export function escapeXmlAttr(text: string): string {
  return escapeXmlText(text)
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/\t/g, '&#9;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;');
}

/** Options for formatJUnit. */
export interface JUnitOptions {
  /** Name of the <testsuites> element (default "svckit conformance"). */
  name?: string;
}

/** Formats results as a JUnit XML document. */
export function formatJUnit(results: readonly CheckResult[], options: JUnitOptions = {}): string {
  const total = counts(results);
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${escapeXmlAttr(options.name ?? 'svckit conformance')}" ${total}>`,
  ];
  for (const surface of SURFACES) {
    const inSuite = results.filter((r) => r.surface === surface);
    if (inSuite.length === 0) continue;
    out.push(`  <testsuite name="${escapeXmlAttr(SURFACE_LABELS[surface])}" ${counts(inSuite)}>`);
    for (const result of inSuite) out.push(...testcase(result));
    out.push('  </testsuite>');
  }
  out.push('</testsuites>', '');
  return out.join('\n');
}

function testcase(result: CheckResult): string[] {
  const attrs = `classname="svckit.${escapeXmlAttr(result.surface)}" name="${escapeXmlAttr(result.id)}" time="${seconds(result.durationMs)}"`;
  const source = 'quote' in result.source ? `spec: ${result.source.quote}` : result.source.decision;
  const lines = [
    `    <testcase ${attrs}>`,
    '      <properties>',
    `        <property name="title" value="${escapeXmlAttr(result.title)}"/>`,
    `        <property name="severity" value="${escapeXmlAttr(result.severity)}"/>`,
    `        <property name="source" value="${escapeXmlAttr(source)}"/>`,
    '      </properties>',
  ];
  const reason = escapeXmlAttr(result.reason ?? '');
  if (result.status === 'failed') {
    const body = escapeXmlText(detailLines(result).join('\n'));
    lines.push(`      <failure message="${reason}" type="${escapeXmlAttr(result.severity)}">${body}</failure>`);
  } else if (result.status === 'skipped') {
    lines.push(`      <skipped message="${reason}"/>`);
  }
  lines.push('    </testcase>');
  return lines;
}

function counts(results: readonly CheckResult[]): string {
  const s = summarise(results);
  const time = seconds(results.reduce((sum, r) => sum + r.durationMs, 0));
  return `tests="${results.length}" failures="${s.failed}" errors="0" skipped="${s.skipped}" time="${time}"`;
}

function seconds(ms: number): string {
  return (Math.max(0, ms) / 1000).toFixed(3);
}
