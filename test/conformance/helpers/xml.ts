// A minimal XML 1.0 well-formedness parser for the JUnit report tests (no XML library is installed).
// It accepts elements, attributes, text, character and the five predefined entity references, an
// XML declaration and comments; anything else, or any nesting error, throws.

/** A parsed element. */
export interface XmlElement {
  /** Tag name. */
  name: string;
  /** Attributes, entity references decoded. */
  attrs: Record<string, string>;
  /** Child elements in order. */
  children: XmlElement[];
  /** Concatenated text content, entity references decoded. */
  text: string;
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function isNameStart(ch: string): boolean {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch === '_' || ch === ':';
}

function isNameChar(ch: string): boolean {
  return isNameStart(ch) || (ch >= '0' && ch <= '9') || ch === '-' || ch === '.';
}

/** Decodes entity references, throwing on a bare "&" or an unknown entity. */
function decode(raw: string): string {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i] as string;
    if (ch !== '&') {
      out += ch;
      continue;
    }
    const end = raw.indexOf(';', i);
    if (end < 0) throw new Error(`bare & in ${JSON.stringify(raw)}`);
    const ref = raw.slice(i + 1, end);
    if (ref.startsWith('#x')) out += String.fromCodePoint(Number.parseInt(ref.slice(2), 16));
    else if (ref.startsWith('#')) out += String.fromCodePoint(Number.parseInt(ref.slice(1), 10));
    else if (ref in ENTITIES) out += ENTITIES[ref];
    else throw new Error(`unknown entity &${ref};`);
    i = end;
  }
  return out;
}

/** Parses a document and returns its root element; throws if it is not well-formed. */
export function parseXml(xml: string): XmlElement {
  let i = 0;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  const expect = (s: string) => {
    if (!xml.startsWith(s, i)) throw new Error(`expected ${JSON.stringify(s)} at ${i}`);
    i += s.length;
  };
  const skipSpace = () => {
    while (i < xml.length && ' \t\r\n'.includes(xml[i] as string)) i++;
  };
  const readName = () => {
    const start = i;
    if (!isNameStart(xml[i] ?? '')) throw new Error(`expected a name at ${i}`);
    while (i < xml.length && isNameChar(xml[i] as string)) i++;
    return xml.slice(start, i);
  };
  if (xml.startsWith('<?xml')) i = xml.indexOf('?>') + 2;
  while (i < xml.length) {
    if (xml.startsWith('<!--', i)) {
      i = xml.indexOf('-->', i) + 3;
    } else if (xml.startsWith('</', i)) {
      i += 2;
      const name = readName();
      skipSpace();
      expect('>');
      const open = stack.pop();
      if (!open || open.name !== name) throw new Error(`</${name}> closes <${open?.name ?? 'nothing'}>`);
    } else if (xml[i] === '<') {
      i++;
      const el: XmlElement = { name: readName(), attrs: {}, children: [], text: '' };
      for (;;) {
        const before = i;
        skipSpace();
        if (xml.startsWith('/>', i) || xml[i] === '>') break;
        if (i === before) throw new Error(`expected space before attribute at ${i}`);
        const attr = readName();
        expect('=');
        const quote = xml[i];
        if (quote !== '"' && quote !== "'") throw new Error(`unquoted attribute ${attr}`);
        const end = xml.indexOf(quote, i + 1);
        const raw = xml.slice(i + 1, end);
        if (end < 0 || raw.includes('<')) throw new Error(`bad value for attribute ${attr}`);
        if (attr in el.attrs) throw new Error(`duplicate attribute ${attr}`);
        el.attrs[attr] = decode(raw);
        i = end + 1;
      }
      const parent = stack[stack.length - 1];
      if (parent) parent.children.push(el);
      else if (root) throw new Error('more than one root element');
      else root = el;
      if (xml.startsWith('/>', i)) i += 2;
      else {
        i++;
        stack.push(el);
      }
    } else {
      const end = xml.indexOf('<', i) < 0 ? xml.length : xml.indexOf('<', i);
      const raw = xml.slice(i, end);
      const top = stack[stack.length - 1];
      if (top) top.text += decode(raw);
      else if (raw.trim() !== '') throw new Error('text outside the root element');
      i = end;
    }
  }
  if (stack.length > 0) throw new Error(`unclosed <${stack[stack.length - 1]?.name}>`);
  if (!root) throw new Error('no root element');
  return root;
}
