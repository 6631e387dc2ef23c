// Home (create a room, host a tournament), the join-by-link form.
import { h } from './dom.js';
import { t } from './i18n/index.js';
import { api, ApiError, saveSession, knownSessions, rememberedName, rememberName } from './api.js';
import { settingsForm, changedSettings, DEFAULTS } from './settings.js';
import { hostTournamentPanel } from './tournament.js';

function errorText(err) {
  if (err instanceof ApiError) {
    const key = `err.${err.code}`;
    const text = t(key);
    return text !== key ? text : (err.message || t('err.generic'));
  }
  return t('err.generic');
}

function nameInput(testid) {
  return h('input', {
    id: testid, testid, type: 'text', required: true, maxlength: 40, autocomplete: 'nickname',
    value: rememberedName(), placeholder: t('home.name_placeholder'),
  });
}

export function homeScreen(S, actions) {
  let settings = { ...DEFAULTS };
  const name = nameInput('create-name');
  const status = h('p', { class: 'error', role: 'alert', testid: 'create-error' });
  const form = settingsForm(settings, { prefix: 'create', onChange: (_, all) => { settings = all; } });

  const submit = async (e) => {
    e.preventDefault();
    const who = name.value.trim();
    if (!who) { name.focus(); return; }
    const button = e.target.querySelector('[type=submit]');
    button.disabled = true;
    status.textContent = '';
    try {
      rememberName(who);
      const res = await api.createRoom(who, changedSettings(settings));
      saveSession({ room: res.room, token: res.token, player_id: res.player_id, seat: res.seat, role: 'player', name: who });
      actions.navigate(res.url || `/r/${res.room}`);
    } catch (err) {
      status.textContent = errorText(err);
      button.disabled = false;
    }
  };

  const rooms = knownSessions();
  return h('section', { class: 'home', testid: 'home' },
    h('div', { class: 'hero' },
      h('h1', {}, t('home.title')),
      h('p', {}, t('home.tagline'))),
    h('form', { class: 'panel create', onsubmit: submit, testid: 'create-form' },
      h('h2', {}, t('home.create')),
      h('div', { class: 'field' }, h('label', { for: 'create-name' }, t('home.your_name')), name),
      h('details', { class: 'settings-box', testid: 'create-settings' },
        h('summary', {}, t('home.settings')),
        form),
      status,
      h('button', { type: 'submit', class: 'primary big', testid: 'create-btn' }, t('home.create_btn'))),
    h('div', { class: 'panel' },
      h('h2', {}, t('home.join')),
      h('p', {}, t('home.join_help')),
      h('form', {
        class: 'row', testid: 'open-link-form',
        onsubmit: (e) => {
          e.preventDefault();
          const code = roomFromLink(e.target.elements.link.value);
          if (code) actions.navigate(`/r/${encodeURIComponent(code)}`);
        },
      },
      h('label', { for: 'open-link', class: 'sr-only' }, t('home.link_label')),
      h('input', { id: 'open-link', name: 'link', type: 'text', testid: 'open-link', placeholder: t('home.link_label'), class: 'grow' }),
      h('button', { type: 'submit', testid: 'open-link-btn' }, t('home.link_open'))),
      rooms.length ? h('ul', { class: 'recent', testid: 'recent-rooms' },
        rooms.map((r) => h('li', {}, h('a', {
          href: `/r/${encodeURIComponent(r.room)}`,
          onclick: (e) => { e.preventDefault(); actions.navigate(`/r/${encodeURIComponent(r.room)}`); },
        }, t('home.recent_room', { name: r.name || '', code: r.room.slice(0, 8) })))) ) : null),
    hostTournamentPanel(actions));
}

/** The room code from a pasted invite link (".../r/CODE") or a bare code. */
export function roomFromLink(text) {
  const value = (text || '').trim();
  const m = value.match(/\/r\/([^/?#\s]+)/);
  if (m) return decodeURIComponent(m[1]);
  return /^[A-Za-z0-9_-]{4,}$/.test(value) ? value : null;
}

export function joinScreen(S, actions) {
  const room = S.route.room;
  const name = nameInput('join-name');
  const status = h('p', { class: 'error', role: 'alert', testid: 'join-error' });
  const info = h('div', { class: 'room-info', testid: 'join-info' }, t('join.loading'));
  const watchBtn = h('button', { type: 'button', class: 'ghost', testid: 'watch-btn', onclick: () => watch() }, t('join.watch'));
  const joinBtn = h('button', { type: 'submit', class: 'primary big', testid: 'join-btn' }, t('join.join'));

  const done = (res, role, who) => {
    saveSession({ room, token: res.token, player_id: res.player_id ?? null, seat: res.seat ?? null, role, name: who });
    actions.navigate(`/r/${encodeURIComponent(room)}`);
  };

  const watch = async () => {
    const who = name.value.trim() || t('join.spectator');
    try {
      done(await api.watchRoom(room, who), 'spectator', who);
    } catch (err) {
      status.textContent = errorText(err);
    }
  };

  const join = async (e) => {
    e.preventDefault();
    const who = name.value.trim();
    if (!who) { name.focus(); return; }
    joinBtn.disabled = true;
    status.textContent = '';
    try {
      rememberName(who);
      done(await api.joinRoom(room, who), 'player', who);
    } catch (err) {
      joinBtn.disabled = false;
      if (err.status === 409) {
        status.textContent = t('join.full');
        watchBtn.classList.add('primary');
        watchBtn.focus();
      } else {
        status.textContent = errorText(err);
      }
    }
  };

  api.roomSummary(room).then((sum) => {
    const seats = sum.seats || [];
    const players = seats.map((s) => s.name).filter(Boolean).join(', ');
    info.replaceChildren(
      h('p', {}, t('join.status', { status: t(`status.${sum.status}`) })),
      players ? h('p', {}, t('join.players', { names: players })) : null);
    if (sum.status && sum.status !== 'lobby') {
      status.textContent = t('join.started');
      watchBtn.classList.add('primary');
    }
  }).catch((err) => {
    info.replaceChildren(h('p', { class: 'error' }, err.status === 404 ? t('join.no_room') : errorText(err)));
    if (err.status === 404) { joinBtn.disabled = true; watchBtn.disabled = true; }
  });

  return h('section', { class: 'join' },
    h('form', { class: 'panel narrow', onsubmit: join, testid: 'join-form' },
      h('h1', {}, t('join.title')),
      info,
      h('div', { class: 'field' }, h('label', { for: 'join-name' }, t('home.your_name')), name),
      status,
      h('div', { class: 'row' }, joinBtn, watchBtn)));
}
