// Card faces: every card shows a symbol and a text, so it reads without its color.
import { h } from './dom.js';
import { t, formatNumber } from './i18n/index.js';

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
  if (face.kind === 'number') return String(face.value);
  return SYMBOLS[face.kind] ?? '?';
}

/** The short name of a kind: "7", "Skip", "Wild Draw Four"... */
export function kindName(face) {
  if (face.kind === 'number') return String(face.value);
  if (face.kind === 'wild_custom' && face.label) return face.label;
  return t(`kind.${face.kind}`);
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
  const name = kindName(face);
  if (face.kind === 'wild_custom') {
    const effect = face.effect ? t(`effect.${face.effect}`, { n: face.n ?? '' }) : '';
    const base = face.label || t('kind.wild_custom');
    return [color ? colorName(color) : '', base, effect && effect !== base ? `(${effect})` : '']
      .filter(Boolean).join(' ');
  }
  return color ? t('card.colored', { color: colorName(color), name }) : name;
}

/**
 * One card element. `as` is 'button' for cards one may act on, else a plain figure.
 * `chosenColor` paints a wild on the discard pile with its named color.
 */
export function cardEl(card, { as = 'div', testid, small = false, chosenColor = null, classes = [], attrs = {} } = {}) {
  const face = faceOf(card);
  const painted = face.color ?? chosenColor;
  const isWild = face.kind.startsWith('wild');
  const name = kindName(face);
  const el = h(as, {
    class: ['card', small && 'small', `c-${painted ?? 'wild'}`, isWild && 'wild', ...classes],
    testid,
    'aria-label': cardName(card, chosenColor),
    title: cardName(card, chosenColor),
    dataset: { kind: face.kind, color: face.color ?? '', ...(card.id != null ? { cardId: String(card.id) } : {}) },
    ...(as === 'button' ? { type: 'button' } : { role: 'img' }),
    ...attrs,
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
