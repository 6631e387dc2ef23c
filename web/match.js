// The match record, readable: a table of every round's points and a chart of the scores over
// the rounds (inline SVG). Shown in the round summary and on the page /m/{match_id}; the JSON
// stays at /api/matches/{match_id}. Loaded only when one of them is shown.
import { h, s, t, append, formatNumber, api, errorText, listText, homeLink, LANGUAGES, language, displayName } from './core.js';

const LINE_COLORS = ['#d72600', '#0956bf', '#2f8f0f', '#a07800', '#7b3fa0', '#00838f', '#c2185b', '#5d4037', '#455a64', '#ef6c00'];

/** The totals after each round, per seat (a row per round). */
export function totalsByRound(match) {
  const n = match.players?.length ?? 0;
  const totals = Array(n).fill(0);
  return (match.rounds || []).map((r) => {
    (r.points || []).forEach((p, i) => { if (i < n) totals[i] += Number(p) || 0; });
    return [...totals];
  });
}

function nameOf(match, seat) {
  const p = match.players?.find((x) => x.seat === seat);
  return p?.name ? displayName(p) : t('seat.n', { n: seat + 1 });
}

/** A player's name as shown, "Seat 2" when the record has none (never "null"). */
function playerName(p) {
  return p?.name ? displayName(p) : t('seat.n', { n: (p?.seat ?? 0) + 1 });
}

/** A number as shown; a missing one (null, not a number) is 0. */
function num(v) {
  return formatNumber(Number.isFinite(Number(v)) && v != null ? Number(v) : 0);
}

/** Under `scoring: none` every round is a match of its own and every point is 0. */
function pointless(match) {
  return match.settings?.scoring === 'none';
}

/** A line per player over the rounds, a dashed line at the target score. */
export function scoreChart(match) {
  const rows = totalsByRound(match);
  const players = match.players || [];
  const W = 560;
  const H = 220;
  const pad = { l: 44, r: 12, t: 12, b: 28 };
  // A match of N hands (tournament tables) has no real target: its 10,000 is a formality.
  const st = match.settings || {};
  const target = st.scoring !== 'none' && !st.match_rounds ? st.target_score : null;
  const top = Math.max(10, target || 0, ...rows.flat());
  // Rounds run in the page's reading direction: left to right, or in Persian right to left
  // with the score axis on the right (every x is mirrored; the SVG itself stays ltr so its
  // text anchors mean left and right).
  const rtl = LANGUAGES[language()].dir === 'rtl';
  const mx = (v) => (rtl ? W - v : v);
  const x = (i) => mx(pad.l + ((W - pad.l - pad.r) * i) / Math.max(1, rows.length));
  const y = (v) => H - pad.b - ((H - pad.t - pad.b) * v) / top;
  const axisX = mx(pad.l);
  const endX = mx(W - pad.r);
  const tickX = mx(pad.l - 6);
  const anchor = rtl ? 'start' : 'end';
  const summary = listText(players.map((p) => `${playerName(p)} ${num(rows.at(-1)?.[p.seat])}`));
  return h('figure', { class: 'score-chart', testid: 'score-chart' },
    s('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', direction: 'ltr', 'aria-label': t('match.chart', { scores: summary }) },
      s('line', { x1: axisX, y1: y(0), x2: endX, y2: y(0), class: 'axis' }),
      s('line', { x1: axisX, y1: pad.t, x2: axisX, y2: y(0), class: 'axis', 'data-testid': 'chart-y-axis' }),
      s('text', { x: tickX, y: y(top) + 4, class: 'tick', 'text-anchor': anchor }, formatNumber(top)),
      s('text', { x: tickX, y: y(0) + 4, class: 'tick', 'text-anchor': anchor }, formatNumber(0)),
      rows.map((_, i) => s('text', { x: x(i + 1), y: H - 8, class: 'tick', 'text-anchor': 'middle', 'data-testid': `chart-round-${i + 1}` }, formatNumber(i + 1))),
      target ? s('line', { x1: axisX, y1: y(target), x2: endX, y2: y(target), class: 'target', 'data-testid': 'chart-target' }) : null,
      players.map((p, k) => {
        const pts = [[x(0), y(0)], ...rows.map((r, i) => [x(i + 1), y(r[p.seat] ?? 0)])];
        const color = LINE_COLORS[k % LINE_COLORS.length];
        return s('g', { class: 'series', 'data-testid': `chart-seat-${p.seat}` },
          s('polyline', { points: pts.map((q) => q.join(',')).join(' '), fill: 'none', stroke: color, 'stroke-width': 2.5 }),
          pts.slice(1).map((q) => s('circle', { cx: q[0], cy: q[1], r: 3.5, fill: color })));
      })),
    h('figcaption', { class: 'legend' }, players.map((p, k) => h('span', { class: 'key' },
      h('span', { class: 'swatch-line', style: { '--c': LINE_COLORS[k % LINE_COLORS.length] }, 'aria-hidden': 'true' }),
      h('bdi', {}, playerName(p))))));
}

/** Every round's points, the winner marked, and the totals; under `scoring: none` (no points)
 * the winner of each round and the rounds won. */
export function roundsTable(match) {
  const players = match.players || [];
  const rows = totalsByRound(match);
  const none = pointless(match);
  const won = (p) => (match.rounds || []).filter((r) => r.winner === p.seat).length;
  return h('table', { class: 'scores rounds-table', testid: 'rounds-table' },
    h('thead', {}, h('tr', {}, h('th', {}, t('match.round')), players.map((p) => h('th', { class: 'num' }, h('bdi', {}, playerName(p)))))),
    h('tbody', {}, (match.rounds || []).map((r, i) => h('tr', { testid: `round-row-${r.number ?? i + 1}` },
      h('th', {}, formatNumber(r.number ?? i + 1)),
      players.map((p) => h('td', { class: ['num', r.winner === p.seat && 'won'] },
        r.winner === p.seat ? h('span', { class: 'sr-only' }, t('match.won')) : null,
        none ? (r.winner === p.seat ? h('span', { 'aria-hidden': 'true' }, '🏆') : h('span', { class: 'muted', 'aria-hidden': 'true' }, '–'))
          : num(r.points?.[p.seat])))))),
    h('tfoot', {}, h('tr', {}, h('th', {}, t(none ? 'match.rounds_won' : 'summary.total')),
      players.map((p) => h('td', { class: 'num', testid: `total-${p.seat}` },
        none ? formatNumber(won(p)) : num(rows.at(-1)?.[p.seat] ?? match.scores?.[p.seat]))))));
}

export function matchHistory(match) {
  return h('div', { class: 'match-history', testid: 'match-history' },
    // Under `scoring: none` every score stays 0: no chart of flat lines, the table says who won.
    match.rounds?.length ? [pointless(match) ? null : scoreChart(match), roundsTable(match)] : h('p', { class: 'muted' }, t('match.no_rounds')));
}

const cache = new Map(); // match id -> answer (refetched when the match is running)

/** Fetch a match (kept while finished). */
export async function loadMatch(id, { fresh = false } = {}) {
  const hit = cache.get(id);
  if (hit && (hit.status === 'finished' || !fresh)) return hit;
  const match = await api.match(id);
  cache.set(id, match);
  return match;
}

/** The page /m/{match_id}. */
export function matchScreen(S, actions) {
  const id = S.route.id;
  const box = h('section', { class: 'panel match-page', testid: 'match-page' },
    h('h1', {}, t('match.title')),
    h('p', { class: 'muted' }, t('join.loading')));
  loadMatch(id, { fresh: true }).then((match) => {
    const winner = match.winner != null ? nameOf(match, match.winner) : null;
    const n = match.rounds?.length ?? 0;
    const status = ['finished', 'abandoned'].includes(match.status) ? match.status : 'running';
    // replaceChildren() would write a null child as the text "null": append() skips it.
    box.replaceChildren();
    append(box, [
      h('h1', {}, t('match.title')),
      h('p', { testid: 'match-status' }, t(`match.${status}${n === 1 ? '_one' : ''}`, { n })),
      winner ? h('p', { class: 'match-winner', testid: 'match-page-winner' }, '🏆 ', t('summary.match_winner', { name: winner })) : null,
      matchHistory(match),
      // No link to the room: the record withholds its code (a results link is shared).
      h('p', { class: 'row' },
        h('a', { class: 'button ghost', href: `/api/matches/${encodeURIComponent(id)}`, testid: 'match-json' }, t('match.json'))),
      homeLink(actions)]);
  }).catch((err) => {
    box.replaceChildren();
    append(box, [h('h1', {}, t('match.title')), h('p', { class: 'error', testid: 'match-error' }, err.status === 404 ? t('match.none') : errorText(err.code)),
      err.status === 404 ? homeLink(actions) : null]);
  });
  return box;
}
