// Tiny DOM helpers: the client builds its screens with h() from the view, and patch() updates
// the page to match in place (keyed, with morphdom), so what a player typed, keyboard focus
// and scroll positions survive every frame.
import morphdom from './vendor/morphdom.js';

export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

export function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v != null && v !== false) el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

function setAttrs(el, attrs) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null || v === false) continue;
    if (k === 'class') el.className = Array.isArray(v) ? v.filter(Boolean).join(' ') : v;
    else if (k === 'testid') el.dataset.testid = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'style' && typeof v === 'object') {
      for (const [p, val] of Object.entries(v)) el.style.setProperty(p, val);
    } else if (k.startsWith('on') && typeof v === 'function') {
      // Through one dispatcher, so a patched element runs the newest render's handler.
      const type = k.slice(2);
      (el.__on ||= {})[type] = v;
      el.addEventListener(type, dispatch);
    }
    else if (k === 'value' || k === 'checked' || k === 'disabled' || k === 'selected') el[k] = v;
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
}

function dispatch(e) {
  const fn = this.__on?.[e.type];
  return fn ? fn.call(this, e) : undefined;
}

export function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c == null || c === false || c === true) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

// Where keyboard focus was last inside a focus group (the hand, the action bar): when a
// render removes the focused element (the card just played, a button now disabled, a closed
// color picker), focus goes back there instead of falling to the page body.
const memory = { group: null, index: 0, armed: false };

function groupItems(group) {
  return [...group.querySelectorAll('button:not(:disabled), [tabindex="0"]')];
}

document.addEventListener('focusin', (e) => {
  const target = e.target;
  const group = target.closest?.('[data-focus-group]');
  if (group) {
    Object.assign(memory, { group: group.dataset.focusGroup, index: Math.max(0, groupItems(group).indexOf(target)), armed: true });
  } else if (!target.closest?.('[data-focus-keep]')) {
    memory.armed = false; // focus moved on by choice (chat, a dialog): leave it there
  }
});

function restoreGroupFocus(root) {
  const group = root.querySelector(`[data-focus-group="${CSS.escape(memory.group || '')}"]`);
  const home = root.querySelector('[data-focus-home]');
  for (const el of [group, home]) {
    if (!el) continue;
    const items = groupItems(el);
    const target = el === group ? items[Math.min(memory.index, items.length - 1)] : items[0];
    if (target) { target.focus({ preventScroll: true }); return true; }
  }
  if (home) { home.focus({ preventScroll: true }); return true; }
  return false;
}

/** Replace the children of `root`, keeping keyboard focus on the element with the same testid. */
export function replaceKeepingFocus(root, ...children) {
  const active = document.activeElement;
  const inside = !!active && root.contains(active) && active !== root;
  const key = inside ? active.dataset.testid : null;
  const caret = key && 'selectionStart' in active ? active.selectionStart : null;
  const lost = inside || !active || active === document.body;
  root.replaceChildren();
  append(root, children);
  if (key) {
    const again = root.querySelector(`[data-testid="${CSS.escape(key)}"]`);
    if (again && !again.disabled && !again.closest('[inert]')) {
      again.focus({ preventScroll: true });
      if (caret != null && 'setSelectionRange' in again) {
        try { again.setSelectionRange(caret, caret); } catch { /* not a text field */ }
      }
      return;
    }
  }
  if (lost && memory.armed && !document.querySelector('[aria-modal="true"], [role="alertdialog"]')) restoreGroupFocus(root);
}

function nodeKey(node) {
  if (node.nodeType !== 1) return undefined;
  return node.dataset.key || node.id || undefined;
}

function beforeUpdate(from, to) {
  // Handlers: the newest render's.
  if (to.__on) for (const type of Object.keys(to.__on)) from.addEventListener(type, dispatch);
  from.__on = to.__on;
  // Never overwrite what is being typed in the focused field.
  if (from === document.activeElement && (from.tagName === 'INPUT' || from.tagName === 'TEXTAREA' || from.tagName === 'SELECT')
    && from.type !== 'checkbox' && from.type !== 'radio') {
    to.value = from.value;
  }
  // A <details> the player opened or closed stays so.
  if (from.tagName === 'DETAILS' && !to.hasAttribute('data-controlled')) to.open = from.open;
  return true;
}

/**
 * Update the children of `root` in place to match `children` (keyed by data-key or id):
 * unchanged elements stay the same nodes, so focus, selection, typed text and scroll stay.
 */
export function patch(root, ...children) {
  const active = document.activeElement;
  const inside = !!active && root.contains(active) && active !== root;
  const scrolls = [...root.querySelectorAll('[data-autoscroll]')].map((el) => [el.dataset.key || el.id, el.scrollHeight - el.scrollTop - el.clientHeight < 24]);
  const next = root.cloneNode(false);
  append(next, children);
  morphdom(root, next, { childrenOnly: true, getNodeKey: nodeKey, onBeforeElUpdated: beforeUpdate });
  // A list that was scrolled to its end (log, chat) follows new lines; one read back stays put.
  const wasAtEnd = new Map(scrolls);
  for (const el of root.querySelectorAll('[data-autoscroll]')) {
    const key = el.dataset.key || el.id;
    if (!wasAtEnd.has(key) || wasAtEnd.get(key)) el.scrollTop = el.scrollHeight;
  }
  const now = document.activeElement;
  const lost = inside && (!now || now === document.body || !root.contains(now));
  if (lost && memory.armed && !document.querySelector('[aria-modal="true"], [role="alertdialog"]')) restoreGroupFocus(root);
}

/** Keep Tab and Shift+Tab inside a modal dialog (call from its keydown handler). */
export function trapTab(e, container) {
  if (e.key !== 'Tab') return;
  const items = [...container.querySelectorAll('button:not(:disabled), a[href], input:not(:disabled), select:not(:disabled)')];
  if (!items.length) return;
  const first = items[0];
  const last = items[items.length - 1];
  if (e.shiftKey && document.activeElement === first) {
    last.focus();
    e.preventDefault();
  } else if (!e.shiftKey && document.activeElement === last) {
    first.focus();
    e.preventDefault();
  }
}
