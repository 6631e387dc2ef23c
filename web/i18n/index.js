// Language selection and lookup. Every visible string comes from one of these catalogs.
import en from './en.js';
import tr from './tr.js';
import fi from './fi.js';
import fa from './fa.js';

export const LANGUAGES = {
  en: { name: 'English', dir: 'ltr', catalog: en },
  tr: { name: 'Türkçe', dir: 'ltr', catalog: tr },
  fi: { name: 'Suomi', dir: 'ltr', catalog: fi },
  fa: { name: 'فارسی', dir: 'rtl', catalog: fa },
};

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

export function setLanguage(code, { remember = false } = {}) {
  if (!LANGUAGES[code]) code = 'en';
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
  const text = LANGUAGES[current].catalog[key] ?? en[key] ?? key;
  if (!params) return text;
  // Numbers are written in the language's digits (Persian uses its own).
  return text.replace(/\{(\w+)\}/g, (_, name) => {
    const value = params[name];
    return typeof value === 'number' ? formatNumber(value) : (value ?? '').toString();
  });
}

/** True when the current catalog (or English) has `key`. */
export function has(key) {
  return key in LANGUAGES[current].catalog || key in en;
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
  return key in en ? t(key) : t('err.generic');
}
