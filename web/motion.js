// Motion for the events of one frame, in their order: a played card flies from its seat to
// the pile, drawn cards fly from the pile to the seat (or your hand), one after the other.
// The view is already rendered; the flights run over it, so nothing waits on them.
import { cardEl, backEl } from './cards.js';

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
  if (!from || !to) return Promise.resolve();
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
