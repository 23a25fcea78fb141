/**
 * A tiny element builder. Every page builds its DOM with it: text always goes in as text nodes (never
 * innerHTML), so marketing's content and API answers cannot inject markup, and nothing needs an inline
 * script or style attribute that the Content-Security-Policy would block.
 */
export type Child = Node | string | number | null | undefined | false | readonly Child[];
type AttrValue = string | number | boolean | null | undefined | ((event: Event) => void);
export type Attrs = Record<string, AttrValue>;

const SVG_NS = 'http://www.w3.org/2000/svg';

function apply(el: Element, attrs: Attrs, children: readonly Child[]): void {
  for (const [name, value] of Object.entries(attrs)) {
    if (typeof value === 'function') el.addEventListener(name.replace(/^on/, ''), value);
    else if (value === true) el.setAttribute(name, '');
    else if (value !== false && value !== null && value !== undefined) el.setAttribute(name, String(value));
  }
  append(el, children);
}

/** Appends children, flattening arrays and skipping null / false (handy for conditional parts). */
export function append(el: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (child instanceof Node) el.appendChild(child);
    else if (typeof child === 'string' || typeof child === 'number') {
      el.appendChild(document.createTextNode(String(child)));
    } else append(el, child);
  }
}

/** An HTML element: `h('button', { class: 'primary', onclick: save }, 'Save')`. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  apply(el, attrs, children);
  return el;
}

/** An SVG element, for the charts and the window timeline. */
export function s<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  apply(el, attrs, children);
  return el;
}

/** Replaces an element's children. */
export function replace(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

/** A labelled form row; `path` ties it to the API's `details[].path` so errors show next to it. */
export function field(label: string, control: HTMLElement, opts: { path?: string; hint?: string } = {}) {
  return h(
    'div',
    { class: 'field', 'data-path': opts.path },
    h('label', {}, h('span', { class: 'label' }, label), control),
    opts.hint ? h('div', { class: 'hint' }, opts.hint) : null,
  );
}
