/**
 * A deliberately small, strict XML reader for WeChat pushes: one `<xml>` root, elements, text and
 * CDATA, the five predefined entities and character references. Everything else — DOCTYPE, ENTITY,
 * comments, processing instructions, attributes, mixed content, depth beyond what WeChat sends — is
 * refused, so external entities (XXE) and entity expansion (billion laughs) cannot exist by
 * construction rather than by a parser option someone could flip.
 */

/**
 * One element: its text or its children, never both. The text is its CDATA sections verbatim and its
 * decoded character data, with the whitespace at the value's edges outside CDATA dropped — as WeChat's SDKs
 * read it (wechatpy strips it): `<FromUserName>\n <![CDATA[o1]]>\n</FromUserName>` is `o1`.
 */
export interface XmlElement {
  readonly name: string;
  readonly text: string;
  readonly children: readonly XmlElement[];
}

/** Thrown for any input outside the accepted subset; push.ts turns it into `push_malformed`. */
export class XmlRefused extends Error {}

// WeChat's deepest push is SendPicsInfo > PicList > item > PicMd5Sum under the root.
const MAX_DEPTH = 6;
const MAX_ELEMENTS = 1000;
const ENTITIES: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decodeText(text: string): string {
  return text.replace(/&([^;&<]*);?/g, (whole, ref: string) => {
    if (!whole.endsWith(';')) throw new XmlRefused('a bare & in text');
    const named = ENTITIES[ref];
    if (named !== undefined) return named;
    const code = /^#x[0-9A-Fa-f]{1,6}$/.test(ref)
      ? parseInt(ref.slice(2), 16)
      : /^#[0-9]{1,7}$/.test(ref)
        ? parseInt(ref.slice(1), 10)
        : NaN;
    // Anything else is a reference to a declared entity, and declarations are refused.
    if (Number.isNaN(code) || code > 0x10ffff) {
      throw new XmlRefused(`entity reference &${ref}; is not allowed`);
    }
    // &#0; and surrogate halves are not XML characters, but refusing them would lose a follower's
    // message: they are decoded (a pair of halves joins into one character) and push.ts makes what is
    // left storable.
    return code <= 0xffff ? String.fromCharCode(code) : String.fromCodePoint(code);
  });
}

interface Open {
  name: string;
  /** The character data and CDATA sections read so far, in order. */
  parts: { readonly value: string; readonly cdata: boolean }[];
  children: XmlElement[];
}

/** Whether the element holds anything but whitespace between its tags. */
const holdsText = (open: Open): boolean => open.parts.some((p) => p.value.trim() !== '');

/** XML's whitespace only: a follower's ideographic space (U+3000) is text. */
export const isXmlSpace = (c: string | undefined): boolean =>
  c === ' ' || c === '\t' || c === '\r' || c === '\n';
// A loop, not a regex that a megabyte of spaces before one letter would make quadratic.
function trimXmlSpace(value: string, start: boolean, end: boolean): string {
  let [from, to] = [0, value.length];
  while (start && from < to && isXmlSpace(value[from])) from += 1;
  while (end && to > from && isXmlSpace(value[to - 1])) to -= 1;
  return value.slice(from, to);
}

/** The element's value: its parts joined, the whitespace at either end dropped unless CDATA holds it. */
function textOf(open: Open): string {
  const last = open.parts.length - 1;
  return open.parts.map((p, i) => (p.cdata ? p.value : trimXmlSpace(p.value, i === 0, i === last))).join('');
}

// Sticky patterns read at a position without copying the rest of the input (bodies can be 1 MB).
const OPEN_TAG = /<([A-Za-z_][A-Za-z0-9_-]*)\s*(\/?)>/y;
const CLOSE_TAG = /<\/([A-Za-z_][A-Za-z0-9_-]*)\s*>/y;
const SPACE = /\s*/y;
const DECLARATION = /<\?xml\s[^?]*\?>/y;

function matchAt(pattern: RegExp, raw: string, at: number): RegExpExecArray | null {
  pattern.lastIndex = at;
  return pattern.exec(raw);
}

function finish(done: Open): XmlElement {
  if (done.children.length > 0 && holdsText(done)) {
    throw new XmlRefused(`<${done.name}> mixes text and elements`);
  }
  return { name: done.name, text: done.children.length > 0 ? '' : textOf(done), children: done.children };
}

/** Parses `raw` into its root element, or throws XmlRefused. */
export function parseStrictXml(raw: string): XmlElement {
  let i = raw.charCodeAt(0) === 0xfeff ? 1 : 0;
  i += matchAt(SPACE, raw, i)![0].length;
  const declaration = matchAt(DECLARATION, raw, i);
  if (declaration !== null) {
    i += declaration[0].length;
    i += matchAt(SPACE, raw, i)![0].length;
  }
  if (!raw.startsWith('<xml', i)) throw new XmlRefused('the body must start with the <xml> root element');
  const stack: Open[] = [];
  let count = 0;

  for (;;) {
    const top = stack.at(-1);
    if (i >= raw.length) throw new XmlRefused('unexpected end of input');
    if (raw[i] !== '<') {
      // Only reachable inside the root: the loop ends when the root closes.
      const next = raw.indexOf('<', i);
      const end = next === -1 ? raw.length : next;
      top!.parts.push({ value: decodeText(raw.slice(i, end)), cdata: false });
      i = end;
    } else if (raw.startsWith('<![CDATA[', i)) {
      const end = raw.indexOf(']]>', i + 9);
      if (end === -1) throw new XmlRefused('unterminated CDATA section');
      top!.parts.push({ value: raw.slice(i + 9, end), cdata: true });
      i = end + 3;
    } else if (raw[i + 1] === '!' || raw[i + 1] === '?') {
      throw new XmlRefused('DOCTYPE, ENTITY, comments and processing instructions are refused');
    } else if (raw[i + 1] === '/') {
      const tag = matchAt(CLOSE_TAG, raw, i);
      if (tag === null || top?.name !== tag[1]) throw new XmlRefused(`unexpected closing tag at ${i}`);
      i += tag[0].length;
      const element = finish(stack.pop()!);
      if (stack.length === 0) return end(raw, i, element);
      stack[stack.length - 1].children.push(element);
    } else {
      const tag = matchAt(OPEN_TAG, raw, i);
      if (tag === null) throw new XmlRefused(`a tag with attributes or malformed at ${i}`);
      if (top === undefined && tag[1] !== 'xml') throw new XmlRefused('the root element must be <xml>');
      if (top !== undefined && holdsText(top)) {
        throw new XmlRefused(`<${top.name}> mixes text and elements`);
      }
      if (stack.length >= MAX_DEPTH) throw new XmlRefused('elements nested too deep');
      if ((count += 1) > MAX_ELEMENTS) throw new XmlRefused('too many elements');
      i += tag[0].length;
      const opened: Open = { name: tag[1], parts: [], children: [] };
      if (tag[2] !== '/') stack.push(opened);
      else if (top === undefined) return end(raw, i, finish(opened));
      else top.children.push(finish(opened));
    }
  }
}

/** Only whitespace may follow the root. */
function end(raw: string, at: number, root: XmlElement): XmlElement {
  if (at + matchAt(SPACE, raw, at)![0].length !== raw.length) {
    throw new XmlRefused('content after the root element');
  }
  return root;
}
