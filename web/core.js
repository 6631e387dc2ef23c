// The pieces every page shares, one module so a page loads in few requests: DOM helpers and
// keyed patching (dom), language lookup (i18n), HTTP calls and stored seats (api), card faces
// (cards), event sentences (events) and countdown rings (rings).
import morphdom from './vendor/morphdom.js';

// === DOM helpers, keyed patching, focus ==================================================
// Tiny DOM helpers: the client builds its screens with h() from the view, and patch() updates
// the page to match in place (keyed, with morphdom), so what a player typed, keyboard focus
// and scroll positions survive every frame.

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

// === languages ===========================================================================
// Language selection and lookup. Every visible string comes from one of these catalogs; only
// the active one is loaded (they all have the same keys, a test checks it).

export const LANGUAGES = {
  en: { name: 'English', dir: 'ltr' },
  tr: { name: 'Türkçe', dir: 'ltr' },
  fi: { name: 'Suomi', dir: 'ltr' },
  fa: { name: 'فارسی', dir: 'rtl' },
};

const catalogs = {};

async function load(code) {
  if (!catalogs[code]) catalogs[code] = (await import(`./i18n/${code}.js`)).default;
  return catalogs[code];
}

const STORAGE_KEY = 'uno.lang';
let current = 'en';
const listeners = new Set();

export function initialLanguage() {
  const stored = safeGet(STORAGE_KEY);
  if (stored && LANGUAGES[stored]) return stored;
  for (const tag of navigator.languages || [navigator.language || 'en']) {
    const base = String(tag).toLowerCase().split('-')[0];
    if (LANGUAGES[base]) return base;
  }
  return 'en';
}

export function language() {
  return current;
}

let wanted = null;  // the language asked for last

/** Load the language's catalog, then switch every string (and the direction) to it. */
export async function setLanguage(code, { remember = false } = {}) {
  if (!LANGUAGES[code]) code = 'en';
  wanted = code;
  await load(code);
  // Picked quickly one after the other, a slower catalog must not win over the last choice.
  if (wanted !== code) return;
  current = code;
  document.documentElement.lang = code;
  document.documentElement.dir = LANGUAGES[code].dir;
  document.title = t('app.title');
  if (remember) safeSet(STORAGE_KEY, code);
  for (const fn of listeners) fn(code);
}

export function onLanguageChange(fn) {
  listeners.add(fn);
}

// Hebrew, Arabic, Syriac, Thaana, N'Ko... and the Arabic presentation forms.
const RTL_TEXT = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/;

/** Look `key` up in the current catalog (English as fallback) and fill {placeholders}. */
export function t(key, params) {
  const text = catalogs[current]?.[key] ?? key;
  if (!params) return text;
  // Numbers are written in the language's digits (Persian uses its own).
  // In a right-to-left language every inserted text (a name, a card) is isolated, so "Bob!"
  // or "Ali (2)" keep their own direction instead of taking the sentence's.
  // In a left-to-right language a right-to-left name is isolated too: else the number after
  // it joins its run ("سارا 1 kart çekti" showed as "1 سارا kart çekti").
  const rtl = LANGUAGES[current].dir === 'rtl';
  return text.replace(/\{(\w+)\}/g, (_, name) => {
    const value = params[name];
    if (typeof value === 'number') return formatNumber(value);
    const str = (value ?? '').toString();
    return str && (rtl || RTL_TEXT.test(str)) ? isolate(str, rtl) : str;
  });
}

/**
 * `str` in an isolate. A name or a card takes its own direction (first strong isolate). A text
 * this page composed (a change, a list: it begins with an isolate of its own) takes the page's:
 * a first strong isolate looks past the isolates inside it, finds no letter and falls back to
 * left to right, which turned a Persian "label: ۲ ← ۴" around.
 */
function isolate(str, rtl) {
  if (/^[\u2066-\u2068]/.test(str)) return `${rtl ? '\u2067' : '\u2066'}${str}\u2069`;
  return `\u2068${str}\u2069`;
}

/** Items (names, cards) as one list in the page's language: Persian separates them with "،"
 * and isolates each one, like every inserted text. */
export function listText(items) {
  const rtl = LANGUAGES[current].dir === 'rtl';
  return items.map((x) => (rtl ? isolate(String(x), rtl) : String(x))).join(t('list.sep'));
}

/** True when the current catalog (or English) has `key`. */
export function has(key) {
  return key in (catalogs[current] || {});
}

export function formatNumber(n) {
  return new Intl.NumberFormat(current).format(n);
}

function safeGet(key) {
  try { return localStorage.getItem(key); } catch { return null; }
}

function safeSet(key, value) {
  try { localStorage.setItem(key, value); } catch { /* storage disabled: keep in memory */ }
}

/** A server error in the player's language, by its `code` (never the server's English text). */
export function errorText(code) {
  const key = `err.${code}`;
  return has(key) ? t(key) : t('err.generic');
}

// === HTTP calls and stored seats =========================================================
// HTTP calls of PROTOCOL section 2, and the seat credentials kept in localStorage.

export class ApiError extends Error {
  constructor(status, code, message, detail = {}) {
    super(message || code || `HTTP ${status}`);
    this.status = status;
    this.code = code;
    this.detail = detail; // the error object's other fields
  }
}

async function call(method, path, body, token) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (token) headers.Authorization = `Bearer ${token}`;
  let res;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, 'network', '');
  }
  let data = null;
  try { data = await res.json(); } catch { /* empty or not JSON */ }
  if (!res.ok) {
    const err = data && data.error ? data.error : {};
    throw new ApiError(res.status, err.code || `http_${res.status}`, err.message || '', err);
  }
  return data;
}

export const api = {
  createRoom: (name, settings) => call('POST', '/api/rooms', { name, settings }),
  joinRoom: (room, name) => call('POST', `/api/rooms/${encodeURIComponent(room)}/players`, { name }),
  watchRoom: (room, name) => call('POST', `/api/rooms/${encodeURIComponent(room)}/spectators`, { name }),
  roomSummary: (room) => call('GET', `/api/rooms/${encodeURIComponent(room)}`),
  match: (id) => call('GET', `/api/matches/${encodeURIComponent(id)}`),
  tournament: (code) => call('GET', `/api/tournaments/${encodeURIComponent(code)}`),
  tournamentEnter: (code, name) => call('POST', `/api/tournaments/${encodeURIComponent(code)}/entrants`, { name }),
  tournamentMe: (code, token) => call('GET', `/api/tournaments/${encodeURIComponent(code)}/me`, undefined, token),
  createTournament: (body) => call('POST', '/api/tournaments', body),
  removeEntrant: (code, entrantId, token) =>
    call('DELETE', `/api/tournaments/${encodeURIComponent(code)}/entrants/${encodeURIComponent(entrantId)}`, undefined, token),
  startTournament: (code, token) => call('POST', `/api/tournaments/${encodeURIComponent(code)}/start`, undefined, token),
};

// --- credentials --------------------------------------------------------------------------

const PREFIX = 'uno.session.';

/** {room, token, player_id, seat, role} for a room, or null. */
export function loadSession(room) {
  try {
    const raw = localStorage.getItem(PREFIX + room);
    const s = raw ? JSON.parse(raw) : null;
    return s && typeof s.token === 'string' ? s : null;
  } catch {
    return null;
  }
}

export function saveSession(session) {
  try {
    localStorage.setItem(PREFIX + session.room, JSON.stringify({ ...session, saved_at: Date.now() }));
  } catch { /* private mode: the session lasts for this page only */ }
}

export function forgetSession(room) {
  try { localStorage.removeItem(PREFIX + room); } catch { /* nothing stored */ }
}

/** Rooms this browser holds a seat in, newest first (for the home page). */
export function knownSessions() {
  const out = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (!key || !key.startsWith(PREFIX)) continue;
      const s = JSON.parse(localStorage.getItem(key));
      if (s && s.room) out.push(s);
    }
  } catch { /* ignore broken entries */ }
  return out.sort((a, b) => (b.saved_at || 0) - (a.saved_at || 0)).slice(0, 5);
}

export function rememberedName() {
  try { return localStorage.getItem('uno.name') || ''; } catch { return ''; }
}

export function rememberName(name) {
  try { localStorage.setItem('uno.name', name); } catch { /* ignore */ }
}

// === card faces ==========================================================================
// Card faces: every card shows a symbol and a text, so it reads without its color.

const SYMBOLS = {
  skip: '⊘',
  reverse: '⇄',
  draw2: '+2',
  wild: '★',
  wild_draw4: '+4',
  wild_shuffle: '⤨',
  wild_custom: '✎',
  wild_skip: '⊘',
  wild_skip2: '⊘²',
  wild_reverse: '⇄',
  wild_draw2: '+2',
  wild_targeted_draw2: '◎+2',
  wild_forced_swap: '⇋',
  draw1: '+1',
  flip: '↻',
  draw5: '+5',
  skip_everyone: '⊘∀',
  wild_draw_color: '+◐',
};

/** The face in play of a card, whether sent flat ({id, color, kind, value}) or Flip style. */
export function faceOf(card) {
  if (!card) return null;
  const face = card.face && typeof card.face === 'object' ? card.face : card;
  return {
    color: face.color ?? null,
    kind: face.kind,
    value: face.value ?? null,
    label: face.label ?? card.label ?? null,
    effect: face.effect ?? card.effect ?? null,
    n: face.n ?? card.n ?? null,
  };
}

export function cardSymbol(face) {
  // A number card's number in the page's digits (Persian: ۰-۹); the action symbols (+2, ⊘)
  // are drawn as they are printed on the cards.
  if (face.kind === 'number') return formatNumber(face.value);
  return SYMBOLS[face.kind] ?? '?';
}

/** The short name of a kind: "7", "Skip", "Wild Draw Four"... */
export function kindName(face) {
  if (face.kind === 'number') return formatNumber(face.value);
  if (face.kind === 'wild_custom' && face.label) return face.label;
  // A kind this client does not know yet is "a card", never its code.
  return has(`kind.${face.kind}`) ? t(`kind.${face.kind}`) : t('card.unknown');
}

/** "1 card", "5 cards" (the count in the page's digits). */
export function cardsText(n) {
  return t(n === 1 ? 'seat.cards_one' : 'seat.cards', { n: formatNumber(n) });
}

export function colorName(color) {
  return color ? t(`color.${color}`) : '';
}

/** A full readable name, for screen readers and the log: "Red 7", "Wild Draw Four". */
export function cardName(card, chosenColor) {
  const face = faceOf(card);
  if (!face) return t('card.unknown');
  const color = face.color ?? chosenColor ?? null;
  // A kind this client does not know yet: "a card", not "Red a card" nor its code.
  if (face.kind !== 'number' && face.kind !== 'wild_custom' && !has(`kind.${face.kind}`)) return t('card.unknown');
  const name = kindName(face);
  if (face.kind === 'wild_custom') {
    const effect = face.effect && has(`effect.${face.effect}`) ? t(`effect.${face.effect}`, { n: face.n ?? '' }) : '';
    const base = face.label || t('kind.wild_custom');
    // The color in the language's order ("Blue …", Persian "… آبی"), then the effect.
    return [color ? colored(colorName(color), base, !!face.label) : base, effect && effect !== base ? `(${effect})` : '']
      .filter(Boolean).join(' ');
  }
  return color ? colored(colorName(color), name) : name;
}

/** "Red 7", "Blue Wild": the catalog's order; `{name_lc}` lets a language say the kind in lower
 * case after its color (Finnish "Sininen villi kortti", where English says "Blue Wild"). */
function colored(color, name, own = false) {
  // A player's own label keeps its letters.
  return t('card.colored', { color, name, name_lc: own ? name : name.toLocaleLowerCase(language()) });
}

/**
 * One card element. `as` is 'button' for cards one may act on, else a plain figure.
 * `chosenColor` paints a wild on the discard pile with its named color.
 */
export function cardEl(card, { as = 'div', testid, small = false, chosenColor = null, classes = [], attrs = {} } = {}) {
  const face = faceOf(card);
  const painted = face.color ?? chosenColor;
  const isWild = face.kind.startsWith('wild');
  // An unlabelled Customizable shows what it does (its tooltip is out of a phone's reach).
  const effect = face.kind === 'wild_custom' && !face.label && face.effect && has(`effect.${face.effect}`)
    ? t(`effect.${face.effect}`, { n: face.n ?? '' }) : null;
  const name = effect || kindName(face);
  const el = h(as, {
    class: ['card', small && 'small', `c-${painted ?? 'wild'}`, isWild && 'wild', ...classes],
    testid,
    'aria-label': cardName(card, chosenColor),
    title: cardName(card, chosenColor),
    ...(as === 'button' ? { type: 'button' } : { role: 'img' }),
    ...attrs,
    // The card's own data, plus what the caller adds (a key, legality).
    dataset: { kind: face.kind, color: face.color ?? '', ...(card.id != null ? { cardId: String(card.id) } : {}), ...(attrs.dataset || {}) },
  },
  h('span', { class: 'corner tl', 'aria-hidden': 'true' }, cardSymbol(face)),
  h('span', { class: 'oval', 'aria-hidden': 'true' }, h('span', { class: 'sym' }, cardSymbol(face))),
  small ? null : h('span', { class: 'ctext', 'aria-hidden': 'true' },
    h('span', { class: 'cname' }, face.kind === 'number' ? '' : name),
    h('span', { class: 'ccolor' }, painted ? colorName(painted) : '')),
  h('span', { class: 'corner br', 'aria-hidden': 'true' }, cardSymbol(face)));
  return el;
}

/** A face-down card (a back), optionally showing the other side's face in Flip. */
export function backEl({ small = true, face = null, testid, side = null } = {}) {
  // `side` is the side the shown face belongs to (Flip: the one not in play), for its palette.
  if (face) return cardEl(face, { small, testid, classes: ['back-face', side && `side-${side}`] });
  return h('div', { class: ['card', 'back', small && 'small'], testid, 'aria-hidden': 'true' },
    h('span', { class: 'oval' }, h('span', { class: 'sym logo' }, 'UNO')));
}

const COLOR_ORDER = ['red', 'yellow', 'green', 'blue', 'pink', 'teal', 'orange', 'purple'];

/** Display order for a hand: by color, wilds last, then kind and number (display only). */
export function handOrder(a, b) {
  const fa = faceOf(a);
  const fb = faceOf(b);
  const ca = fa.color ? COLOR_ORDER.indexOf(fa.color) : 99;
  const cb = fb.color ? COLOR_ORDER.indexOf(fb.color) : 99;
  if (ca !== cb) return ca - cb;
  if (fa.kind !== fb.kind) {
    if (fa.kind === 'number') return -1;
    if (fb.kind === 'number') return 1;
    return fa.kind < fb.kind ? -1 : 1;
  }
  return (fa.value ?? 0) - (fb.value ?? 0) || (a.id ?? 0) - (b.id ?? 0);
}

// === event sentences =====================================================================
// Human sentences for events (the log, the live region). Only what the event itself says.

/**
 * True when a seat (a view's seat, a player_joined/left event, a match record's player) is a bot
 * the server added. Its player id says so ("bot-…"; a human's is "p_…"): a human who leaves a
 * game keeps the seat as `"bot": true` under the human's own name, and a human may be called
 * "Bot 3". Without a player id, the `bot` flag.
 */
export function isServerBot(seat) {
  const id = seat?.player_id;
  if (typeof id === 'string' && id) return id.startsWith('bot-');
  return seat?.bot === true;
}

/** A seat's name as shown: the server names bots "Bot 3", the page says it in its language. */
export function displayName(seat) {
  if (!seat) return '';
  const m = isServerBot(seat) && /^Bot (\d+)$/.exec(seat.name || '');
  return m ? t('seat.bot_name', { n: Number(m[1]) }) : seat.name;
}

const NAME_SEGMENTER = typeof Intl !== 'undefined' && Intl.Segmenter ? new Intl.Segmenter(undefined, { granularity: 'grapheme' }) : null;
const FIT_TAIL = 6; // graphemes of a long name's end that always show

/**
 * A name in a narrow place (a phone's seat tile, the recent plays): when it is cut, its start
 * gives way with an ellipsis and its last graphemes stay ("Alexandr…mith 1"), so two long
 * names that differ only at the end ("… 1", "… 2") are still told apart. The element's text
 * is the whole name (the ellipsis is drawn by CSS), and so is its title.
 */
export function nameFit(name, { cls = 'seat-name', testid } = {}) {
  const text = String(name ?? '');
  const parts = NAME_SEGMENTER ? [...NAME_SEGMENTER.segment(text)].map((x) => x.segment) : [...text];
  const attrs = { class: [cls, 'fit'], dir: 'auto', title: text, testid };
  if (parts.length <= FIT_TAIL + 6) return h('span', attrs, text);
  attrs.class.push('split');
  return h('span', attrs,
    h('span', { class: 'fit-head' }, parts.slice(0, -FIT_TAIL).join('')),
    h('span', { class: 'fit-tail' }, parts.slice(-FIT_TAIL).join('')));
}

/**
 * The name an event carries, as shown: a bot's in the page's language. The event's own `bot` and
 * `player_id` say whose it is (player_joined, player_left); else the seat of that number in
 * `view`, when it has that very name.
 */
export function eventName(ev, view) {
  if (typeof ev?.name !== 'string' || !ev.name) return '';
  if (ev.player_id != null || ev.bot != null) return displayName(ev);
  const s = view?.seats?.find((x) => x.seat === ev.seat && x.name === ev.name);
  return s ? displayName(s) : ev.name;
}

/**
 * A spectator's name as shown. One who gave no name is named "Spectator" by the server ("Spectator
 * 2" when taken): the page says it in its own language, like a bot's name.
 */
export function spectatorName(name) {
  const m = /^Spectator(?: (\d+))?$/.exec(name || '');
  if (!name || (m && !m[1])) return t('spectator.someone');
  return m ? `${t('spectator.someone')} ${formatNumber(Number(m[1]))}` : name;
}

/** True when a spectator shows only as the word "Spectator": a "(spectator)" tag would repeat it. */
export function unnamedSpectator(name) {
  const shown = spectatorName(name).replace(/ [\d\u06F0-\u06F9]+$/, '');
  return shown === t('spectator.someone') || shown === t('join.spectator');
}

export function seatName(view, seat) {
  if (seat == null) return '';
  const s = view?.seats?.find((x) => x.seat === seat);
  return (s && displayName(s)) || t('seat.n', { n: seat + 1 });
}

function pick(ev, ...keys) {
  for (const k of keys) if (ev[k] !== undefined && ev[k] !== null) return ev[k];
  return null;
}

/** A one-line description of an event, or null when it is not worth a line. */
export function describe(ev, view) {
  const seat = pick(ev, 'seat', 'player', 'by');
  const p = {
    // An event that names its player is read as sent: seat numbers move when a lobby seat leaves.
    name: typeof ev.name === 'string' && ev.name ? eventName(ev, view) : seatName(view, seat),
    target: seatName(view, pick(ev, 'target', 'victim', 'to', 'caught')),
    by: seatName(view, pick(ev, 'by', 'catcher', 'challenger')),
    color: colorName(pick(ev, 'color')),
    count: pick(ev, 'count', 'n', 'amount') ?? '',
    round: pick(ev, 'round') ?? '',
    text: ev.text ?? '',
  };
  switch (ev.kind) {
    case 'card_played': {
      const card = ev.card ? cardName(ev.card, ev.color) : t('card.unknown');
      const base = t('ev.card_played', { ...p, card });
      return p.target && pick(ev, 'target') != null ? `${base} → ${p.target}` : base;
    }
    case 'card_drawn': {
      const cards = ev.cards || (ev.card ? [ev.card] : null);
      const count = ev.count ?? cards?.length ?? 1;
      if (cards && cards.length) {
        return t('ev.card_drawn_you', { ...p, count, cards: listText(cards.map((c) => cardName(c))) });
      }
      return t('ev.card_drawn', { ...p, count });
    }
    case 'uno_caught':
      return t(ev.false_catch ? 'ev.false_catch' : 'ev.uno_caught', {
        name: seatName(view, pick(ev, 'seat', 'caught')),
        by: seatName(view, pick(ev, 'by', 'catcher')),
        count: pick(ev, 'penalty', 'count') ?? '',
      });
    case 'challenge_opened':
      return t('ev.challenge_opened', {
        name: seatName(view, pick(ev, 'seat', 'victim')),
        by: seatName(view, pick(ev, 'offender', 'by', 'player')),
      });
    case 'challenge_resolved': {
      const guilty = pick(ev, 'guilty', 'success', 'bluff');
      const key = guilty === true ? 'ev.challenge_guilty' : guilty === false ? 'ev.challenge_innocent' : 'ev.challenge_resolved';
      const line = t(key, {
        name: seatName(view, pick(ev, 'challenger', 'seat', 'victim')),
        by: seatName(view, pick(ev, 'offender', 'by', 'player')),
      });
      // Only the challenger receives the challenged hand (PROTOCOL); show it to them.
      if (Array.isArray(ev.hand)) {
        return `${line}. ${t('ev.challenge_hand', { cards: listText(ev.hand.map((c) => cardName(c))) })}`;
      }
      return line;
    }
    case 'turn_passed':
      return t(ev.auto ? 'ev.turn_ended' : 'ev.turn_passed', p);
    case 'penalty_pending':
      return t('ev.penalty_pending', { ...p, count: ev.pending_draw ?? '' });
    case 'cards_discarded':
      return t('ev.cards_discarded', { ...p, count: ev.cards?.length ?? '' });
    case 'direction_changed':
      return t(ev.direction === -1 ? 'ev.direction_ccw' : 'ev.direction_cw');
    case 'side_flipped':
      return t('ev.side_flipped', { side: t(`side.${ev.side || 'light'}`) });
    case 'round_ended':
      return ev.winner != null ? t('ev.round_ended', { ...p, name: seatName(view, ev.winner) }) : t('ev.round_ended_none', p);
    case 'match_ended':
      return ev.winner != null ? t('ev.match_ended', { name: seatName(view, ev.winner) }) : t('ev.match_ended_none');
    case 'host_changed':
      return ev.host == null ? null : t('ev.host_changed', { name: seatName(view, ev.host) });
    case 'dealer_chosen':
      return t('ev.dealer_chosen', { name: seatName(view, pick(ev, 'dealer', 'seat')) });
    case 'round_started':
      return t('ev.round_started', { round: p.round, name: seatName(view, pick(ev, 'dealer')) });
    case 'player_joined':
      return t('ev.player_joined', { name: p.name });
    case 'player_left':
      return t(ev.reason === 'away' ? 'ev.player_left_away' : 'ev.player_left', { name: p.name });
    case 'spectator_joined':
    case 'spectator_left':
      return t(`ev.${ev.kind}`, { name: spectatorName(ev.name) });
    case 'timer_expired':
      // A departed seat freed by its timer: the player_left that follows says it all.
      if (ev.timer === 'lobby_drop') return null;
      return t('ev.timer_expired', { ...p, timer: has(`timer.${ev.timer || ev.deadline}`) ? t(`timer.${ev.timer || ev.deadline}`) : '' });
    case 'settings_changed':
      // `changes`: added by the client from the settings it had before (app.js).
      return ev.changes?.length ? t('ev.settings_changed_to', { changes: changesText(ev.changes) }) : t('ev.settings_changed');
    case 'chat':
      if (!ev.spectator) return `${p.name}: ${p.text}`;
      // A spectator's line says so, once: one without a name shows as just "Spectator".
      return unnamedSpectator(ev.name)
        ? `${spectatorName(ev.name)}: ${p.text}`
        : `${p.name} (${t('chat.spectator')}): ${p.text}`;
    default:
      if (has(`ev.${ev.kind}`)) return t(`ev.${ev.kind}`, p);
      return null;
  }
}

// === settings in words ====================================================================
// A room's settings as people read them: the rules summary at the table and what a
// `settings_changed` event changed. The labels are the settings form's (`set.*`).

// In the settings form's order; a key without a label (test hooks, tournament keys) is left out.
export const SETTING_KEYS = ['variant', 'deck', 'custom_wilds', 'first_card', 'flip_discard', 'max_players',
  'draw', 'max_draw', 'forced_play', 'no_voluntary_draw',
  'stack_draw2', 'stack_draw4', 'stack_draw4_on_draw2', 'seven_zero', 'jump_in', 'bluffing', 'uno_penalty', 'false_catch_penalty',
  'scoring', 'target_score', 'turn_seconds', 'uno_window_ms', 'challenge_seconds', 'afk_timeouts', 'next_round_seconds'];

/** A setting's value in words: "On", "Flip", "4", the Customizable cards' effects. */
export function settingValue(key, value) {
  if (typeof value === 'boolean') return t(value ? 'set.on' : 'set.off');
  if (key === 'custom_wilds') {
    const list = Array.isArray(value) ? value : [];
    return list.length ? listText(list.map((w) => w.label || t(`effect.${w.effect}`, { n: w.n ?? '' }))) : t('set.none');
  }
  if (typeof value === 'number') return formatNumber(value);
  if (value == null) return '–';
  return has(`set.${key}.${value}`) ? t(`set.${key}.${value}`) : String(value);
}

/** What changed from `before` to `after`, in the form's order: [{key, from, to}]. */
export function settingsChanges(before, after) {
  if (!before || !after) return null;
  return SETTING_KEYS.filter((k) => k in after && has(`set.${k}`) && JSON.stringify(before[k] ?? null) !== JSON.stringify(after[k] ?? null))
    .map((k) => ({ key: k, from: before[k] ?? null, to: after[k] }));
}

/** "Cards for a missed UNO: 2 → 4" for each change, as one list. */
export function changesText(changes) {
  return listText(changes.map((c) => t('set.change', {
    label: t(`set.${c.key}`), from: c.from == null ? '–' : settingValue(c.key, c.from), to: settingValue(c.key, c.to),
  })));
}

// === countdown rings =====================================================================
// Countdown rings for the server's deadlines (turn, challenge, next round).

/** A countdown ring to `at` (server clock); `total` ms is a full ring. */
export function ring(at, total, testid, { big = false } = {}) {
  const r = 16;
  const c = 2 * Math.PI * r;
  return h('span', {
    class: ['ring', big && 'big'], testid, role: 'timer',
    dataset: { deadline: String(at), total: String(Math.max(1, total)), circ: String(c) },
  },
  s('svg', { viewBox: '0 0 40 40', 'aria-hidden': 'true' },
    s('circle', { cx: 20, cy: 20, r, class: 'track' }),
    s('circle', { cx: 20, cy: 20, r, class: 'arc', 'stroke-dasharray': c, 'stroke-dashoffset': 0 })),
  h('span', { class: 'secs' }, ''));
}

/** "42 s" or "1:42": a time left, in the page's language. */
export function timeLeft(ms) {
  const secs = Math.max(0, Math.ceil(ms / 1000));
  if (secs < 60) return t('time.s', { n: secs });
  const rest = secs % 60;
  return t('time.ms', { m: Math.floor(secs / 60), s: (rest < 10 ? formatNumber(0) : '') + formatNumber(rest) });
}

/**
 * A sentence with a countdown in it ("Host role passes to Ali in 42 s"): catalog `key` with
 * `params` and `time`, kept current by tickTimers. `S.offset` is the server clock's lead.
 */
export function countdown(S, at, key, params, attrs = {}) {
  const text = () => t(key, { ...params, time: timeLeft(at - (Date.now() + (S.offset || 0))) });
  return h('span', { ...attrs, dataset: { ...(attrs.dataset || {}), until: String(at), msg: key, params: JSON.stringify(params) } }, text());
}

/** Update every ring on the page from the server clock (called a few times a second). */
export function tickTimers(S) {
  const now = Date.now() + (S.offset || 0);
  for (const el of document.querySelectorAll('[data-until]')) {
    let params = {};
    try { params = JSON.parse(el.dataset.params || '{}'); } catch { /* keep none */ }
    const text = t(el.dataset.msg, { ...params, time: timeLeft(Number(el.dataset.until) - now) });
    if (el.textContent !== text) el.textContent = text;
  }
  for (const el of document.querySelectorAll('[data-deadline]')) {
    const at = Number(el.dataset.deadline);
    const total = Number(el.dataset.total);
    const left = Math.max(0, at - now);
    const frac = Math.min(1, left / total);
    const arc = el.querySelector('.arc');
    if (arc) arc.setAttribute('stroke-dashoffset', String(Number(el.dataset.circ) * (1 - frac)));
    const secs = Math.ceil(left / 1000);
    const label = el.querySelector('.secs');
    if (label) label.textContent = formatNumber(secs);
    el.setAttribute('aria-label', t('timer.left', { n: secs }));
    el.classList.toggle('urgent', left < 5000);
  }
}

/**
 * A link to read and copy, read-only: the whole of it shown, wrapped onto more lines where the
 * field is narrower than the link (a single-line input hid its end), always left to right.
 */
export function linkField({ id, testid, value }) {
  return h('textarea', {
    id, testid, class: 'link-field', readonly: true, rows: 2, dir: 'ltr', spellcheck: 'false', autocapitalize: 'off',
    value, onfocus: (e) => e.target.select(),
  });
}

/** The way on from a page whose room, tournament or match is not there: the home page. */
/**
 * Put `text` on the clipboard; resolves to whether it got there. The Clipboard API exists only
 * on https (or localhost): a server reached over plain http on the home network has none, so
 * a hidden field is copied the old way (in the click's own turn, while that is still allowed).
 */
export function copyText(text) {
  const old = () => {
    const field = h('textarea', { readonly: true, 'aria-hidden': 'true', style: 'position:fixed;top:0;left:0;opacity:0;' });
    field.value = text;
    const had = document.activeElement;
    document.body.append(field);
    field.select();
    let ok = false;
    try { ok = document.execCommand('copy'); } catch { ok = false; }
    field.remove();
    had?.focus?.({ preventScroll: true });
    return ok;
  };
  if (!navigator.clipboard?.writeText) return Promise.resolve(old());
  return navigator.clipboard.writeText(text).then(() => true, () => old());
}

export function homeLink(actions) {
  return h('p', {}, h('a', {
    class: 'button primary', href: '/', testid: 'go-home',
    onclick: (e) => { e.preventDefault(); actions.navigate('/'); },
  }, t('nf.home')));
}
