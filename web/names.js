// The player-name rule, the same as the server's (app/rooms/names.py): 1-32 user-perceived
// characters of letters, marks, digits, punctuation, symbols (emoji) and spaces, with the
// zero-width joiner and non-joiner; no other control or format character; at least one
// character that shows.

import { h, t } from './core.js';

export const NAME_MAX = 32;
const NAME_MAX_CODEPOINTS = 128;
// Cc, Cf (but ZWNJ, ZWJ and emoji tags), Cs, Co, Cn, Zl, Zp.
const REFUSED = /[\p{Cc}\p{Cs}\p{Co}\p{Cn}\u2028\u2029]|(?![\u200C\u200D\u{E0020}-\u{E007F}])\p{Cf}/u;
// At least one character that shows: not only marks, spaces, joiners, tags or the blank
// letters and symbols (Hangul fillers, the Braille blank), or the seat would look empty.
const VISIBLE = /[^\p{M}\p{Z}\u200C\u200D\u{E0020}-\u{E007F}\u115F\u1160\u3164\uFFA0\u2800]/u;

const segmenter = typeof Intl !== 'undefined' && Intl.Segmenter ? new Intl.Segmenter(undefined, { granularity: 'grapheme' }) : null;

export function graphemes(text) {
  if (segmenter) return [...segmenter.segment(text)].map((s) => s.segment);
  return [...text];
}

/** White space collapsed and NFC, as the server stores it. */
export function normalName(text) {
  return (text || '').split(/\s+/u).filter(Boolean).join(' ').normalize('NFC');
}

/** What makes two names the same in a room, as the server's `name_key` (case folded after
 * NFC, the same in every language: a Turkish page must not take "ALİ" for "Ali"). */
export function nameKey(text) {
  return normalName(text).toLowerCase().replace(/ß/g, 'ss').normalize('NFC');
}

/** null when the name is fine, else the catalog key of what is wrong. */
export function nameProblem(text) {
  const name = normalName(text);
  if (!name) return 'name.empty';
  if ([...name].length > NAME_MAX_CODEPOINTS || graphemes(name).length > NAME_MAX) return 'name.too_long';
  if (REFUSED.test(name)) return 'name.bad_char';
  if (!VISIBLE.test(name)) return 'name.empty';
  return null;
}

/** Keep at most NAME_MAX graphemes of what is typed (never cut a cluster in two). */
export function clampName(text) {
  const parts = graphemes(text || '');
  return parts.length > NAME_MAX ? parts.slice(0, NAME_MAX).join('') : text;
}

/**
 * The limit under a name field, so typing past it does not just stop: "5 of 32" as typed (a
 * grapheme counts one, as the server counts), and when a keystroke was cut off, "A name can have
 * at most 32 characters." said once (polite live region). The field is described by it. Call
 * `update(clamped)` from the field's input handler.
 */
export function nameLimit(input) {
  const id = `${input.id}-limit`;
  const count = h('span', { class: 'count', testid: `${input.dataset.testid}-count` });
  const note = h('span', { class: 'note', 'aria-live': 'polite', testid: `${input.dataset.testid}-full` });
  const el = h('small', { class: 'name-limit', id }, count, ' ', note);
  const update = (clamped = false) => {
    const n = graphemes(input.value || '').length;
    count.textContent = t('name.count', { n });
    el.classList.toggle('full', n >= NAME_MAX);
    note.textContent = clamped ? t('name.too_long') : '';
  };
  input.setAttribute('aria-describedby', [input.getAttribute('aria-describedby'), id].filter(Boolean).join(' '));
  update();
  return { el, update };
}
