/**
 * Small DOM helpers of the console: elements, labelled fields (every input has a label), tables that scroll
 * inside their own box (no horizontal scroll of the page at 390 px), forms that show the server's error, and
 * the panel of a value shown once.
 */
type Child = Node | string | null | undefined | false;
type Attrs = Record<string, string | boolean | undefined>;

/** An element with attributes (false/undefined omitted) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value === undefined) continue;
    element.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) element.append(child);
  return element;
}

let ids = 0;

/** A labelled input; `attrs` go on the input (name, type, required, value...). */
export function field(label: string, attrs: Attrs = {}, hint?: string): HTMLLabelElement & { input: HTMLInputElement } {
  const id = `f${++ids}`;
  const input = h('input', { id, type: 'text', ...attrs });
  const hintEl = hint ? h('span', { class: 'hint', id: `${id}-hint` }, hint) : null;
  if (hint) input.setAttribute('aria-describedby', `${id}-hint`);
  const wrap = h('div', { class: 'field' }, h('label', { for: id }, label), input, hintEl);
  return Object.assign(wrap as unknown as HTMLLabelElement, { input });
}

/** A labelled select of `options` ([value, text]). */
export function choice(label: string, name: string, options: Array<[string, string]>, selected?: string) {
  const id = `f${++ids}`;
  const select = h('select', { id, name });
  for (const [value, text] of options) select.append(h('option', { value, selected: value === selected }, text));
  const wrap = h('div', { class: 'field' }, h('label', { for: id }, label), select);
  return Object.assign(wrap, { select });
}

/** A group of labelled checkboxes named `name`. */
export function checks(legend: string, name: string, values: readonly string[], checked: readonly string[] = []) {
  const set = h('fieldset', { class: 'checks' }, h('legend', {}, legend));
  for (const value of values) {
    const id = `f${++ids}`;
    set.append(
      h(
        'span',
        { class: 'check' },
        h('input', { type: 'checkbox', id, name, value, checked: checked.includes(value) }),
        h('label', { for: id }, value),
      ),
    );
  }
  return set;
}

/**
 * A form that runs `submit` and shows its error (the server's `{error}` text) in an alert inside the form;
 * the submit button is disabled while it runs.
 */
export function form(title: string, body: Child[], action: string, submit: (data: FormData) => Promise<void>) {
  const error = h('p', { class: 'error', role: 'alert' });
  const button = h('button', { type: 'submit' }, action);
  const element = h('form', { class: 'card', 'aria-label': title }, h('h3', {}, title), ...body, button, error);
  element.addEventListener('submit', (event) => {
    event.preventDefault();
    error.textContent = '';
    button.disabled = true;
    submit(new FormData(element))
      .catch((failure: unknown) => {
        error.textContent = failure instanceof Error ? failure.message : String(failure);
      })
      .finally(() => {
        button.disabled = false;
      });
  });
  return element;
}

/** A button that runs `action`, showing a failure in `where` (an alert element). */
export function button(text: string, label: string, action: () => Promise<void>, where: HTMLElement) {
  const element = h('button', { type: 'button', 'aria-label': label }, text);
  element.addEventListener('click', () => {
    where.textContent = '';
    element.disabled = true;
    action()
      .catch((failure: unknown) => {
        where.textContent = failure instanceof Error ? failure.message : String(failure);
      })
      .finally(() => {
        element.disabled = false;
      });
  });
  return element;
}

/** A table in its own scrolling box. */
export function table(caption: string, head: string[], rows: Child[][]) {
  const body = rows.length
    ? rows.map((cells) => h('tr', {}, ...cells.map((cell) => h('td', {}, cell))))
    : [h('tr', {}, h('td', { colspan: String(head.length) }, 'None.'))];
  return h(
    'div',
    { class: 'scroll', tabindex: '0', role: 'region', 'aria-label': caption },
    h(
      'table',
      {},
      h('caption', {}, caption),
      h('thead', {}, h('tr', {}, ...head.map((name) => h('th', { scope: 'col' }, name)))),
      h('tbody', {}, ...body),
    ),
  );
}

/** Page n of a list, with previous and next buttons that call `go`. */
export function pager(page: number, limit: number, total: number, go: (page: number) => void) {
  const pages = Math.max(1, Math.ceil(total / limit));
  const previous = h('button', { type: 'button', disabled: page <= 1 }, 'Previous page');
  const next = h('button', { type: 'button', disabled: page >= pages }, 'Next page');
  previous.addEventListener('click', () => go(page - 1));
  next.addEventListener('click', () => go(page + 1));
  return h('div', { class: 'pager' }, previous, h('span', {}, `Page ${page} of ${pages} (${total} in all)`), next);
}

/**
 * spec: "the raw token is displayed once at creation": the value is shown in this panel, with a copy button,
 * until the operator dismisses it; nothing keeps it, so it is never shown again.
 */
export function shownOnce(label: string, value: string): HTMLElement {
  const id = `f${++ids}`;
  const output = h('output', { id, class: 'secret', 'data-once': 'true' }, value);
  const note = h('span', { class: 'hint', role: 'status' });
  const copy = h('button', { type: 'button' }, `Copy ${label}`);
  copy.addEventListener('click', () => {
    navigator.clipboard.writeText(value).then(
      () => {
        note.textContent = 'Copied.';
      },
      () => {
        note.textContent = 'The browser refused the clipboard: select the text and copy it.';
      },
    );
  });
  const done = h('button', { type: 'button' }, 'I have stored it');
  const panel = h(
    'section',
    { class: 'card once', 'aria-label': `${label}, shown once` },
    h('h3', {}, `${label} — shown once`),
    h('p', {}, 'Store it now: the server keeps only its hash and this page does not keep it.'),
    h('label', { for: id }, label),
    output,
    h('div', { class: 'row' }, copy, done, note),
  );
  done.addEventListener('click', () => panel.remove());
  return panel;
}

/** The comma-separated list in a form field, trimmed, without empty entries. */
export const listOf = (value: FormDataEntryValue | null) =>
  String(value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/** The text of a form field. */
export const text = (data: FormData, name: string) => String(data.get(name) ?? '').trim();
