// The table: opponents, piles, your hand and every move the view offers; playing a card
// (color and seat pickers), the round summary, and the flights of played and drawn cards.
import { h, api, t, formatNumber, displayName, nameFit, cardEl, backEl, cardName, colorName, cardsText, handOrder, seatName, eventName, describe, ring, trapTab, SETTING_KEYS, settingValue, has } from './core.js';
import { DEFAULTS } from './settings.js';
import { seatBadges, chatPanel, copyInvite, leaveButton, stopWatching, spectatorCount, hostCountdown } from './lobby.js';


// The same breakpoint as the phone rules of style.css; app.js re-renders when it is crossed.
// A narrow screen, or a short one (a phone held sideways, 390 px high; a laptop's browser
// window, 650-780 px high): the ellipse of the felt with your area below it was taller than the
// screen, so the piles and the hand could not be seen together. A short screen gets the compact
// felt (the seats in a grid), beside your hand.
export const NARROW = window.matchMedia('(max-width: 820px), (max-height: 800px)');
// A small phone held upright (360x740): 2 or 3 opponents' full tiles already put the hand below
// the fold; they get the compact tiles ('many') too.
export const SMALL_PHONE = window.matchMedia('(max-width: 820px) and (max-height: 760px) and (min-height: 501px)');

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
    'aria-label': t('seat.summary', { name: displayName(seat), cards: cardsText(n) }),
  },
  h('div', { class: 'seat-head' },
    isTurn && turnDl?.at ? ring(turnDl.at, (view.settings?.turn_seconds || 30) * 1000, `seat-${seat.seat}-timer`) : null,
    nameFit(displayName(seat), { testid: `seat-${seat.seat}-name` }),
    seatBadges(seat, view)),
  h('div', { class: 'seat-cards' },
    Array.isArray(seat.backs) && seat.backs.length
      // --n: how many, so a phone's compact tile can overlap them just enough for one row.
      ? h('div', { class: 'backs', testid: `seat-${seat.seat}-backs`, 'aria-label': t('seat.backs'), style: { '--n': String(seat.backs.length) } },
        seat.backs.map((f) => backEl({ face: f, side: otherSide(st.side) })))
      : h('div', { class: 'fan', 'aria-hidden': 'true' }, Array.from({ length: Math.min(n, 8) }, () => backEl())),
    // The points also as the count's tooltip: a phone's compact tile (many seats) hides them.
    h('span', {
      class: 'count', testid: `seat-${seat.seat}-count`,
      title: view.seats.length && seat.score != null ? t('seat.score', { n: seat.score }) : null,
    }, cardsText(n))),
  h('div', { class: 'seat-foot' },
    seat.uno ? h('span', { class: 'badge uno', testid: `seat-${seat.seat}-uno` }, t('seat.uno')) : null,
    view.seats.length && seat.score != null ? h('span', { class: 'score' }, t('seat.score', { n: seat.score })) : null,
    catchable ? h('button', {
      type: 'button', class: 'catch', testid: `catch-${seat.seat}`,
      'aria-label': t('table.catch', { name: displayName(seat) }),
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
      // Keyed by the play, so each new top card is a new element and its arrival animates.
      st.top ? cardEl(st.top, { chosenColor: st.color, testid: 'discard-top', classes: [lastPlay(S) && 'last-play'], attrs: { dataset: { key: `top-${lastPlay(S)?.version ?? st.top.id}` } } }) : null,
      h('span', { class: 'pile-count' }, formatNumber(st.discard_count ?? 0)),
      lastPlay(S) ? h('span', { class: 'last-play-by', testid: 'last-play' }, t('table.last_play', { name: playerOf(lastPlay(S)) })) : null),
    h('div', { class: 'table-info' },
      st.color ? h('div', { class: ['current-color', `c-${st.color}`], testid: 'current-color', dataset: { color: st.color } },
        h('span', { class: 'swatch-dot', 'aria-hidden': 'true' }), t('table.color', { color: colorName(st.color) })) : null,
      h('div', { class: 'direction', testid: 'direction', dataset: { direction: String(dir) } },
        h('span', { class: 'dir-arrow', 'aria-hidden': 'true' }, dir === 1 ? '↻' : '↺'),
        t(dir === 1 ? 'table.clockwise' : 'table.counter')),
      // Only UNO Flip has sides; the server sends `light` for every variant.
      st.side && view.settings?.variant === 'flip' ? h('div', { class: 'side', testid: 'side' }, t(`side.${st.side}`)) : null,
      st.pending_draw ? h('div', { class: 'pending', testid: 'pending-draw' }, t('table.pending', { n: st.pending_draw })) : null));
}

// --- recent plays ---------------------------------------------------------------------------

/** The card plays of this round, newest last (from the log the client keeps). */
function playsThisRound(S) {
  const out = [];
  for (const e of S.log) {
    if (e.event.kind === 'round_started') out.length = 0;
    else if (e.event.kind === 'card_played' && e.event.card) out.push(e);
  }
  return out;
}

function lastPlay(S) {
  const plays = playsThisRound(S);
  const last = plays.at(-1);
  // Only while that card is the one on the pile (a draw or a flip may have changed it since).
  const top = S.view?.state?.top;
  return last && top && (last.event.card.id == null || last.event.card.id === top.id) ? last : null;
}

function playerOf(entry) {
  const ev = entry.event;
  // The names of that moment; a bot's in the page's language.
  const then = { seats: entry.names };
  return eventName(ev, then) || seatName(then, ev.seat ?? 0);
}

function recentPlays(S) {
  const plays = playsThisRound(S).slice(-6);
  if (!plays.length) return null;
  return h('ol', { class: 'recent-plays', testid: 'recent-plays', 'aria-label': t('table.recent') },
    plays.map((e, i) => h('li', { class: i === plays.length - 1 && 'newest', dataset: { key: `rp-${e.version}` } },
      cardEl(e.event.card, { small: true, chosenColor: e.event.color }),
      nameFit(playerOf(e), { cls: 'recent-name' }))));
}

// --- drag a card to the pile ------------------------------------------------------------------

/** Pointer drag from the hand: dropped on the discard pile, the card is played (as a tap). */
function startDrag(e, S, actions) {
  const card = e.target.closest?.('.card.legal');
  if (!card || e.button > 0) return;
  const x0 = e.clientX;
  const y0 = e.clientY;
  let ghost = null;
  const move = (ev) => {
    if (!ghost && Math.hypot(ev.clientX - x0, ev.clientY - y0) < 12) return;
    if (!ghost) {
      ghost = card.cloneNode(true);
      ghost.classList.add('drag-ghost');
      ghost.removeAttribute('data-testid');
      ghost.setAttribute('aria-hidden', 'true');
      document.body.append(ghost);
      card.classList.add('dragging');
    }
    ghost.style.left = `${ev.clientX}px`;
    ghost.style.top = `${ev.clientY}px`;
  };
  const end = (ev) => {
    document.removeEventListener('pointermove', move);
    document.removeEventListener('pointerup', end);
    document.removeEventListener('pointercancel', end);
    if (!ghost) return; // a tap: the click plays it
    ghost.remove();
    card.classList.remove('dragging');
    // The click that ends a drag must not play the card a second time.
    // (That click comes right after pointerup, if at all; the guard is gone a moment later.)
    const swallow = (c) => { c.stopImmediatePropagation(); c.preventDefault(); };
    card.addEventListener('click', swallow, { capture: true, once: true });
    setTimeout(() => card.removeEventListener('click', swallow, { capture: true }), 0);
    const pile = document.querySelector('[data-testid=discard]')?.getBoundingClientRect();
    const over = pile && ev.type === 'pointerup' && ev.clientX >= pile.left - 16 && ev.clientX <= pile.right + 16
      && ev.clientY >= pile.top - 16 && ev.clientY <= pile.bottom + 16;
    if (over) beginPlay(S, actions, Number(card.dataset.cardId));
  };
  document.addEventListener('pointermove', move);
  document.addEventListener('pointerup', end);
  document.addEventListener('pointercancel', end);
}

// --- keyboard shortcuts help ------------------------------------------------------------------

function keysHelp(S, actions) {
  if (!S.showKeys) return null;
  const close = () => { S.showKeys = false; actions.render(); document.querySelector('[data-testid=keys-btn]')?.focus(); };
  const row = (keys, text) => h('tr', {}, h('th', {}, keys.map((k) => h('kbd', {}, k))), h('td', {}, text));
  return h('div', { class: 'overlay', onkeydown: (e) => { if (e.key === 'Escape' || e.key === '?') { e.preventDefault(); close(); } else trapTab(e, e.currentTarget); } },
    h('div', { class: 'panel keys-help', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'keys-title', testid: 'keys-help' },
      h('h2', { id: 'keys-title' }, t('keys.title')),
      h('table', {},
        row(['D'], t('keys.draw')), row(['U'], t('keys.uno')), row(['P'], t('keys.pass')),
        row(['1', '…', '9'], t('keys.digit')), row(['←', '→', 'Enter'], t('keys.arrows')), row(['?'], t('keys.help_key'))),
      h('button', { type: 'button', class: 'primary', testid: 'keys-close', onclick: close }, t('keys.close'))));
}

// --- your area ------------------------------------------------------------------------------

/** What the turn really allows when "play or draw" or "stack or take" would say too much: a
 * draw penalty the player cannot stack on, a turn where drawing is not allowed (the room's
 * no_voluntary_draw) or where no card can be played. */
function onlyMove(view) {
  const st = view.state || {};
  const moves = movesOf(view);
  const plays = (moves.play || []).length;
  if (st.phase === 'play') return plays && !moves.draw ? t('phase.you.play_only') : !plays && moves.draw ? t('phase.you.draw_only') : null;
  if (st.phase !== 'penalty' || plays) return null;
  const n = st.pending_draw;
  return n > 1 ? t('phase.you.penalty_take', { n }) : n === 1 ? t('phase.you.penalty_take_one') : t('phase.you.penalty_take_all');
}

/** "Take 4 cards", "Take 1 card" (a Draw One): the button of a pending draw. */
function takeText(n) {
  return n === 1 ? t('table.take_one') : t('table.take', { n });
}

function statusLine(S) {
  const view = S.view;
  const st = view.state || {};
  const you = view.you;
  const turnDl = st.deadlines?.turn;
  if (view.status !== 'playing') return h('p', { class: 'status', testid: 'turn-status' }, t(`status.${view.status}`));
  const mine = you && st.turn === you.seat;
  const current = view.seats.find((x) => x.seat === st.turn);
  // A human whose connection dropped: say the table waits for them (a bot steps in later).
  const away = current && !current.connected && !current.bot && !current.afk;
  const text = mine
    ? (onlyMove(view) ?? (t(`phase.you.${st.phase}`) !== `phase.you.${st.phase}` ? t(`phase.you.${st.phase}`) : t('table.your_turn')))
    : t(away ? 'table.waiting_reconnect' : 'table.their_turn', { name: seatName(view, st.turn) });
  // Out of turn, a legal play is a jump-in: say so (the card's light-blue ring alone told a
  // newcomer nothing).
  const jump = !mine && you && view.settings?.jump_in === true && (movesOf(view).play || []).length > 0;
  return h('div', { class: ['status', mine && 'mine', jump && 'with-hint'], testid: 'turn-status', dataset: { mine: String(!!mine) } },
    mine && turnDl?.at ? ring(turnDl.at, (view.settings?.turn_seconds || 30) * 1000, 'my-timer', { big: true }) : null,
    h('span', {}, text),
    jump ? h('span', { class: 'jump-hint', testid: 'jump-in-hint' }, t('table.jump_in_hint')) : null);
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
    h('p', { testid: 'challenge-text' }, challengeText(S, top)),
    h('div', { class: 'row' },
      h('button', { type: 'button', class: 'primary', testid: 'challenge-btn', disabled: !moves.challenge, onclick: () => actions.send({ type: 'challenge' }) }, t('challenge.challenge')),
      h('button', { type: 'button', testid: 'accept-btn', disabled: !moves.accept, onclick: () => actions.send({ type: 'accept' }) }, t('challenge.accept'))));
}

// Who played the card matters to the answer (did they hold the colour?), and on a phone the
// panel covers the seats: name them, from the newest challenge opened on this seat.
function challengeText(S, top) {
  const view = S.view;
  const card = top ? cardName(top, view.state?.color) : '';
  const mine = view.you?.seat;
  const opened = [...(S.log || [])].reverse().find((e) => e.event?.kind === 'challenge_opened');
  const by = opened && (opened.event.seat ?? opened.event.victim) === mine ? opened.event.by ?? opened.event.offender : null;
  return by != null && view.seats?.[by] ? t('challenge.text_by', { card, by: seatName(view, by) }) : t('challenge.text', { card });
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
      view.state?.pending_draw && view.state?.phase === 'penalty' ? takeText(view.state.pending_draw) : t('table.draw')),
    h('button', { type: 'button', testid: 'pass-btn', disabled: !moves.pass, onclick: () => actions.send({ type: 'pass' }) }, t('table.pass')),
    unoBtn,
    h('button', {
      type: 'button', class: 'ghost keys-btn', testid: 'keys-btn', 'aria-label': t('keys.help'), title: t('keys.help'),
      onclick: () => { S.showKeys = true; actions.render(); document.querySelector('[data-testid=keys-close]')?.focus(); },
    }, '?'));
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
    onpointerdown: (e) => startDrag(e, S, actions),
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

/** What the match is played to: a target score, or a number of hands (tournament tables). */
function goalText(view) {
  const st = view.settings || {};
  if (!st.scoring || st.scoring === 'none') return null;
  if (st.match_rounds === 1) return t('score.single_hand');
  if (st.match_rounds > 1) return t('score.match_rounds', { round: Math.max(1, view.round || 1), n: st.match_rounds });
  if (!st.target_score) return null;
  return t(st.scoring === 'lowest_wins' ? 'score.target_low' : 'score.target', { n: formatNumber(st.target_score) });
}

function scoringMode(view) {
  const mode = view.settings?.scoring;
  return ['winner_collects', 'lowest_wins', 'none'].includes(mode) ? mode : 'winner_collects';
}

/** A finished tournament table deals no new match: the tournament goes on elsewhere. */
function tournamentDone(S) {
  return !!S.session?.tournament && S.view?.status === 'match_over';
}

function scoreboard(S) {
  const view = S.view;
  const target = view.settings?.target_score;
  const scoring = view.settings?.scoring;
  return h('div', { class: 'panel scoreboard', testid: 'scoreboard' },
    h('h2', {}, t('score.title')),
    goalText(view) ? h('p', { class: 'muted', testid: 'score-goal' }, goalText(view)) : null,
    h('table', { class: 'scores' },
      h('tbody', {}, view.seats.map((seat) => h('tr', { testid: `score-${seat.seat}` },
        // The name is isolated; the cell keeps the page's direction, so names line up.
        h('td', { class: 'name' }, h('bdi', {}, displayName(seat))),
        h('td', { class: 'num' }, formatNumber(seat.score ?? 0)),
        target && scoring !== 'none' ? h('td', { class: 'bar-cell' }, h('span', { class: 'bar', style: { '--p': `${Math.min(100, (100 * (seat.score ?? 0)) / target)}%` } })) : null)))),
    view.match_id ? h('a', { href: `/m/${encodeURIComponent(view.match_id)}`, target: '_blank', rel: 'noopener', testid: 'match-link-side' }, t('score.history')) : null);
}

/**
 * The rules this room plays with, from its settings: every setting the view names, a house rule
 * or any other value that is not the default marked. Folded by default; the table's Rules
 * button opens it.
 */
function rulesPanel(S, actions) {
  // A key the view does not send has the rules' default.
  const st = { ...DEFAULTS, ...(S.view.settings || {}) };
  const variant = st.variant || 'classic';
  // Settings that do nothing in this variant are left out (as the form hides them).
  const unused = new Set([
    variant !== 'classic' && 'deck', variant !== 'classic' && 'custom_wilds', variant === 'all_wild' && 'first_card',
    variant !== 'flip' && 'flip_discard', st.draw !== 'until_playable' && 'max_draw',
    (st.scoring === 'none' || st.match_rounds) && 'target_score',
  ].filter(Boolean));
  const keys = SETTING_KEYS.filter((k) => k in st && !unused.has(k) && has(`set.${k}`));
  const changed = (k) => JSON.stringify(st[k]) !== JSON.stringify(DEFAULTS[k]);
  const house = keys.filter(changed).length;
  return h('details', {
    class: 'panel rules-panel', testid: 'rules-summary', id: 'rules-summary',
    open: !!S.showRules, 'data-controlled': '',
    ontoggle: (e) => { S.showRules = e.currentTarget.open; },
  },
  h('summary', { testid: 'rules-toggle' }, h('h2', {}, t('rules.title')),
    h('span', { class: 'muted rules-count' }, house ? t('rules.changed', { n: house }) : t('rules.standard'))),
  h('dl', { class: 'rules-list' }, keys.map((k) => h('div', { class: ['rule', changed(k) && 'changed'], testid: `rule-${k}` },
    h('dt', {}, t(`set.${k}`)),
    h('dd', {}, settingValue(k, st[k]), changed(k) ? h('span', { class: 'rule-mark', title: t('rules.not_default') }, h('span', { class: 'sr-only' }, ` (${t('rules.not_default')})`), ' ★') : null)))));
}

/** The way to the rules summary from your area (the side panels are below the hand on a phone). */
function rulesButton(S, actions) {
  return h('button', {
    type: 'button', class: 'ghost small rules-btn', testid: 'rules-btn', 'aria-controls': 'rules-summary',
    'aria-expanded': String(!!S.showRules), onclick: () => showRules(S, actions),
  }, t('rules.button'));
}

/** Open the rules summary and bring it into sight (the table's Rules button). */
function showRules(S, actions) {
  S.showRules = true;
  actions.render();
  const el = document.getElementById('rules-summary');
  el?.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
  el?.querySelector('summary')?.focus({ preventScroll: true });
}

function logPanel(S) {
  const list = h('ol', { class: 'log', testid: 'event-log', id: 'event-log', dataset: { autoscroll: '' } },
    S.log.filter((e) => e.event.kind !== 'chat').slice(-60).map((e) => {
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
    // The page's heading for a screen reader's list of headings (the table had none).
    h('h1', { class: 'sr-only', id: 'table-title' }, t('table.title')),
    h('div', { class: 'play-area' },
      // 'many': a phone's compact tiles (style.css), so the piles and your hand stay on screen.
      h('div', { class: ['felt', (others.length > 5 || NARROW.matches) && 'crowded', (others.length > 3 || (others.length > 1 && SMALL_PHONE.matches)) && 'many'], dataset: { seats: String(others.length) } },
        others.map((seat, i) => seatTile(S, actions, seat, i, others.length)),
        centre(S, actions)),
      h('div', { class: 'me-area' },
        statusLine(S),
        betweenRounds(S, actions),
        recentPlays(S),
        challengePanel(S, actions),
        choosePanel(S, actions),
        me?.afk ? h('div', { class: 'panel afk-banner', role: 'status', testid: 'afk-banner' },
          h('p', {}, t('afk.text')),
          h('button', { type: 'button', class: 'primary', testid: 'back-btn', onclick: () => actions.send({ type: 'back' }, { at: false }) }, t('afk.back')))
          : null,
        me ? h('div', { class: 'me-head', testid: `seat-${me.seat}` },
          h('span', { class: 'seat-name', dir: 'auto' }, displayName(me)), ' ', h('span', { class: 'muted' }, `(${t('seat.you')})`),
          me.uno ? h('span', { class: 'badge uno', testid: 'my-uno' }, t('seat.uno')) : null,
          seatBadges(me, view), rulesButton(S, actions)) : h('div', { class: 'me-head' },
          h('p', { class: 'badge spectator', testid: 'spectator-badge' }, t('spectator.badge')), rulesButton(S, actions)),
        // Under a challenge the dialog's two buttons are the moves; no third "Draw" beside them.
        view.you && !(movesOf(view).challenge || movesOf(view).accept) ? actionBar(S, actions) : null,
        view.you ? handEl(S, actions) : null)),
    h('aside', { class: 'side-panels' },
      view.spectators || view.host_deadline ? h('div', { class: 'table-meta', testid: 'table-meta' },
        spectatorCount(view), hostCountdown(S, view)) : null,
      scoreboard(S),
      rulesPanel(S, actions),
      logPanel(S),
      chatPanel(S, actions),
      h('button', { type: 'button', class: 'ghost small', testid: 'copy-invite', onclick: () => copyInvite(view.room, actions) }, t('lobby.copy')),
      view.you ? leaveButton(S, actions) : stopWatching(actions)),
    pickerOverlay(S, actions),
    keysHelp(S, actions),
    summaryOverlay(S, actions));
}

// === playing a card: pickers =============================================================
// Playing a card: ask for a color and a target when the move needs them, then send `play`.

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
        // The name isolated: a right-to-left name would take the count along ("7 · آیدا cards").
      }, h('bdi', {}, seatName(S.view, seat)), ' · ', cardsText(S.view.seats[seat]?.hand_count ?? 0))))];
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

// === the round summary ===================================================================
// The round summary: every revealed hand, the points, the totals, the match winner.

/** What a player who cannot deal waits for: the timer, or the host (who deals by hand). */
export function waitingText(view, nextAt) {
  const matchOver = view.status === 'match_over';
  if (nextAt) return t(matchOver ? 'summary.waiting_match' : 'summary.waiting');
  return t(matchOver ? 'summary.host_new_match' : 'summary.host_deals', { name: seatName(view, view.host) });
}

/**
 * Between rounds with the summary closed: reopen it, and the host's Next round (the room may
 * wait for the host to deal, so this button must never be out of reach).
 */
export function betweenRounds(S, actions) {
  const view = S.view;
  if (!['round_over', 'match_over'].includes(view.status) || !S.summaryHidden) return null;
  const moves = view.you?.moves || {};
  const isHost = view.you && view.you.seat === view.host;
  const canStart = !tournamentDone(S) && ('start' in moves ? !!moves.start : isHost);
  const nextAt = view.state?.deadlines?.next_round?.at ?? null;
  return h('div', { class: 'between-rounds row', testid: 'between-rounds' },
    h('button', {
      type: 'button', testid: 'summary-open',
      onclick: () => { S.summaryHidden = false; actions.render(); document.querySelector('[data-testid=summary-close]')?.focus(); },
    }, t('summary.open')),
    canStart ? h('button', { type: 'button', class: 'primary', testid: 'next-round-inline', onclick: () => actions.send({ type: 'start' }) },
      t(view.status === 'match_over' ? 'summary.new_match' : 'summary.next_round'))
      : h('span', { class: 'muted', testid: 'between-waiting' }, tournamentDone(S) ? t('summary.tournament_done') : waitingText(view, nextAt)));
}

// The match so far (table and chart) in the summary: match.js and the record load when a
// summary first shows; the round just ended is added if the record does not have it yet.
let matchModule = null;

function historyPart(S, actions, matchId) {
  const ev = S.summary;
  const key = `${matchId}:${ev?.round ?? ''}`;
  const rec = S.matchRecord;
  if (matchModule && rec?.key === key) return matchModule.matchHistory(rec.match);
  if (S.matchLoading !== key) {
    S.matchLoading = key;
    Promise.all([import('./match.js'), api.match(matchId).catch(() => null)]).then(([m, match]) => {
      matchModule = m;
      const seats = S.view?.seats || [];
      const record = match || { players: seats.map((x) => ({ seat: x.seat, name: x.name, player_id: x.player_id, bot: x.bot })), rounds: [], settings: S.view?.settings };
      const rounds = [...(record.rounds || [])];
      if (ev?.round && !rounds.some((r) => r.number === ev.round)) rounds.push({ number: ev.round, winner: ev.winner, points: ev.points || [] });
      S.matchRecord = { key, match: { ...record, rounds } };
      actions.render();
    });
  }
  return h('p', { class: 'muted', testid: 'history-loading' }, t('join.loading'));
}

export function summaryOverlay(S, actions) {
  const view = S.view;
  const ev = S.summary;
  if (!['round_over', 'match_over'].includes(view.status) || S.summaryHidden) return null;
  const me = view.you;
  const moves = view.you?.moves || {};
  const isHost = me && me.seat === view.host;
  const canStart = !tournamentDone(S) && ('start' in moves ? !!moves.start : isHost);
  const matchOver = view.status === 'match_over';
  const winner = S.matchEnd?.winner ?? (matchOver ? ev?.winner : null);
  const matchId = ev?.match_id || S.matchEnd?.match_id || view.match_id;
  const target = view.settings?.target_score;
  const scores = ev?.scores || view.seats.map((x) => x.score ?? 0);
  // The next round (or match) is dealt by itself at this time, when the room has a pause set.
  const nextAt = view.state?.deadlines?.next_round?.at ?? null;
  const close = () => { S.summaryHidden = true; actions.render(); };
  const onkeydown = (e) => { if (e.key === 'Escape') close(); else trapTab(e, e.currentTarget); };
  return h('div', { class: 'overlay', onkeydown }, h('div', {
    class: 'panel summary', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'summary-title', testid: 'round-summary',
  },
  h('h2', { id: 'summary-title' }, ev ? t('summary.title', { round: ev.round ?? view.round ?? '' }) : t(`status.${view.status}`)),
  ev && ev.winner != null ? h('p', { class: 'winner', testid: 'round-winner' }, t('summary.round_winner', { name: seatName(view, ev.winner) })) : null,
  matchOver && winner != null ? h('p', { class: 'match-winner', testid: 'match-winner' }, '🏆 ', t('summary.match_winner', { name: seatName(view, winner) })) : null,
  h('table', { class: 'scores summary-table' },
    // How the points columns relate: who scores the cards left in the hands.
    h('caption', { class: 'muted', testid: 'summary-how' }, t(`summary.how.${scoringMode(view)}`)),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('score.player')), h('th', { scope: 'col' }, t('summary.hand')),
      h('th', { scope: 'col', class: 'num' }, t('summary.points')), h('th', { scope: 'col', class: 'num' }, t('summary.total')))),
    h('tbody', {}, view.seats.map((seat) => h('tr', { testid: `summary-seat-${seat.seat}` },
      h('td', {}, h('bdi', {}, displayName(seat))),
      // The cards left and what they are worth ("9 pts"), under them: the server's count
      // (extension `hand_points`, on the side in play); an older server's event has none.
      h('td', {}, h('div', { class: 'mini-hand' }, (ev?.hands?.[seat.seat] || []).map((c) => cardEl(c, { small: true }))),
        Number.isInteger(ev?.hand_points?.[seat.seat]) ? h('span', { class: 'hand-points', testid: `summary-hand-points-${seat.seat}` },
          t('summary.hand_points', { n: ev.hand_points[seat.seat] })) : null),
      h('td', { class: 'num', testid: `summary-points-${seat.seat}` }, formatNumber(ev?.points?.[seat.seat] ?? 0)),
      h('td', { class: 'num', testid: `summary-total-${seat.seat}` }, formatNumber(scores[seat.seat] ?? 0)))))),
  goalText(view) ? h('p', { class: 'muted' }, goalText(view)) : null,
  h('div', { class: 'row' },
    S.session?.tournament ? h('a', { class: 'button ghost', href: `/t/${encodeURIComponent(S.session.tournament)}`, testid: 'tournament-link' }, t('tour.back')) : null,
    matchId ? h('a', { class: 'button ghost', href: `/m/${encodeURIComponent(matchId)}`, target: '_blank', rel: 'noopener', testid: 'match-link' }, t('summary.history')) : null,
    canStart ? h('button', { type: 'button', class: 'primary', testid: 'next-round-btn', onclick: () => actions.send({ type: 'start' }) },
      t(matchOver ? 'summary.new_match' : 'summary.next_round')) : h('span', { class: 'muted', testid: 'summary-waiting' }, tournamentDone(S) ? t('summary.tournament_done') : waitingText(view, nextAt)),
    nextAt ? ring(nextAt, (view.settings?.next_round_seconds || 10) * 1000, 'next-round-timer') : null,
    h('button', { type: 'button', class: 'ghost', testid: 'summary-close', onclick: close }, t('summary.close'))),
  matchId ? h('div', { dataset: { key: 'summary-history' } }, historyPart(S, actions, matchId)) : null));
}

// === motion ==============================================================================
// Motion for the events of one frame, in their order: a played card flies from its seat to
// the pile, drawn cards fly from the pile to the seat (or your hand), one after the other.
// The view is already rendered; the flights run over it, so nothing waits on them.

const STEP_MS = 260;
const FLIGHT_MS = 380;
const REDUCED = window.matchMedia('(prefers-reduced-motion: reduce)');

let queue = Promise.resolve();

function seatBox(seat, mine) {
  const el = mine ? document.querySelector('[data-testid="hand"]')
    : document.querySelector(`.felt [data-testid="seat-${seat}"]`);
  return el?.getBoundingClientRect() ?? null;
}

function box(testid) {
  return document.querySelector(`[data-testid="${testid}"]`)?.getBoundingClientRect() ?? null;
}

function fly(node, from, to) {
  // Under a dialog (the round's summary, a picker) the table is hidden: a card flying over
  // the dialog (the winning card, the penalty's draws) only got in the way of reading it.
  if (!from || !to || document.querySelector('[aria-modal="true"]')) return Promise.resolve();
  const layer = document.getElementById('motion') || document.body;
  node.classList.add('flying');
  node.setAttribute('aria-hidden', 'true');
  const x0 = from.left + from.width / 2;
  const y0 = from.top + from.height / 2;
  const x1 = to.left + to.width / 2;
  const y1 = to.top + to.height / 2;
  node.style.left = `${x0}px`;
  node.style.top = `${y0}px`;
  layer.append(node);
  const anim = node.animate(
    [{ transform: 'translate(-50%, -50%) scale(0.8)' },
      { transform: `translate(calc(${x1 - x0}px - 50%), calc(${y1 - y0}px - 50%)) scale(1)` }],
    { duration: FLIGHT_MS, easing: 'cubic-bezier(.2,.7,.3,1)' });
  return anim.finished.catch(() => {}).then(() => node.remove());
}

/** The flights of one event, or null when it has none. */
function flightOf(ev, me) {
  if (ev.kind === 'card_played' && ev.card) {
    return () => fly(cardEl(ev.card, { chosenColor: ev.color }), seatBox(ev.seat, ev.seat === me), box('discard'));
  }
  if (ev.kind === 'card_drawn') {
    const n = Math.min(3, ev.count ?? ev.cards?.length ?? 1);
    return () => Promise.all(Array.from({ length: n }, (_, i) => new Promise((r) => setTimeout(r, i * 80))
      .then(() => fly(backEl({ small: false }), box('draw-pile'), seatBox(ev.seat, ev.seat === me)))));
  }
  return null;
}

/** Play the events' flights in order (after the frame is rendered). */
export function playEvents(events, me) {
  window.__unoMotion = (window.__unoMotion || []).concat(events.map((e) => e.kind)).slice(-50);
  if (REDUCED.matches || document.hidden) return;
  for (const ev of events) {
    const flight = flightOf(ev, me);
    if (!flight) continue;
    queue = queue.then(() => Promise.race([flight(), new Promise((r) => setTimeout(r, STEP_MS))]));
  }
}
