// Playing a card: ask for a color and a target when the move needs them, then send `play`.
import { h, trapTab } from './dom.js';
import { t } from './i18n/index.js';
import { cardEl, colorName, cardsText } from './cards.js';
import { seatName } from './events.js';

function playMove(view, cardId) {
  return (view.you?.moves?.play || []).find((m) => m.card === cardId) || null;
}

export function colorButtons(colors, onPick, prefix) {
  return h('div', { class: 'colors', role: 'group' }, colors.map((c) => h('button', {
    type: 'button', class: ['swatch', `c-${c}`], testid: `${prefix}-${c}`,
    onclick: () => onPick(c),
  }, h('span', { class: 'swatch-dot', 'aria-hidden': 'true' }), colorName(c))));
}

/** Begin playing a card: ask for a color and a target when the move needs them, then send. */
export function beginPlay(S, actions, cardId) {
  const move = playMove(S.view, cardId);
  if (!move) {
    actions.toast(t('table.cannot_play'));
    return;
  }
  S.picker = { move, color: null };
  continuePlay(S, actions);
}

function continuePlay(S, actions) {
  const p = S.picker;
  if (!p) return;
  if (p.move.colors && p.move.colors.length && !p.color) {
    p.type = 'color';
  } else if (p.move.targets && p.move.targets.length && p.target == null) {
    p.type = 'target';
  } else {
    const cmd = { type: 'play', card: p.move.card };
    if (p.color) cmd.color = p.color;
    if (p.target != null) cmd.target = p.target;
    if (S.unoArmed) cmd.uno = true;
    S.picker = null;
    S.unoArmed = false;
    actions.send(cmd);
  }
  actions.render();
  if (S.picker) queueMicrotask(() => document.querySelector('.picker button')?.focus());
}

export function pickerOverlay(S, actions) {
  const p = S.picker;
  if (!p || !p.type) return null;
  const cancel = () => { S.picker = null; actions.render(); };
  const card = (S.view.you?.hand || []).find((c) => c.id === p.move.card);
  let body;
  if (p.type === 'color') {
    body = [h('h2', { id: 'picker-title' }, t('picker.color')),
      colorButtons(p.move.colors, (c) => { p.color = c; continuePlay(S, actions); }, 'pick-color')];
  } else {
    body = [h('h2', { id: 'picker-title' }, t('picker.target')),
      h('div', { class: 'targets', role: 'group' }, p.move.targets.map((seat) => h('button', {
        type: 'button', class: 'target', testid: `pick-target-${seat}`,
        onclick: () => { p.target = seat; continuePlay(S, actions); },
      }, seatName(S.view, seat), ' · ', cardsText(S.view.seats[seat]?.hand_count ?? 0))))];
  }
  return h('div', {
    class: 'overlay', testid: 'picker', dataset: { focusKeep: '' },
    onkeydown: (e) => { if (e.key === 'Escape') cancel(); else trapTab(e, e.currentTarget); },
    onclick: (e) => { if (e.target === e.currentTarget) cancel(); },
  }, h('div', { class: 'picker panel', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'picker-title' },
    card ? cardEl(card, { small: true }) : null,
    body,
    h('button', { type: 'button', class: 'ghost', testid: 'picker-cancel', onclick: cancel }, t('picker.cancel'))));
}

