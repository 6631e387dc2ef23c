// The round summary: every revealed hand, the points, the totals, the match winner.
import { h, trapTab } from './dom.js';
import { t, formatNumber } from './i18n/index.js';
import { cardEl } from './cards.js';
import { seatName } from './events.js';
import { ring } from './rings.js';

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
  const canStart = 'start' in moves ? !!moves.start : isHost;
  const nextAt = view.state?.deadlines?.next_round?.at ?? null;
  return h('div', { class: 'between-rounds row', testid: 'between-rounds' },
    h('button', {
      type: 'button', testid: 'summary-open',
      onclick: () => { S.summaryHidden = false; actions.render(); document.querySelector('[data-testid=summary-close]')?.focus(); },
    }, t('summary.open')),
    canStart ? h('button', { type: 'button', class: 'primary', testid: 'next-round-inline', onclick: () => actions.send({ type: 'start' }) },
      t(view.status === 'match_over' ? 'summary.new_match' : 'summary.next_round'))
      : h('span', { class: 'muted', testid: 'between-waiting' }, waitingText(view, nextAt)));
}

export function summaryOverlay(S, actions) {
  const view = S.view;
  const ev = S.summary;
  if (!['round_over', 'match_over'].includes(view.status) || S.summaryHidden) return null;
  const me = view.you;
  const moves = view.you?.moves || {};
  const isHost = me && me.seat === view.host;
  const canStart = 'start' in moves ? !!moves.start : isHost;
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
    h('thead', {}, h('tr', {}, h('th', {}, t('score.player')), h('th', {}, t('summary.hand')), h('th', {}, t('summary.points')), h('th', {}, t('summary.total')))),
    h('tbody', {}, view.seats.map((seat) => h('tr', { testid: `summary-seat-${seat.seat}` },
      h('td', {}, seat.name),
      h('td', {}, h('div', { class: 'mini-hand' }, (ev?.hands?.[seat.seat] || []).map((c) => cardEl(c, { small: true })))),
      h('td', { class: 'num', testid: `summary-points-${seat.seat}` }, formatNumber(ev?.points?.[seat.seat] ?? 0)),
      h('td', { class: 'num', testid: `summary-total-${seat.seat}` }, formatNumber(scores[seat.seat] ?? 0)))))),
  target && view.settings?.scoring !== 'none' ? h('p', { class: 'muted' }, t('score.target', { n: formatNumber(target) })) : null,
  h('div', { class: 'row' },
    S.session?.tournament ? h('a', { class: 'button ghost', href: `/t/${encodeURIComponent(S.session.tournament)}`, testid: 'tournament-link' }, t('tour.back')) : null,
    matchId ? h('a', { class: 'button ghost', href: `/api/matches/${encodeURIComponent(matchId)}`, target: '_blank', rel: 'noopener', testid: 'match-link' }, t('summary.history')) : null,
    canStart ? h('button', { type: 'button', class: 'primary', testid: 'next-round-btn', onclick: () => actions.send({ type: 'start' }) },
      t(matchOver ? 'summary.new_match' : 'summary.next_round')) : h('span', { class: 'muted', testid: 'summary-waiting' }, waitingText(view, nextAt)),
    nextAt ? ring(nextAt, (view.settings?.next_round_seconds || 10) * 1000, 'next-round-timer') : null,
    h('button', { type: 'button', class: 'ghost', testid: 'summary-close', onclick: close }, t('summary.close')))));
}

