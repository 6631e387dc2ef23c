// The table: opponents, piles, your hand and every move the view offers; the round summary.
import { h } from './dom.js';
import { t, formatNumber } from './i18n/index.js';
import { cardEl, backEl, cardName, colorName, cardsText, handOrder } from './cards.js';
import { seatName, describe } from './events.js';
import { seatBadges, chatPanel, copyInvite, leaveButton } from './lobby.js';
import { ring } from './rings.js';
import { colorButtons, beginPlay, pickerOverlay } from './pickers.js';
import { summaryOverlay, betweenRounds } from './summary.js';

export { tickTimers } from './rings.js';

// The same breakpoint as the phone rules of style.css; app.js re-renders when it is crossed.
export const NARROW = window.matchMedia('(max-width: 820px)');

// --- helpers ------------------------------------------------------------------------------

function otherSide(side) {
  return side === 'dark' ? 'light' : 'dark';
}

function movesOf(view) {
  return view.you?.moves || {};
}

// --- opponents ------------------------------------------------------------------------------

function seatTile(S, actions, seat, index, count) {
  const view = S.view;
  const st = view.state || {};
  const moves = movesOf(view);
  const isTurn = st.turn === seat.seat && view.status === 'playing';
  const turnDl = st.deadlines?.turn;
  const catchable = (moves.catch || []).includes(seat.seat);
  const n = seat.hand_count ?? 0;
  // Around the table seen from above, you at the bottom: clockwise play goes from you to your
  // left, over the top, to your right; so the next seat (index 0) sits on your left. Physical
  // left, in every language: the table does not mirror with the text.
  const angle = count > 1 ? Math.PI - (Math.PI * (index + 0.5)) / count : Math.PI / 2;
  const pos = { '--x': `${50 + 42 * Math.cos(angle)}%`, '--y': `${50 - 36 * Math.sin(angle)}%` };
  return h('div', {
    class: ['seat', isTurn && 'turn', seat.uno && 'uno', !seat.connected && !seat.bot && 'away'],
    style: pos,
    testid: `seat-${seat.seat}`,
    dataset: { count: String(n), uno: String(!!seat.uno), connected: String(!!seat.connected), key: `tile-${seat.player_id ?? seat.seat}` },
    'aria-label': t('seat.summary', { name: seat.name, n }),
  },
  h('div', { class: 'seat-head' },
    isTurn && turnDl?.at ? ring(turnDl.at, (view.settings?.turn_seconds || 30) * 1000, `seat-${seat.seat}-timer`) : null,
    h('span', { class: 'seat-name', dir: 'auto', title: seat.name }, seat.name),
    seatBadges(seat, view)),
  h('div', { class: 'seat-cards' },
    Array.isArray(seat.backs) && seat.backs.length
      ? h('div', { class: 'backs', testid: `seat-${seat.seat}-backs`, 'aria-label': t('seat.backs') },
        seat.backs.map((f) => backEl({ face: f, side: otherSide(st.side) })))
      : h('div', { class: 'fan', 'aria-hidden': 'true' }, Array.from({ length: Math.min(n, 8) }, () => backEl())),
    h('span', { class: 'count', testid: `seat-${seat.seat}-count` }, cardsText(n))),
  h('div', { class: 'seat-foot' },
    seat.uno ? h('span', { class: 'badge uno', testid: `seat-${seat.seat}-uno` }, t('seat.uno')) : null,
    view.seats.length && seat.score != null ? h('span', { class: 'score' }, t('seat.score', { n: seat.score })) : null,
    catchable ? h('button', {
      type: 'button', class: 'catch', testid: `catch-${seat.seat}`,
      'aria-label': t('table.catch', { name: seat.name }),
      onclick: () => actions.send({ type: 'catch', seat: seat.seat }),
    }, t('table.catch_short')) : null,
    // How long the catch window stays open (it also closes when the next player acts).
    catchable && st.deadlines?.uno?.seat === seat.seat
      ? ring(st.deadlines.uno.at, view.settings?.uno_window_ms || 3000, `catch-${seat.seat}-timer`)
      : null));
}

// --- centre ---------------------------------------------------------------------------------

function centre(S, actions) {
  const view = S.view;
  const st = view.state || {};
  const moves = movesOf(view);
  const dir = st.direction === -1 ? -1 : 1;
  const drawTop = st.draw_top_back
    ? backEl({ small: false, face: st.draw_top_back, side: otherSide(st.side) })
    : backEl({ small: false });
  return h('div', { class: 'centre' },
    h('button', {
      type: 'button', class: 'pile draw', testid: 'draw-pile', disabled: !moves.draw,
      'aria-label': t('table.draw_pile', { n: st.draw_count ?? 0 }),
      onclick: () => actions.send({ type: 'draw' }),
    }, drawTop, h('span', { class: 'pile-count' }, formatNumber(st.draw_count ?? 0))),
    h('div', { class: 'pile discard', testid: 'discard' },
      st.top ? cardEl(st.top, { chosenColor: st.color, testid: 'discard-top' }) : null,
      h('span', { class: 'pile-count' }, formatNumber(st.discard_count ?? 0))),
    h('div', { class: 'table-info' },
      st.color ? h('div', { class: ['current-color', `c-${st.color}`], testid: 'current-color', dataset: { color: st.color } },
        h('span', { class: 'swatch-dot', 'aria-hidden': 'true' }), t('table.color', { color: colorName(st.color) })) : null,
      h('div', { class: 'direction', testid: 'direction', dataset: { direction: String(dir) } },
        h('span', { class: 'dir-arrow', 'aria-hidden': 'true' }, dir === 1 ? '↻' : '↺'),
        t(dir === 1 ? 'table.clockwise' : 'table.counter')),
      st.side ? h('div', { class: 'side', testid: 'side' }, t(`side.${st.side}`)) : null,
      st.pending_draw ? h('div', { class: 'pending', testid: 'pending-draw' }, t('table.pending', { n: st.pending_draw })) : null));
}

// --- your area ------------------------------------------------------------------------------

function statusLine(S) {
  const view = S.view;
  const st = view.state || {};
  const you = view.you;
  const turnDl = st.deadlines?.turn;
  if (view.status !== 'playing') return h('p', { class: 'status', testid: 'turn-status' }, t(`status.${view.status}`));
  const mine = you && st.turn === you.seat;
  const text = mine
    ? t(`phase.you.${st.phase}`) !== `phase.you.${st.phase}` ? t(`phase.you.${st.phase}`) : t('table.your_turn')
    : t('table.their_turn', { name: seatName(view, st.turn) });
  return h('div', { class: ['status', mine && 'mine'], testid: 'turn-status', dataset: { mine: String(!!mine) } },
    mine && turnDl?.at ? ring(turnDl.at, (view.settings?.turn_seconds || 30) * 1000, 'my-timer', { big: true }) : null,
    h('span', {}, text));
}

function challengePanel(S, actions) {
  const view = S.view;
  const moves = movesOf(view);
  if (!moves.challenge && !moves.accept) return null;
  const dl = view.state?.deadlines?.challenge;
  const top = view.state?.top;
  return h('div', { class: 'panel challenge', role: 'alertdialog', 'aria-labelledby': 'challenge-title', testid: 'challenge-dialog' },
    h('h2', { id: 'challenge-title' }, t('challenge.title')),
    dl?.at ? ring(dl.at, (view.settings?.challenge_seconds || 10) * 1000, 'challenge-timer', { big: true }) : null,
    h('p', {}, t('challenge.text', { card: top ? cardName(top, view.state?.color) : '', n: view.state?.pending_draw || '' })),
    h('div', { class: 'row' },
      h('button', { type: 'button', class: 'primary', testid: 'challenge-btn', disabled: !moves.challenge, onclick: () => actions.send({ type: 'challenge' }) }, t('challenge.challenge')),
      h('button', { type: 'button', testid: 'accept-btn', disabled: !moves.accept, onclick: () => actions.send({ type: 'accept' }) }, t('challenge.accept'))));
}

function choosePanel(S, actions) {
  const colors = movesOf(S.view).choose;
  if (!Array.isArray(colors) || !colors.length) return null;
  return h('div', { class: 'panel choose', role: 'group', 'aria-labelledby': 'choose-title', testid: 'choose-dialog' },
    h('h2', { id: 'choose-title' }, t('choose.title')),
    colorButtons(colors, (c) => actions.send({ type: 'choose', color: c }), 'choose'));
}

function actionBar(S, actions) {
  const view = S.view;
  const moves = movesOf(view);
  const canPlay = (moves.play || []).length > 0;
  const handSize = view.you?.hand?.length ?? 0;
  const myTurn = view.state?.turn === view.you?.seat;
  // Two cards on your turn: the button arms "UNO" for the play itself (sent as `uno: true`).
  // Otherwise, when the server offers `uno`, it declares at once (e.g. right after the play).
  // With more cards there is nothing to declare: the button stays off (it used to arm and
  // then do nothing).
  const arming = canPlay && myTurn && handSize === 2;
  const unoNow = !!moves.uno && !arming;
  const unoBtn = h('button', {
    type: 'button', class: ['uno-btn', (unoNow || S.unoArmed) && 'hot'], testid: 'uno-btn',
    disabled: !unoNow && !arming,
    'aria-pressed': arming ? String(!!S.unoArmed) : null,
    title: unoNow ? t('uno.now') : arming ? t('uno.arm_help') : t('uno.not_yet'),
    dataset: { mode: unoNow ? 'declare' : 'arm', armed: String(!!S.unoArmed) },
    onclick: () => {
      if (unoNow) actions.send({ type: 'uno' });
      else { S.unoArmed = !S.unoArmed; actions.render(); }
    },
  }, unoNow ? t('uno.declare') : S.unoArmed ? t('uno.armed') : t('uno.arm'));
  return h('div', { class: 'actions', role: 'toolbar', 'aria-label': t('table.actions'), dataset: { focusGroup: 'actions' } },
    h('button', { type: 'button', testid: 'draw-btn', disabled: !moves.draw, onclick: () => actions.send({ type: 'draw' }) },
      view.state?.pending_draw && view.state?.phase === 'penalty' ? t('table.take', { n: view.state.pending_draw }) : t('table.draw')),
    h('button', { type: 'button', testid: 'pass-btn', disabled: !moves.pass, onclick: () => actions.send({ type: 'pass' }) }, t('table.pass')),
    unoBtn);
}

function handEl(S, actions) {
  const view = S.view;
  const you = view.you;
  if (!you) return h('p', { class: 'muted', testid: 'spectator-badge' }, t('spectator.badge'));
  const legal = new Set((movesOf(view).play || []).map((m) => m.card));
  const mineTurn = view.state?.turn === you.seat;
  const hand = [...(you.hand || [])].sort(handOrder);
  const onKey = (e) => {
    // Arrow keys move between cards; Enter or Space on a focused card plays it (button default).
    if (!['ArrowLeft', 'ArrowRight', 'Home', 'End'].includes(e.key)) return;
    const cards = [...e.currentTarget.querySelectorAll('.card')];
    const i = cards.indexOf(document.activeElement);
    if (i < 0) return;
    const rtl = document.documentElement.dir === 'rtl';
    let j = i;
    if (e.key === 'Home') j = 0;
    else if (e.key === 'End') j = cards.length - 1;
    else j = i + ((e.key === 'ArrowRight') !== rtl ? 1 : -1);
    j = Math.max(0, Math.min(cards.length - 1, j));
    cards[j].focus();
    e.preventDefault();
  };
  return h('div', {
    class: 'hand', testid: 'hand', role: 'group', 'aria-label': t('table.your_hand', { n: hand.length }), onkeydown: onKey,
    tabindex: '-1', dataset: { focusGroup: 'hand', focusHome: '' },
  },
    hand.map((c) => {
      const ok = legal.has(c.id);
      const jump = ok && !mineTurn;
      return cardEl(c, {
        as: 'button',
        testid: `card-${c.id}`,
        classes: [ok ? 'legal' : 'dim', S.newCards.has(c.id) && 'new', jump && 'jump'],
        attrs: {
          'aria-disabled': ok ? 'false' : 'true',
          dataset: { cardId: String(c.id), legal: String(ok), key: `card-${c.id}` },
          onclick: () => beginPlay(S, actions, c.id),
          'aria-label': `${cardName(c)}${ok ? (jump ? ` — ${t('table.jump_in')}` : ` — ${t('table.playable')}`) : ''}`,
        },
      });
    }));
}

// --- side panels --------------------------------------------------------------------------

function scoreboard(S) {
  const view = S.view;
  const target = view.settings?.target_score;
  const scoring = view.settings?.scoring;
  return h('div', { class: 'panel scoreboard', testid: 'scoreboard' },
    h('h2', {}, t('score.title')),
    scoring && scoring !== 'none' && target ? h('p', { class: 'muted' }, t(scoring === 'lowest_wins' ? 'score.target_low' : 'score.target', { n: formatNumber(target) })) : null,
    h('table', { class: 'scores' },
      h('tbody', {}, view.seats.map((seat) => h('tr', { testid: `score-${seat.seat}` },
        h('td', { class: 'name', dir: 'auto' }, seat.name),
        h('td', { class: 'num' }, formatNumber(seat.score ?? 0)),
        target && scoring !== 'none' ? h('td', { class: 'bar-cell' }, h('span', { class: 'bar', style: { '--p': `${Math.min(100, (100 * (seat.score ?? 0)) / target)}%` } })) : null)))),
    view.match_id ? h('a', { href: `/api/matches/${encodeURIComponent(view.match_id)}`, target: '_blank', rel: 'noopener', testid: 'match-link-side' }, t('score.history')) : null);
}

function logPanel(S) {
  const list = h('ol', { class: 'log', testid: 'event-log', id: 'event-log', dataset: { autoscroll: '' } },
    S.log.slice(-60).map((e) => {
      const text = describe(e.event, { seats: e.names });
      return text ? h('li', { dataset: { kind: e.event.kind, ...(e.version != null ? { key: `log-${e.version}-${e.event.kind}` } : {}) } }, text) : null;
    }));
  queueMicrotask(() => { if (!list.isConnected) return; list.scrollTop = list.scrollHeight; });
  return h('div', { class: 'panel log-panel' }, h('h2', {}, t('log.title')), list);
}

// --- screen ---------------------------------------------------------------------------------

export function tableScreen(S, actions) {
  const view = S.view;
  const mySeat = view.you?.seat ?? null;
  const n = view.seats.length;
  const start = mySeat == null ? 0 : mySeat + 1;
  const others = [];
  for (let i = 0; i < n; i++) {
    const seat = view.seats[(start + i) % n];
    if (seat && seat.seat !== mySeat) others.push(seat);
  }
  const me = mySeat == null ? null : view.seats.find((x) => x.seat === mySeat);
  return h('section', { class: 'table-screen', testid: 'table', dataset: { status: view.status, phase: view.state?.phase || '' } },
    h('div', { class: 'play-area' },
      h('div', { class: ['felt', (others.length > 5 || NARROW.matches) && 'crowded'], dataset: { seats: String(others.length) } },
        others.map((seat, i) => seatTile(S, actions, seat, i, others.length)),
        centre(S, actions)),
      h('div', { class: 'me-area' },
        statusLine(S),
        betweenRounds(S, actions),
        challengePanel(S, actions),
        choosePanel(S, actions),
        me?.afk ? h('div', { class: 'panel afk-banner', role: 'status', testid: 'afk-banner' },
          h('p', {}, t('afk.text')),
          h('button', { type: 'button', class: 'primary', testid: 'back-btn', onclick: () => actions.send({ type: 'back' }, { at: false }) }, t('afk.back')))
          : null,
        me ? h('div', { class: 'me-head', testid: `seat-${me.seat}` },
          h('span', { class: 'seat-name', dir: 'auto' }, me.name), ' ', h('span', { class: 'muted' }, `(${t('seat.you')})`),
          me.uno ? h('span', { class: 'badge uno', testid: 'my-uno' }, t('seat.uno')) : null,
          seatBadges(me, view)) : h('p', { class: 'badge spectator', testid: 'spectator-badge' }, t('spectator.badge')),
        view.you ? actionBar(S, actions) : null,
        view.you ? handEl(S, actions) : null)),
    h('aside', { class: 'side-panels' },
      scoreboard(S),
      logPanel(S),
      chatPanel(S, actions),
      h('button', { type: 'button', class: 'ghost small', testid: 'copy-invite', onclick: () => copyInvite(view.room, actions) }, t('lobby.copy')),
      view.you ? leaveButton(S, actions) : null),
    pickerOverlay(S, actions),
    summaryOverlay(S, actions));
}
