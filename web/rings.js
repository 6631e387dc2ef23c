// Countdown rings for the server's deadlines (turn, challenge, next round).
import { h, s } from './dom.js';
import { t, formatNumber } from './i18n/index.js';

/** A countdown ring to `at` (server clock); `total` ms is a full ring. */
export function ring(at, total, testid, { big = false } = {}) {
  const r = 16;
  const c = 2 * Math.PI * r;
  return h('span', {
    class: ['ring', big && 'big'], testid, role: 'timer',
    dataset: { deadline: String(at), total: String(Math.max(1, total)), circ: String(c) },
  },
  s('svg', { viewBox: '0 0 40 40', 'aria-hidden': 'true' },
    s('circle', { cx: 20, cy: 20, r, class: 'track' }),
    s('circle', { cx: 20, cy: 20, r, class: 'arc', 'stroke-dasharray': c, 'stroke-dashoffset': 0 })),
  h('span', { class: 'secs' }, ''));
}

/** Update every ring on the page from the server clock (called a few times a second). */
export function tickTimers(S) {
  const now = Date.now() + (S.offset || 0);
  for (const el of document.querySelectorAll('[data-deadline]')) {
    const at = Number(el.dataset.deadline);
    const total = Number(el.dataset.total);
    const left = Math.max(0, at - now);
    const frac = Math.min(1, left / total);
    const arc = el.querySelector('.arc');
    if (arc) arc.setAttribute('stroke-dashoffset', String(Number(el.dataset.circ) * (1 - frac)));
    const secs = Math.ceil(left / 1000);
    const label = el.querySelector('.secs');
    if (label) label.textContent = formatNumber(secs);
    el.setAttribute('aria-label', t('timer.left', { n: secs }));
    el.classList.toggle('urgent', left < 5000);
  }
}

