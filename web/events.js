// Human sentences for events (the log, the live region). Only what the event itself says.
import { t, has } from './i18n/index.js';
import { cardName, colorName } from './cards.js';

export function seatName(view, seat) {
  if (seat == null) return '';
  const s = view?.seats?.find((x) => x.seat === seat);
  return s?.name || t('seat.n', { n: seat + 1 });
}

function pick(ev, ...keys) {
  for (const k of keys) if (ev[k] !== undefined && ev[k] !== null) return ev[k];
  return null;
}

/** A one-line description of an event, or null when it is not worth a line. */
export function describe(ev, view) {
  const seat = pick(ev, 'seat', 'player', 'by');
  const p = {
    // An event that names its player is read as sent: seat numbers move when a lobby seat leaves.
    name: typeof ev.name === 'string' && ev.name ? ev.name : seatName(view, seat),
    target: seatName(view, pick(ev, 'target', 'victim', 'to', 'caught')),
    by: seatName(view, pick(ev, 'by', 'catcher', 'challenger')),
    color: colorName(pick(ev, 'color')),
    count: pick(ev, 'count', 'n', 'amount') ?? '',
    round: pick(ev, 'round') ?? '',
    text: ev.text ?? '',
  };
  switch (ev.kind) {
    case 'card_played': {
      const card = ev.card ? cardName(ev.card, ev.color) : t('card.unknown');
      const base = t('ev.card_played', { ...p, card });
      return p.target && pick(ev, 'target') != null ? `${base} → ${p.target}` : base;
    }
    case 'card_drawn': {
      const cards = ev.cards || (ev.card ? [ev.card] : null);
      const count = ev.count ?? cards?.length ?? 1;
      if (cards && cards.length) {
        return t('ev.card_drawn_you', { ...p, count, cards: cards.map((c) => cardName(c)).join(', ') });
      }
      return t('ev.card_drawn', { ...p, count });
    }
    case 'uno_caught':
      return t(ev.false_catch ? 'ev.false_catch' : 'ev.uno_caught', {
        name: seatName(view, pick(ev, 'seat', 'caught')),
        by: seatName(view, pick(ev, 'by', 'catcher')),
        count: pick(ev, 'penalty', 'count') ?? '',
      });
    case 'challenge_opened':
      return t('ev.challenge_opened', {
        name: seatName(view, pick(ev, 'seat', 'victim')),
        by: seatName(view, pick(ev, 'offender', 'by', 'player')),
      });
    case 'challenge_resolved': {
      const guilty = pick(ev, 'guilty', 'success', 'bluff');
      const key = guilty === true ? 'ev.challenge_guilty' : guilty === false ? 'ev.challenge_innocent' : 'ev.challenge_resolved';
      const line = t(key, {
        name: seatName(view, pick(ev, 'challenger', 'seat', 'victim')),
        by: seatName(view, pick(ev, 'offender', 'by', 'player')),
      });
      // Only the challenger receives the challenged hand (PROTOCOL); show it to them.
      if (Array.isArray(ev.hand)) {
        return `${line}. ${t('ev.challenge_hand', { cards: ev.hand.map((c) => cardName(c)).join(', ') })}`;
      }
      return line;
    }
    case 'turn_passed':
      return t(ev.auto ? 'ev.turn_ended' : 'ev.turn_passed', p);
    case 'penalty_pending':
      return t('ev.penalty_pending', { ...p, count: ev.pending_draw ?? '' });
    case 'cards_discarded':
      return t('ev.cards_discarded', { ...p, count: ev.cards?.length ?? '' });
    case 'direction_changed':
      return t(ev.direction === -1 ? 'ev.direction_ccw' : 'ev.direction_cw');
    case 'side_flipped':
      return t('ev.side_flipped', { side: t(`side.${ev.side || 'light'}`) });
    case 'round_ended':
      return ev.winner != null ? t('ev.round_ended', { ...p, name: seatName(view, ev.winner) }) : t('ev.round_ended_none', p);
    case 'match_ended':
      return ev.winner != null ? t('ev.match_ended', { name: seatName(view, ev.winner) }) : t('ev.match_ended_none');
    case 'host_changed':
      return ev.host == null ? null : t('ev.host_changed', { name: seatName(view, ev.host) });
    case 'dealer_chosen':
      return t('ev.dealer_chosen', { name: seatName(view, pick(ev, 'dealer', 'seat')) });
    case 'round_started':
      return t('ev.round_started', { round: p.round, name: seatName(view, pick(ev, 'dealer')) });
    case 'player_joined':
      return t('ev.player_joined', { name: ev.name || p.name });
    case 'timer_expired':
      return t('ev.timer_expired', { ...p, timer: has(`timer.${ev.timer || ev.deadline}`) ? t(`timer.${ev.timer || ev.deadline}`) : '' });
    case 'chat':
      return `${p.name}: ${p.text}`;
    default:
      if (has(`ev.${ev.kind}`)) return t(`ev.${ev.kind}`, p);
      return null;
  }
}
