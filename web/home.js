// Home (create a room, host a tournament), the join-by-link form.
import { h, t, errorText as errorByCode, api, ApiError, saveSession, loadSession, knownSessions, rememberedName, rememberName, listText, homeLink, displayName } from './core.js';
import { clampName, nameKey, nameProblem, normalName, nameLimit } from './names.js';
import { settingsForm, changedSettings, DEFAULTS } from './settings.js';

function errorText(err) {
  return errorByCode(err instanceof ApiError ? err.code : 'generic');
}

/**
 * The name field: at most 32 graphemes (a ZWJ family emoji is one), checked with the server's
 * rule as it is typed. `draft` keeps what was typed across re-renders (language, rotation).
 */
function nameInput(testid, draft) {
  const hint = h('p', { class: 'field-hint', id: `${testid}-hint`, testid: `${testid}-hint`, 'aria-live': 'polite' });
  const input = h('input', {
    id: testid, testid, type: 'text', required: true, autocomplete: 'nickname', spellcheck: 'false',
    value: draft.name ?? rememberedName(), placeholder: t('home.name_placeholder'),
    'aria-describedby': hint.id,
    oninput: () => {
      const clamped = clampName(input.value);
      const cut = clamped !== input.value;
      if (cut) input.value = clamped;
      draft.name = input.value;
      check(false);
      limit.update(cut);
    },
  });
  const limit = nameLimit(input);
  const check = (final) => {
    const problem = input.value.trim() || final ? nameProblem(input.value) : null;
    hint.textContent = problem ? t(problem) : '';
    hint.classList.toggle('error', !!problem);
    input.setAttribute('aria-invalid', String(!!problem));
    return problem;
  };
  return { input, hint, limit: limit.el, check, value: () => normalName(input.value) };
}

export function homeScreen(S, actions) {
  // What the player typed and chose lives in the store, so a re-render (language switch,
  // crossing the phone breakpoint) shows it again.
  const draft = (S.homeDraft ||= { settings: { ...DEFAULTS }, open: false, link: '' });
  const name = nameInput('create-name', draft);
  const status = h('p', { class: 'error', role: 'alert', testid: 'create-error' });
  const form = settingsForm(draft.settings, { prefix: 'create', onChange: (_, all) => { draft.settings = all; } });

  const submit = async (e) => {
    e.preventDefault();
    if (name.check(true)) { name.input.focus(); return; }
    const who = name.value();
    const button = e.target.querySelector('[type=submit]');
    button.disabled = true;
    status.textContent = '';
    try {
      rememberName(who);
      const res = await api.createRoom(who, changedSettings(draft.settings));
      S.homeDraft = null;
      saveSession({ room: res.room, token: res.token, player_id: res.player_id, seat: res.seat, role: 'player', name: who });
      actions.navigate(res.url || `/r/${res.room}`);
    } catch (err) {
      status.textContent = errorText(err);
      button.disabled = false;
    }
  };

  const linkError = h('p', { class: 'error', role: 'alert', testid: 'open-link-error' });
  const rooms = knownSessions();
  return h('section', { class: 'home', testid: 'home' },
    h('div', { class: 'hero' },
      h('h1', {}, t('home.title')),
      h('p', {}, t('home.tagline')),
      S.route?.missing ? h('p', { class: 'hero-note', role: 'status', testid: 'no-such-page' }, t('nf.page')) : null),
    h('form', { class: 'panel create', onsubmit: submit, testid: 'create-form', novalidate: true },
      h('h2', {}, t('home.create')),
      h('div', { class: 'field' }, h('label', { for: 'create-name' }, t('home.your_name')), name.input, name.limit, name.hint),
      h('details', {
        class: 'settings-box', testid: 'create-settings', open: draft.open,
        ontoggle: (e) => { draft.open = e.currentTarget.open; },
      },
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
          const path = pathFromLink(e.target.elements.link.value);
          if (path) actions.navigate(path);
          else linkError.textContent = t('home.bad_link');
        },
      },
      h('label', { for: 'open-link', class: 'sr-only' }, t('home.link_label')),
      h('input', {
        id: 'open-link', name: 'link', type: 'text', testid: 'open-link', placeholder: t('home.link_label'), class: 'grow',
        value: draft.link, oninput: (e) => { draft.link = e.target.value; linkError.textContent = ''; },
      }),
      h('button', { type: 'submit', testid: 'open-link-btn' }, t('home.link_open'))),
      linkError,
      rooms.length ? h('ul', { class: 'recent', testid: 'recent-rooms' },
        rooms.map((r) => h('li', {}, h('a', {
          href: `/r/${encodeURIComponent(r.room)}`,
          onclick: (e) => { e.preventDefault(); actions.navigate(`/r/${encodeURIComponent(r.room)}`); },
        }, t('home.recent_room', { name: r.name || '', code: r.room.slice(0, 8) })))) ) : null),
    tournamentSlot(actions));
}

// The tournament form is the tournament page's code: loaded after the home page shows.
let tournamentModule = null;

function tournamentSlot(actions) {
  if (tournamentModule) return tournamentModule.hostTournamentPanel(actions);
  const slot = h('div', { testid: 'tournament-slot' });
  import('./tournament.js').then((m) => {
    tournamentModule = m;
    if (slot.isConnected) slot.replaceWith(m.hostTournamentPanel(actions));
  });
  return slot;
}

/** The page of a pasted link: a room's invite (".../r/CODE") or a bare room code, and also a
 * tournament's registration link (".../t/CODE") or a match record (".../m/ID"), which a
 * newcomer pastes into the same box. */
export function pathFromLink(text) {
  // Codes and ids are URL-safe base64 or hex: what follows them (the full stop of a sentence
  // the link was copied from, a bracket) is not part of them.
  const value = (text || '').trim().replace(/[.,;:!?)\]'"»]+$/, '');
  const m = value.match(/\/([rtm])\/([A-Za-z0-9_-]+)/);
  if (m) return `/${m[1]}/${m[2]}`;
  return /^[A-Za-z0-9_-]{4,}$/.test(value) ? `/r/${encodeURIComponent(value)}` : null;
}

export function joinScreen(S, actions) {
  const room = S.route.room;
  const draft = (S.joinDraft ||= { room, summary: null, error: '' });
  if (draft.room !== room) Object.assign(draft, { room, summary: null, error: '', name: undefined });
  const name = nameInput('join-name', draft);
  const status = h('p', { class: 'error', role: 'alert', testid: 'join-error' }, draft.error);
  const info = h('div', { class: 'room-info', testid: 'join-info' }, t('join.loading'));
  const watchBtn = h('button', { type: 'button', class: 'ghost', testid: 'watch-btn', onclick: () => watch() }, t('join.watch'));
  const joinBtn = h('button', { type: 'submit', class: 'primary big', testid: 'join-btn' }, t('join.join'));

  const done = (res, role, who) => {
    S.joinDraft = null;
    // A name taken meanwhile is seated as a free variant ("Ali 2"), which the answer names.
    const seated = typeof res.name === 'string' && res.name ? res.name : who;
    saveSession({ room, token: res.token, player_id: res.player_id ?? null, seat: res.seat ?? null, role, name: seated });
    actions.navigate(`/r/${encodeURIComponent(room)}`);
    if (seated !== who) actions.toast(t('join.joined_as', { name: seated }));
  };

  // This browser already holds a seat here (another tab joined while this one showed the
  // form): that seat is opened, not a second one taken. (The tab the seat is open in then
  // says so, as a link reopened in a second tab does.)
  const alreadyIn = () => {
    if (!loadSession(room)) return false;
    S.joinDraft = null;
    actions.navigate(`/r/${encodeURIComponent(room)}`);
    return true;
  };

  const watch = async () => {
    if (alreadyIn()) return;
    const typed = name.input.value.trim();
    if (typed && name.check(true)) { name.input.focus(); return; }
    const who = typed ? name.value() : t('join.spectator');
    try {
      // No name typed: none is sent, and the server's "Spectator" is shown to each reader in
      // their own language.
      done(await api.watchRoom(room, typed ? who : undefined), 'spectator', who);
    } catch (err) {
      status.textContent = errorText(err);
    }
  };

  // Started or full: joining cannot work, watching is the one way in (and looks like it).
  const onlyWatch = (why) => {
    draft.error = why;
    status.textContent = why;
    joinBtn.disabled = true;
    joinBtn.classList.remove('primary');
    watchBtn.classList.remove('ghost');
    watchBtn.classList.add('primary');
  };

  // Two players with one name cannot tell the log apart: the name is refused with a free
  // variant to take in one click.
  const offer = (alt) => {
    status.replaceChildren(t('err.name_taken'), ' ', h('button', {
      type: 'button', class: 'small', testid: 'use-suggested',
      onclick: () => { name.input.value = alt; draft.name = alt; status.textContent = ''; name.input.focus(); },
    }, h('bdi', {}, t('join.use_name', { name: alt }))));
  };

  const join = async (e) => {
    e.preventDefault();
    if (alreadyIn()) return;
    if (name.check(true)) { name.input.focus(); return; }
    const who = name.value();
    // Seen in the room's summary: offered before joining. The server decides in the end (the
    // summary may be older than the last join): it seats a free variant and names it.
    const taken = new Set((draft.summary?.seats || []).map((x) => nameKey(x.name)));
    if (taken.has(nameKey(who))) {
      let k = 2;
      while (taken.has(nameKey(`${who} ${k}`))) k += 1;
      offer(`${who} ${k}`);
      status.querySelector('[data-testid=use-suggested]')?.focus();
      return;
    }
    joinBtn.disabled = true;
    status.textContent = '';
    try {
      rememberName(who);
      done(await api.joinRoom(room, who), 'player', who);
    } catch (err) {
      joinBtn.disabled = false;
      if (err.status === 409 && (err.code === 'room_full' || err.code === 'already_started' || err.code === 'http_409')) {
        onlyWatch(t('join.full'));
        watchBtn.focus();
      } else {
        status.textContent = errorText(err);
      }
    }
  };

  const show = (sum) => {
    const seats = sum.seats || [];
    const players = seats.map((x) => displayName(x)).filter(Boolean);
    const max = sum.settings?.max_players ?? null;
    info.replaceChildren(
      h('p', {}, t('join.status', { status: t(`status.${sum.status}`) })),
      max ? h('p', { testid: 'join-seats' }, t('join.seats', { n: seats.length, max })) : null,
      players.length ? h('p', {}, t('join.players', { names: listText(players) })) : null);
    if (sum.status && sum.status !== 'lobby') onlyWatch(t('join.started'));
    else if (max && seats.length >= max) onlyWatch(t('join.full'));
  };
  const nameField = h('div', { class: 'field' }, h('label', { for: 'join-name' }, t('home.your_name')), name.input, name.limit, name.hint);
  const buttons = h('div', { class: 'row' }, joinBtn, watchBtn);
  // A dead link (the room ended, a typo): no form to fill in vain, one way on.
  const failed = (err) => {
    if (err.status !== 404) { info.replaceChildren(h('p', { class: 'error' }, errorText(err))); return; }
    info.replaceChildren(h('p', { class: 'error', testid: 'join-gone' }, t('join.no_room')), homeLink(actions));
    nameField.remove();
    buttons.remove();
  };
  if (draft.summary) show(draft.summary);
  else api.roomSummary(room).then((sum) => { draft.summary = sum; show(sum); }).catch(failed);

  return h('section', { class: 'join' },
    h('form', { class: 'panel narrow', onsubmit: join, testid: 'join-form', novalidate: true },
      h('h1', {}, t('join.title')),
      info,
      nameField,
      status,
      buttons));
}

