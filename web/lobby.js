// The lobby: seats, invite link, host controls (settings, bots, start).
import { h, t, copyText, linkField, formatNumber, displayName, eventName, seatName, countdown, listText, spectatorName, unnamedSpectator } from './core.js';
import { settingsForm } from './settings.js';

export function inviteUrl(room) {
  return `${location.origin}/r/${encodeURIComponent(room)}`;
}

export function seatBadges(seat, view) {
  return [
    seat.seat === view.host ? h('span', { class: 'badge host', title: t('seat.host') }, '♛ ', t('seat.host')) : null,
    seat.bot ? h('span', { class: 'badge bot' }, '⚙ ', t('seat.bot')) : null,
    seat.afk ? h('span', { class: 'badge afk' }, t('seat.afk')) : null,
    h('span', {
      class: ['dot', seat.connected || seat.bot ? 'on' : 'off'],
      role: 'img',
      'aria-label': seat.connected || seat.bot ? t('seat.online') : t('seat.offline'),
      title: seat.connected || seat.bot ? t('seat.online') : t('seat.offline'),
    }),
  ];
}

/** The phone's share sheet (where there is one) and a QR code of the link to show across the table. */
function inviteExtras(S, actions, room) {
  const url = inviteUrl(room);
  const qr = S.inviteQr?.url === url ? S.inviteQr : null;
  const toggleQr = () => {
    if (S.showQr) { S.showQr = false; actions.render(); return; }
    S.showQr = true;
    if (qr) { actions.render(); return; }
    import('./vendor/qrcode.js').then(({ default: qrcode }) => {
      const code = qrcode(0, 'M');
      code.addData(url);
      code.make();
      S.inviteQr = { url, svg: code.createSvgTag({ cellSize: 5, margin: 2, scalable: true, alt: t('invite.qr_alt') }) };
      actions.render();
    });
  };
  const box = S.showQr && qr ? h('div', { class: 'qr', testid: 'invite-qr', role: 'img', 'aria-label': t('invite.qr_alt') }) : null;
  if (box) box.innerHTML = qr.svg; // markup made by the QR library from the link, nothing typed
  return [
    h('div', { class: 'row invite-more' },
      navigator.share ? h('button', {
        type: 'button', testid: 'share-invite',
        onclick: () => navigator.share({ title: 'UNO', text: t('invite.share_text'), url }).catch(() => {}),
      }, t('invite.share')) : null,
      h('button', { type: 'button', testid: 'qr-btn', 'aria-expanded': String(!!S.showQr), onclick: toggleQr }, t('invite.qr'))),
    box,
  ];
}

export function copyInvite(room, actions) {
  const url = inviteUrl(room);
  // Copied, or said how to: it read "copied" when only the lobby's field had been selected
  // (and, on the table, which has no such field, nothing happened at all).
  copyText(url).then((ok) => actions.toast(ok ? t('lobby.copied') : t('lobby.copy_failed', { url })));
}

/** How many watch (PROTOCOL extension `view.spectators`); nothing while nobody does. */
export function spectatorCount(view) {
  const n = view.spectators || 0;
  if (!n) return null;
  return h('span', { class: 'badge watching', testid: 'spectator-count', title: t('spectators.title') }, '👁 ', t('spectators.count', { n }));
}

/**
 * The absent host's countdown (extension `view.host_deadline`): to whom the role passes and
 * when, or that the host is away with nobody to take over.
 */
export function hostCountdown(S, view) {
  const d = view.host_deadline;
  if (!d) return null;
  if (d.to == null) {
    return h('p', { class: 'host-countdown', role: 'status', testid: 'host-countdown' }, t('lobby.host_away', { name: seatName(view, d.seat) }));
  }
  return h('p', { class: 'host-countdown', role: 'status' },
    countdown(S, d.at, 'lobby.host_passes', { name: seatName(view, d.to) }, { testid: 'host-countdown' }));
}

export function lobbyScreen(S, actions) {
  const view = S.view;
  const you = view.you;
  // A tournament's table is dealt by the tournament once every entrant is here, with its
  // settings and bots: the entrant in the host seat gets no Start, bots, removals or settings
  // (the tournament put them back, and a Start before the others came dealt them in absent).
  const tournament = S.session?.tournament || null;
  const isHost = !tournament && you && you.seat != null && you.seat === view.host;
  const moves = you?.moves || {};
  const canStart = 'start' in moves ? !!moves.start : isHost && view.seats.length >= 2;
  const max = view.settings?.max_players ?? 10;

  const seats = h('ol', { class: 'seats', testid: 'lobby-seats' },
    view.seats.map((seat) => h('li', {
      class: ['seat-row', you && seat.seat === you.seat && 'me', seat.drop_at != null && 'departed'],
      testid: `lobby-seat-${seat.seat}`,
      dataset: { connected: String(!!seat.connected), bot: String(!!seat.bot), departed: String(seat.drop_at != null) },
    },
    h('span', { class: 'seat-no' }, formatNumber(seat.seat + 1)),
    h('span', { class: 'seat-name', dir: 'auto' }, displayName(seat)),
    you && seat.seat === you.seat ? h('span', { class: 'muted' }, t('seat.you')) : null,
    seatBadges(seat, view),
    // A player who left: not dealt in, and the seat is freed by itself (extension `drop_at`).
    seat.drop_at != null ? h('span', { class: 'badge left', testid: `seat-left-${seat.seat}` }, t('seat.left')) : null,
    seat.drop_at != null ? countdown(S, seat.drop_at, 'lobby.drop_in', {}, { class: 'muted drop-in', testid: `drop-${seat.seat}` }) : null,
    // The host frees any other seat: a bot, or a player who went away (who would be dealt in).
    isHost && seat.seat !== you.seat ? h('button', {
      type: 'button', class: 'ghost small', testid: seat.bot ? `remove-bot-${seat.seat}` : `remove-seat-${seat.seat}`,
      'aria-label': t('lobby.remove_named', { name: displayName(seat) }),
      onclick: () => actions.send(seat.bot ? { type: 'remove_bot', seat: seat.seat } : { type: 'remove_seat', seat: seat.seat }),
    }, t('lobby.remove_bot')) : null)));

  const invite = h('div', { class: 'invite' },
    h('label', { for: 'invite-url' }, t('lobby.invite')),
    h('div', { class: 'row' },
      // A field that wraps (the room code at the link's end was cut off on a phone), read left
      // to right in Persian too.
      linkField({ id: 'invite-url', testid: 'invite-url', value: inviteUrl(view.room) }),
      // "Copy" beside the labeled field; its accessible name says what is copied.
      h('button', { type: 'button', testid: 'copy-invite', 'aria-label': t('lobby.copy'), onclick: () => copyInvite(view.room, actions) }, t('lobby.copy_short'))),
    inviteExtras(S, actions, view.room));

  const departed = view.seats.filter((x) => x.drop_at != null);
  const alone = isHost && !canStart && view.seats.length < 2;
  const controls = isHost ? h('div', { class: 'host-controls' },
    departed.length ? h('p', { class: 'muted', testid: 'departed-note' },
      t('lobby.departed_note', { names: listText(departed.map((x) => displayName(x))) })) : null,
    h('div', { class: 'row' },
      h('button', {
        type: 'button', testid: 'add-bot', disabled: view.seats.length >= max,
        onclick: () => actions.send({ type: 'add_bot' }),
      }, t('lobby.add_bot')),
      h('button', {
        type: 'button', class: 'primary big', testid: 'start-btn', disabled: !canStart,
        'aria-describedby': alone ? 'start-hint' : null,
        onclick: () => actions.send({ type: 'start' }),
      }, t('lobby.start'))),
    // Alone in a new room the Start button is off: say what it waits for.
    alone ? h('p', { class: 'muted', id: 'start-hint', testid: 'start-hint' }, t('lobby.need_two')) : null)
    : tournament ? h('div', { class: 'host-controls' },
      h('p', { class: 'muted', testid: 'lobby-wait' }, t('lobby.tournament_wait')),
      h('a', { class: 'button ghost', href: `/t/${encodeURIComponent(tournament)}`, testid: 'tournament-link' }, t('tour.back')))
    : h('p', { class: 'muted', testid: 'lobby-wait' }, t('lobby.waiting_host'));

  const form = settingsForm(view.settings || {}, {
    prefix: 'lobby',
    disabled: !isHost,
    seated: view.seats.length,
    // A tournament's table whose matches are a set number of hands plays to a target of
    // 10000 that nobody reaches (the hands decide): not shown as if it were the goal.
    omit: tournament && (view.settings?.target_score ?? 0) >= 10000 ? ['target_score'] : [],
    onChange: (patch) => actions.send({ type: 'settings', settings: patch }),
  });

  return h('section', { class: 'lobby', testid: 'lobby' },
    h('div', { class: 'lobby-main' },
      h('div', { class: 'panel' },
        h('h1', {}, t('lobby.title')),
        you ? null : h('p', { class: 'badge spectator', testid: 'spectator-badge' }, t('spectator.badge')),
        invite,
        h('h2', {}, t('lobby.players', { n: view.seats.length, max }), ' ', spectatorCount(view)),
        seats,
        tournament ? null : hostCountdown(S, view),
        controls,
        you ? leaveButton(S, actions) : stopWatching(actions)),
      // Chat next to the seats (it sat below the long settings form, out of sight).
      chatPanel(S, actions)),
    h('div', { class: 'panel' },
      h('h2', {}, t('lobby.settings')),
      isHost ? null : h('p', { class: 'muted' }, t(tournament ? 'lobby.settings_tournament' : 'lobby.settings_readonly')),
      form));
}

export function chatPanel(S, actions) {
  const input = h('input', {
    type: 'text', maxlength: 300, testid: 'chat-input', id: 'chat-input',
    placeholder: t('chat.placeholder'), autocomplete: 'off', value: S.chatDraft || '',
    oninput: (e) => { S.chatDraft = e.target.value; },
  });
  const list = h('ol', { class: 'chat-list', testid: 'chat-list', 'aria-label': t('chat.title'), id: 'chat-list', dataset: { autoscroll: '' } },
    S.log.filter((e) => e.event.kind === 'chat').slice(-50).map(({ event: m, names, version }) =>
      h('li', { class: m.spectator && 'from-spectator', dataset: { ...(version != null ? { key: `chat-${version}` } : {}), spectator: String(!!m.spectator) } },
        h('b', { dir: 'auto' }, nameOf(names, m)),
        // A spectator's line says so: it cannot pass for a player's (once: one who gave no
        // name already shows as "Spectator").
        m.spectator && !unnamedSpectator(m.name) ? h('span', { class: 'chat-mark' }, ` (${t('chat.spectator')})`) : null,
        ': ', h('span', { dir: 'auto' }, m.text))));
  queueMicrotask(() => { if (!list.isConnected) return; list.scrollTop = list.scrollHeight; });
  return h('div', { class: 'panel chat' },
    h('h2', {}, t('chat.title')),
    list,
    // Spectators chat too (the one command they may send; their lines are marked).
    h('form', {
      class: 'row',
      onsubmit: (e) => {
        e.preventDefault();
        // The field in the page (a patched render keeps the first one it drew).
        const field = e.currentTarget.querySelector('[data-testid=chat-input]');
        const text = field.value.trim().slice(0, 300);
        if (!text) return;
        actions.send({ type: 'chat', text }, { at: false });
        S.chatDraft = '';
        field.value = '';
      },
    }, h('label', { for: 'chat-input', class: 'sr-only' }, t('chat.placeholder')), input,
    h('button', { type: 'submit', testid: 'chat-send' }, t('chat.send'))));
}

function nameOf(names, m) {
  if (m.spectator) return spectatorName(m.name);
  if (m.name) return eventName(m, { seats: names });
  const s = names?.find((x) => x.seat === m.seat);
  return s ? displayName(s) : t('spectator.someone');
}

/** A spectator's way out: forget the spectator's token and go home (no seat to give up). */
export function stopWatching(actions) {
  return h('button', { type: 'button', class: 'ghost small leave', testid: 'stop-watching', onclick: () => actions.leave() }, t('room.stop_watching'));
}

/** Leave the room: asks once, then sends `leave` (a bot keeps the seat of a running game). */
export function leaveButton(S, actions) {
  if (!S.confirmLeave) {
    return h('button', {
      type: 'button', class: 'ghost small leave', testid: 'leave-btn',
      onclick: () => { S.confirmLeave = true; actions.render(); document.querySelector('[data-testid=leave-confirm]')?.focus(); },
    }, t('room.leave'));
  }
  const playing = S.view?.status !== 'lobby';
  return h('div', { class: 'confirm-leave row', role: 'group', testid: 'leave-ask' },
    h('span', {}, t(playing ? 'room.leave_ask_game' : 'room.leave_ask')),
    h('button', { type: 'button', class: 'primary small', testid: 'leave-confirm', onclick: () => actions.leaveRoom() }, t('room.leave')),
    h('button', {
      type: 'button', class: 'small', testid: 'leave-cancel',
      onclick: () => { S.confirmLeave = false; actions.render(); document.querySelector('[data-testid=leave-btn]')?.focus(); },
    }, t('room.stay')));
}
