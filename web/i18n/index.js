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
  if (!catalogs[code]) catalogs[code] = (await import(`./${code}.js`)).default;
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

/** Load the language's catalog, then switch every string (and the direction) to it. */
export async function setLanguage(code, { remember = false } = {}) {
  if (!LANGUAGES[code]) code = 'en';
  await load(code);
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

/** Look `key` up in the current catalog (English as fallback) and fill {placeholders}. */
export function t(key, params) {
  const text = catalogs[current]?.[key] ?? key;
  if (!params) return text;
  // Numbers are written in the language's digits (Persian uses its own).
  // In a right-to-left language every inserted text (a name, a card) is isolated, so "Bob!"
  // or "Ali (2)" keep their own direction instead of taking the sentence's.
  const rtl = LANGUAGES[current].dir === 'rtl';
  return text.replace(/\{(\w+)\}/g, (_, name) => {
    const value = params[name];
    if (typeof value === 'number') return formatNumber(value);
    const str = (value ?? '').toString();
    return rtl && str ? `\u2068${str}\u2069` : str;
  });
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
