// Hosted tournaments (PROTOCOL section 6): the "Host a tournament" form of the home page and
// the page /t/CODE (registration, the entrant's table, standings, rounds, winner).
// The server runs the tournament; this page only shows what GET /api/tournaments/{t} and
// /me answer. Changes are pushed (GET /api/tournaments/{t}/events, server-sent events: the
// public answer each time it changes, docs/protocol.md); while that stream is down the page
// polls every few seconds instead.
import { h, t, copyText, linkField, formatNumber, api, ApiError, loadSession, saveSession, rememberedName, rememberName, listText, homeLink } from './core.js';
import { settingsForm, changedSettings, DEFAULTS } from './settings.js';
import { clampName, nameLimit } from './names.js';

export const POLL_MS = 3000;
const PUSH_RETRY_MS = 5000;  // a stream that could not be opened is tried again this late

// By code from the catalogs, never the server's English message (a Persian page said "the
// match database is unavailable").
function errorText(err) {
  if (err instanceof ApiError) {
    const key = `err.${err.code}`;
    const text = t(key);
    if (text !== key) return text;
  }
  return t('err.generic');
}

/** A catalog entry when there is one, else the raw value (a status the client does not know). */
/** A number in the language's digits (Persian has its own); anything else as it is. */
function num(v) {
  return typeof v === 'number' ? formatNumber(v) : (v ?? '');
}

function label(prefix, value) {
  const key = `${prefix}.${value}`;
  const text = t(key);
  return text !== key ? text : String(value ?? '');
}

// --- credentials --------------------------------------------------------------------------
// The entrant token and the host token, per tournament, in localStorage (like room tokens).

const ENTRANT = 'uno.tournament.';
const HOST = 'uno.tournament-host.';

function readJson(key) {
  try {
    const raw = localStorage.getItem(key);
    if (!raw) return null;
    if (!raw.startsWith('{')) return { token: raw }; // an early client kept the bare token
    const v = JSON.parse(raw);
    return v && typeof v.token === 'string' ? v : null;
  } catch {
    return null;
  }
}

function writeJson(key, value) {
  try { localStorage.setItem(key, JSON.stringify({ ...value, saved_at: Date.now() })); } catch { /* private mode */ }
}

function remove(key) {
  try { localStorage.removeItem(key); } catch { /* nothing stored */ }
}

export const loadEntrant = (code) => readJson(ENTRANT + code);
export const loadHost = (code) => readJson(HOST + code);

// --- the "Host a tournament" form (home page) ---------------------------------------------

export function hostTournamentPanel(actions) {
  let settings = { ...DEFAULTS };
  const numberInput = (id, value, min, max) => h('input', {
    id, testid: id, type: 'number', inputmode: 'numeric', required: true, min, max, value: String(value),
  });
  const field = (id, text, input, help) => h('div', { class: 'field' },
    h('label', { for: id }, text), input, help ? h('small', { class: 'help' }, help) : null);

  const title = h('input', { id: 'host-tour-name', testid: 'host-tour-name', type: 'text', required: true, maxlength: 60, placeholder: t('host.name_placeholder') });
  const hostName = h('input', {
    id: 'host-tour-host-name', testid: 'host-tour-host-name', type: 'text', required: true,
    autocomplete: 'nickname', value: rememberedName(), placeholder: t('home.name_placeholder'),
    // The player-name rule (32 characters as a reader counts them), as on the home page.
    oninput: (e) => { const v = clampName(e.target.value); const cut = v !== e.target.value; if (cut) e.target.value = v; hostLimit.update(cut); },
  });
  const hostLimit = nameLimit(hostName);
  const format = h('select', { id: 'host-tour-format', testid: 'host-tour-format', onchange: () => sync() },
    ['elimination', 'swiss'].map((f) => h('option', { value: f }, t(`tour.format.${f}`))));
  const tableSize = numberInput('host-tour-table-size', 4, 2, 10);
  const advance = numberInput('host-tour-advance', 1, 1, 9);
  const rounds = numberInput('host-tour-rounds', 3, 1, 20);
  const advanceField = field('host-tour-advance', t('host.advance'), advance, t('host.advance_help'));
  const roundsField = field('host-tour-rounds', t('host.rounds'), rounds, t('host.rounds_help'));
  tableSize.addEventListener('change', () => sync());

  const radio = (value, checked) => h('input', {
    type: 'radio', name: 'host-tour-match', value, checked, id: `host-tour-match-${value}`,
    testid: `host-tour-match-${value}`, onchange: () => sync(),
  });
  const byTarget = radio('target', true);
  const byRounds = radio('rounds', false);
  const target = numberInput('host-tour-target', 500, 50, 10000);
  target.step = '50';
  const matchRounds = numberInput('host-tour-match-n', 1, 1, 100);
  target.setAttribute('aria-label', t('host.match_target'));
  matchRounds.setAttribute('aria-label', t('host.match_rounds'));
  const bots = h('input', { id: 'host-tour-bots', testid: 'host-tour-bots', type: 'checkbox', checked: true });
  const error = h('p', { class: 'error', role: 'alert', testid: 'host-tour-error' });
  const form = settingsForm(settings, {
    prefix: 'tour-set',
    // The table size and the match length are the tournament's own fields.
    omit: ['max_players', 'target_score'],
    onChange: (_, all) => { settings = all; },
  });

  // Hidden fields are disabled too, so the browser does not validate what it does not show.
  const sync = () => {
    const elim = format.value === 'elimination';
    advanceField.hidden = !elim;
    advance.disabled = !elim;
    roundsField.hidden = elim;
    rounds.disabled = elim;
    const size = Number.parseInt(tableSize.value, 10);
    if (Number.isFinite(size)) advance.max = String(Math.max(1, size - 1));
    target.disabled = !byTarget.checked;
    matchRounds.disabled = !byRounds.checked;
  };
  sync();

  const submit = async (e) => {
    e.preventDefault();
    const button = e.target.querySelector('[type=submit]');
    const who = hostName.value.trim();
    const name = title.value.trim();
    if (!name) { title.focus(); return; }
    if (!who) { hostName.focus(); return; }
    const n = (input) => Number.parseInt(input.value, 10);
    const body = {
      name,
      host_name: who,
      settings: changedSettings(settings),
      table_size: n(tableSize),
      format: format.value,
      ...(format.value === 'elimination' ? { advance: n(advance) } : { rounds: n(rounds) }),
      match: byTarget.checked ? { target_score: n(target) } : { rounds: n(matchRounds) },
      fill_with_bots: bots.checked,
    };
    button.disabled = true;
    error.textContent = '';
    try {
      rememberName(who);
      const res = await api.createTournament(body);
      writeJson(HOST + res.tournament, { token: res.token, name: who });
      actions.navigate(res.url || `/t/${encodeURIComponent(res.tournament)}`);
    } catch (err) {
      error.textContent = errorText(err);
      button.disabled = false;
    }
  };

  return h('details', { class: 'panel host-tour', testid: 'host-tour' },
    h('summary', { testid: 'host-tour-open' }, h('h2', {}, t('host.title'))),
    h('p', { class: 'muted' }, t('host.help')),
    h('form', { onsubmit: submit, testid: 'host-tour-form' },
      h('div', { class: 'host-grid' },
        field('host-tour-name', t('host.name'), title),
        field('host-tour-host-name', t('home.your_name'), [hostName, hostLimit.el]),
        field('host-tour-format', t('host.format'), format, t('host.format_help')),
        field('host-tour-table-size', t('host.table_size'), tableSize),
        advanceField,
        roundsField),
      h('fieldset', { class: 'match-length' },
        h('legend', {}, t('host.match')),
        h('div', { class: 'row' }, byTarget, h('label', { for: 'host-tour-match-target' }, t('host.match_target')), target),
        h('div', { class: 'row' }, byRounds, h('label', { for: 'host-tour-match-rounds' }, t('host.match_rounds')), matchRounds)),
      h('div', { class: 'field check' }, bots, h('label', { for: 'host-tour-bots' }, t('host.bots')),
        h('small', { class: 'help' }, t('host.bots_help'))),
      h('details', { class: 'settings-box', testid: 'host-tour-settings' },
        h('summary', {}, t('host.settings')),
        form),
      error,
      h('button', { type: 'submit', class: 'primary big', testid: 'host-tour-btn' }, t('host.create_btn'))));
}

// --- the tournament page ------------------------------------------------------------------

/** What the page knows about the shown tournament (kept across re-renders). */
const T = {
  code: null,
  data: null,        // the last GET /api/tournaments/{t}
  fetchedAt: 0,      // when it was asked (to judge "you were removed" only on fresh data)
  me: null,          // the last /me
  error: null,       // the last failure of GET /api/tournaments/{t}
  draft: null,       // the name typed in the registration form
  regError: '',
  hostError: '',
  busy: false,
  sig: '',
  ready: null,       // the room last announced as ready
  removed: false,    // the host removed this browser's entrant
};

let loop = null;

function resetFor(code) {
  Object.assign(T, {
    code, data: null, fetchedAt: 0, me: null, error: null, draft: null, regError: '', hostError: '',
    busy: false, sig: '', ready: null, removed: false,
  });
}

function stopLoop(old) {
  clearTimeout(old.timer);
  clearTimeout(old.retry);
  old.push?.abort();
}

function ensurePolling(S, actions, code) {
  if (loop && loop.code === code) return;
  if (loop) stopLoop(loop);
  const mine = { code, timer: null, retry: null, push: null, pushUp: false };
  loop = mine;
  const alive = () => {
    if (loop === mine && S.route.name === 'tournament' && S.route.code === code) return true;
    if (loop === mine) loop = null;
    stopLoop(mine);
    return false;
  };
  // The poll runs only while the push is down; a finished tournament changes no more, and
  // one the server does not know (404) will not appear: the page stops asking.
  mine.schedule = () => {
    clearTimeout(mine.timer);
    if (loop === mine && !mine.pushUp && T.data?.status !== 'finished' && !unknown(code)) mine.timer = setTimeout(tick, POLL_MS);
  };
  const tick = async () => {
    if (!alive()) return;
    await refresh(actions, code);
    mine.schedule();
  };
  mine.refreshNow = () => { clearTimeout(mine.timer); tick(); };
  tick();
  openPush(actions, mine, alive);
}

/** Read the tournament's event stream until it ends or fails; then poll, and open it again. */
function unknown(code) {
  return T.code === code && T.error?.status === 404 && !T.data;
}

async function openPush(actions, mine, alive) {
  if (!alive() || T.data?.status === 'finished' || unknown(mine.code)) return;
  const ctrl = new AbortController();
  mine.push = ctrl;
  let opened = 0;  // when the stream was opened (0: it was not)
  try {
    const res = await fetch(`/api/tournaments/${encodeURIComponent(mine.code)}/events`, {
      signal: ctrl.signal, headers: { accept: 'text/event-stream' },
    });
    const type = res.headers.get('content-type') || '';
    if (!res.ok || !type.startsWith('text/event-stream') || !res.body) throw new Error('no push');
    opened = Date.now();
    mine.pushUp = true;
    clearTimeout(mine.timer);
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done || !alive()) break;
      buffer += value;
      let cut;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const data = block.split('\n').filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).trimStart()).join('\n');
        if (data) await refresh(actions, mine.code, JSON.parse(data));
      }
    }
  } catch (err) {
    // No stream (an older server, a proxy that refuses it, the network): the poll covers.
  }
  mine.pushUp = false;
  if (!alive()) return;
  mine.schedule();
  // A stream ends by itself after a while: open the next at once; a failed (or at once
  // ended) one, later.
  const lasted = opened ? Date.now() - opened : 0;
  mine.retry = setTimeout(() => openPush(actions, mine, alive), lasted > 1000 ? 0 : PUSH_RETRY_MS);
}

function refreshNow() {
  loop?.refreshNow?.();
}

async function refresh(actions, code, pushed = null) {
  const asked = Date.now();
  try {
    const data = pushed ?? await api.tournament(code);
    if (T.code !== code) return;
    T.data = data;
    T.fetchedAt = asked;
    T.error = null;
  } catch (err) {
    if (T.code !== code) return;
    T.error = err;
  }
  const entrant = loadEntrant(code);
  if (entrant && T.data?.status === 'running') {
    try {
      T.me = await api.tournamentMe(code, entrant.token);
    } catch (err) {
      T.me = { error: err.status || 0 };
    }
  }
  if (T.code !== code) return;
  const ready = readyTable(T.data, T.me);
  if (ready && ready !== T.ready) actions.announce(t('tour.table_ready'));
  T.ready = ready;
  const sig = JSON.stringify([T.data, T.me, T.error?.code ?? null]);
  if (sig !== T.sig) {
    T.sig = sig;
    actions.render();
  }
}

/** The entrant's room when /me names a table that is not over yet, else null. */
function readyTable(data, me) {
  if (!me || !me.room || !me.token || data?.status !== 'running') return null;
  if (['eliminated', 'finished'].includes(me.status) || me.table_status === 'finished') return null;
  const table = tablesOf(data).find((x) => x.room === me.room);
  return table && table.status === 'finished' ? null : me.room;
}

/** Keep the seat token from /me as the room's credentials (as a joined player's), then open it. */
function goToTable(code, actions) {
  const me = T.me;
  const room = readyTable(T.data, me);
  if (!room) return false;
  const entrant = loadEntrant(code);
  saveSession({
    room, token: me.token, player_id: me.player_id ?? null, seat: me.seat ?? null,
    role: 'player', name: entrant?.name || '', tournament: code,
  });
  actions.navigate(`/r/${encodeURIComponent(room)}`);
  return true;
}

/** True when /me names a table for this entrant that has not finished (for the tab title). */
export function tableIsReady(code) {
  return T.code === code && readyTable(T.data, T.me) != null;
}

function tablesOf(data) {
  return (data?.rounds || []).flatMap((r) => r.tables || []);
}

/** [{id, name}] from `entrants` (objects or bare names). */
function entrantList(data) {
  return (Array.isArray(data?.entrants) ? data.entrants : []).map((e) => (
    e && typeof e === 'object'
      ? { id: e.entrant_id ?? e.id ?? null, name: e.name ?? '', bot: !!e.bot }
      : { id: null, name: String(e), bot: false }));
}

function namesOf(data) {
  const names = new Map();
  for (const e of entrantList(data)) if (e.id != null) names.set(e.id, e.name);
  for (const s of data?.standings || []) if (s.entrant_id != null && s.name) names.set(s.entrant_id, s.name);
  return names;
}

function winnerName(data, names) {
  const w = data?.winner;
  if (w == null) return null;
  if (typeof w === 'object') return w.name ?? names.get(w.entrant_id) ?? null;
  return names.get(w) ?? String(w);
}

function registrationUrl(code) {
  return `${location.origin}/t/${encodeURIComponent(code)}`;
}

function copyLink(code, actions) {
  const url = registrationUrl(code);
  copyText(url).then((ok) => actions.toast(ok ? t('tour.copied') : t('lobby.copy_failed', { url })));
}

export function tournamentScreen(S, actions) {
  const code = S.route.code;
  if (T.code !== code) resetFor(code);
  ensurePolling(S, actions, code);
  const data = T.data;
  if (!data) {
    const text = T.error ? (T.error.status === 404 ? t('tour.not_found') : errorText(T.error)) : t('join.loading');
    return h('section', { class: 'panel narrow', testid: 'tournament', dataset: { status: 'loading' } },
      h('h1', {}, t('tour.title')),
      h('p', { class: T.error ? 'error' : 'muted', testid: 'tournament-info' }, text),
      T.error?.status === 404 ? homeLink(actions) : null);
  }
  const names = namesOf(data);
  const entrant = loadEntrant(code);
  const host = loadHost(code);
  const winner = data.status === 'finished' ? winnerName(data, names) : null;
  const ctx = { code, data, names, entrant, host, actions };
  return h('section', { class: 'tournament', testid: 'tournament', dataset: { status: data.status } },
    h('div', { class: 'panel tour-head' },
      h('h1', {}, data.name || t('tour.title')),
      h('p', { class: 'row' },
        h('span', { class: ['badge', `tour-${data.status}`], testid: 'tour-status' }, label('tour', data.status)),
        data.format ? h('span', { class: 'muted' }, label('tour.format', data.format)) : null,
        data.table_size ? h('span', { class: 'muted' }, t('tour.table_size', { n: data.table_size })) : null,
        data.advance ? h('span', { class: 'muted' }, t('tour.advance', { n: data.advance })) : null,
        data.rounds_planned ? h('span', { class: 'muted' }, t('tour.rounds_planned', { n: data.rounds_planned })) : null,
        data.match?.target_score ? h('span', { class: 'muted' }, t('tour.match_target', { n: data.match.target_score })) : null,
        data.match?.rounds ? h('span', { class: 'muted' }, data.match.rounds === 1 ? t('tour.match_rounds_one') : t('tour.match_rounds', { n: data.match.rounds })) : null),
      data.host ? h('p', { class: 'muted', testid: 'tour-hosted-by' }, t('tour.hosted_by', { name: data.host })) : null,
      data.error ? h('p', { class: 'error', testid: 'tour-stopped' }, t('tour.stopped')) : null,
      T.error ? h('p', { class: 'error', testid: 'tour-poll-error' }, errorText(T.error)) : null),
    winner ? h('div', { class: 'panel tour-winner', testid: 'tour-winner', role: 'status' },
      h('span', { 'aria-hidden': 'true' }, '🏆 '), t('tour.winner', { name: winner })) : null,
    tourColumns(
      [youPanel(ctx), host ? hostPanel(ctx) : null, data.status === 'registering' ? entrantsPanel(ctx) : null],
      [standingsPanel(ctx), roundsPanel(ctx)]));
}

/** The personal panels beside standings and rounds; side by side alone before the first round. */
function tourColumns(side, main) {
  const shown = main.filter(Boolean);
  if (!shown.length) return h('div', { class: 'tour-side tour-solo' }, side);
  return h('div', { class: 'tour-cols' },
    h('div', { class: 'tour-side' }, side),
    h('div', { class: 'tour-main' }, shown));
}

function youPanel({ code, data, entrant, actions }) {
  const body = [];
  const status = data.status;
  const listed = entrantList(data);
  // Only data asked after the registration can tell that the host removed this entrant.
  const removed = entrant && status === 'registering' && entrant.entrant_id != null
    && T.fetchedAt > (entrant.saved_at || 0) && listed.some((e) => e.id != null)
    && !listed.some((e) => e.id === entrant.entrant_id);
  if (removed) { remove(ENTRANT + code); T.removed = true; }
  if (status === 'registering' && (!entrant || removed)) {
    if (T.removed) body.push(h('p', { class: 'error', testid: 'tour-removed' }, t('tour.removed')));
    body.push(registerForm(code, actions));
  } else if (status === 'registering') {
    body.push(h('p', { testid: 'tour-waiting-start' }, t('tour.waiting_start', { name: entrant.name || '' })));
  } else if (!entrant) {
    if (T.regError) body.push(h('p', { class: 'error', role: 'alert', testid: 'tour-enter-error' }, T.regError));
    body.push(h('p', { class: 'muted', testid: 'tour-closed' },
      status === 'finished' ? t('tour.over') : t('tour.closed')));
  } else if (status === 'running') {
    const me = T.me;
    const room = readyTable(data, me);
    if (room) {
      body.push(h('p', { class: 'ready' }, t('tour.table_ready')),
        h('button', {
          type: 'button', class: 'primary big', testid: 'tour-go', onclick: () => goToTable(code, actions),
        }, t('tour.go')));
    } else if (!me) {
      body.push(h('p', { class: 'muted' }, t('join.loading')));
    } else if (me.error) {
      body.push(h('p', { class: 'error', testid: 'tour-me-error' }, t('tour.me_error')));
    } else if (me.status === 'eliminated') {
      body.push(h('p', { testid: 'tour-eliminated' }, t('tour.eliminated')));
    } else if (!me.room) {
      body.push(h('p', { testid: 'tour-bye' }, t('tour.bye')));
    } else {
      body.push(h('p', { testid: 'tour-next-round' }, t('tour.next_round')));
    }
  } else {
    const row = (data.standings || []).find((s) => entrant.entrant_id != null && s.entrant_id === entrant.entrant_id);
    body.push(h('p', { testid: 'tour-your-place' },
      row?.place != null ? t('tour.your_place', { place: row.place }) : t('tour.over')));
  }
  return h('div', { class: 'panel tour-you', testid: 'tour-you' }, h('h2', {}, t('tour.you')), body);
}

function registerForm(code, actions) {
  if (T.draft == null) T.draft = rememberedName();
  const name = h('input', {
    id: 'tour-name', testid: 'tour-name', type: 'text', required: true, autocomplete: 'nickname',
    value: T.draft, placeholder: t('home.name_placeholder'),
    oninput: (e) => {
      const v = clampName(e.target.value);
      const cut = v !== e.target.value;
      if (cut) e.target.value = v;
      T.draft = v;
      limit.update(cut);
    },
  });
  const limit = nameLimit(name);
  const enter = async (e) => {
    e.preventDefault();
    const who = name.value.trim();
    if (!who) { name.focus(); return; }
    if (T.busy) return;
    T.busy = true;
    T.regError = '';
    try {
      rememberName(who);
      const res = await api.tournamentEnter(code, who);
      // A name an entrant already has is registered as a free variant ("Ali 2"): said here.
      const registered = typeof res.name === 'string' && res.name ? res.name : who;
      writeJson(ENTRANT + code, { entrant_id: res.entrant_id, token: res.token, name: registered });
      T.draft = null;
      T.removed = false;
      actions.toast(registered === who ? t('tour.entered') : t('tour.entered_as', { name: registered }));
    } catch (err) {
      T.regError = err.code === 'full' ? t('tour.full') : err.status === 409 ? t('tour.closed_409') : errorText(err);
    }
    T.busy = false;
    actions.render();
    refreshNow();
  };
  return h('form', { onsubmit: enter, testid: 'tour-enter-form' },
    h('div', { class: 'field' }, h('label', { for: 'tour-name' }, t('home.your_name')), name, limit.el),
    h('p', { class: 'error', role: 'alert', testid: 'tour-enter-error' }, T.regError),
    h('button', { type: 'submit', class: 'primary', testid: 'tour-enter' }, t('tour.enter')));
}

function hostPanel({ code, data, host, actions }) {
  const registering = data.status === 'registering';
  const count = entrantList(data).length;
  const start = async (e) => {
    const button = e.currentTarget;
    button.disabled = true;
    T.hostError = '';
    try {
      await api.startTournament(code, host.token);
    } catch (err) {
      T.hostError = errorText(err);
      button.disabled = false;
    }
    actions.render();
    refreshNow();
  };
  return h('div', { class: 'panel tour-host', testid: 'tour-host' },
    h('h2', {}, t('tour.host')),
    h('div', { class: 'invite' },
      h('label', { for: 'tour-link' }, t('tour.link')),
      h('div', { class: 'row' },
        linkField({ id: 'tour-link', testid: 'tour-link', value: registrationUrl(code) }),
        h('button', { type: 'button', testid: 'tour-copy', onclick: () => copyLink(code, actions) }, t('tour.copy')))),
    registering ? h('p', { class: 'muted' }, t('tour.host_help')) : null,
    h('p', { class: 'error', role: 'alert', testid: 'tour-host-error' }, T.hostError),
    registering ? h('button', {
      type: 'button', class: 'primary big', testid: 'tour-start', disabled: count < 2, onclick: start,
    }, t('tour.start')) : null,
    registering && count < 2 ? h('p', { class: 'muted', testid: 'tour-need-two' }, t('err.not_enough_entrants')) : null);
}

function entrantsPanel({ code, data, entrant, host, actions }) {
  const list = entrantList(data);
  const drop = async (id) => {
    T.hostError = '';
    try {
      await api.removeEntrant(code, id, host.token);
    } catch (err) {
      T.hostError = errorText(err);
    }
    actions.render();
    refreshNow();
  };
  return h('div', { class: 'panel tour-entrants' },
    h('h2', {}, t('tour.entrants', { n: list.length })),
    list.length ? h('ol', { class: 'seats', testid: 'tour-entrants' }, list.map((e, i) => h('li', {
      class: ['seat-row', entrant && e.id != null && e.id === entrant.entrant_id && 'me'],
      testid: `tour-entrant-${e.id ?? i}`,
    },
    h('span', { class: 'seat-no' }, num(i + 1)),
    h('span', { class: 'seat-name' }, e.name),
    entrant && e.id != null && e.id === entrant.entrant_id ? h('span', { class: 'muted' }, `(${t('seat.you')})`) : null,
    e.bot ? h('span', { class: 'badge bot' }, '⚙ ', t('seat.bot')) : null,
    host && e.id != null ? h('button', {
      type: 'button', class: 'ghost small', testid: `tour-remove-${e.id}`,
      'aria-label': t('tour.remove_named', { name: e.name }),
      onclick: () => drop(e.id),
    }, t('tour.remove')) : null)))
      : h('p', { class: 'muted', testid: 'tour-no-entrants' }, t('tour.no_entrants')));
}

function standingsPanel({ data, entrant }) {
  const rows = [...(data.standings || [])].sort((a, b) => (a.place ?? 1e9) - (b.place ?? 1e9));
  if (!rows.length) return null;
  const mine = (s) => entrant && entrant.entrant_id != null && s.entrant_id === entrant.entrant_id;
  return h('div', { class: 'panel' },
    h('h2', {}, t('tour.standings')),
    h('table', { class: 'scores', testid: 'tour-standings' },
      h('thead', {}, h('tr', {},
        h('th', { class: 'num' }, t('tour.place')), h('th', {}, t('score.player')),
        h('th', { class: 'num' }, t('tour.points')), h('th', { class: 'num' }, t('tour.wins')))),
      h('tbody', {}, rows.map((s) => h('tr', { class: mine(s) ? 'me' : null, testid: `standing-${s.entrant_id}` },
        h('td', { class: 'num' }, num(s.place)),
        h('td', {}, s.name, mine(s) ? ` (${t('seat.you')})` : ''),
        h('td', { class: 'num' }, num(s.points ?? 0)),
        h('td', { class: 'num' }, num(s.wins ?? 0)))))));
}

function roundsPanel({ code, data, names, entrant, actions }) {
  const rounds = [...(data.rounds || [])].sort((a, b) => (b.number ?? 0) - (a.number ?? 0));
  if (!rounds.length) return null;
  const nameOf = (id) => names.get(id) ?? String(id);
  const mine = (id) => entrant && entrant.entrant_id != null && id === entrant.entrant_id;
  const watch = async (e, room) => {
    e.preventDefault();
    if (room === readyTable(data, T.me) && goToTable(code, actions)) return;
    if (!loadSession(room)) {
      const who = rememberedName() || t('join.spectator');
      try {
        const res = await api.watchRoom(room, who);
        saveSession({ room, token: res.token, player_id: null, seat: null, role: 'spectator', name: who, tournament: code });
      } catch (err) {
        actions.toast(errorText(err));
        return;
      }
    }
    actions.navigate(`/r/${encodeURIComponent(room)}`);
  };
  return h('div', { class: 'panel tour-rounds' },
    h('h2', {}, t('tour.rounds')),
    rounds.map((r) => h('section', { class: 'tour-round', testid: `tour-round-${r.number}` },
      h('h3', {}, t('tour.round', { n: r.number })),
      r.byes?.length ? h('p', { class: 'muted', testid: 'tour-byes' }, t('tour.byes', { names: listText(r.byes.map(nameOf)) })) : null,
      h('div', { class: 'tour-tables' }, (r.tables || []).map((tb, i) => {
        const result = [...(tb.result || [])].sort((a, b) => (a.place ?? 1e9) - (b.place ?? 1e9));
        return h('article', { class: 'tour-table', testid: `tour-table-${r.number}-${i + 1}`, dataset: { status: tb.status || '' } },
          h('div', { class: 'row tour-table-head' },
            h('h4', {}, t('tour.table', { n: i + 1 })),
            h('span', { class: ['badge', `table-${tb.status}`], testid: 'table-status' }, label('tour.table', tb.status)),
            tb.room ? h('a', {
              class: 'watch', href: `/r/${encodeURIComponent(tb.room)}`, testid: 'table-watch',
              onclick: (e) => watch(e, tb.room),
            }, (tb.seats || []).some(mine) && tb.status !== 'finished' ? t('tour.open_table') : t('tour.watch')) : null),
          result.length ? [h('table', { class: 'scores', testid: 'table-result' },
            h('thead', {}, h('tr', {}, h('th', { class: 'num' }, t('tour.place')), h('th', {}, t('score.player')), h('th', { class: 'num' }, t('tour.points')))),
            h('tbody', {}, result.map((x) => h('tr', { class: mine(x.entrant_id) ? 'me' : null },
              h('td', { class: 'num' }, num(x.place)),
              h('td', {}, nameOf(x.entrant_id)),
              h('td', { class: 'num' }, num(x.points ?? 0)))))),
            // Equal points, or a place the points do not explain: say how places are decided.
            tieBroken(result) ? h('p', { class: 'muted small-print', testid: 'table-tiebreak' }, t('tour.tiebreak')) : null]
            : h('ul', { class: 'tour-seats', testid: 'table-seats' },
              (tb.seats || []).map((id) => h('li', { class: mine(id) ? 'me' : null }, nameOf(id))),
              tb.bots > 0 ? h('li', { class: 'bots', testid: 'table-bots' }, '⚙ ', t('tour.bots', { n: tb.bots })) : null));
      })))));
}

/** True when a table's places are not simply its points in order (a tie or the match winner). */
function tieBroken(result) {
  const points = result.map((x) => x.points ?? 0);
  const ties = new Set(points).size < points.length;
  const desc = points.every((p, i) => i === 0 || points[i - 1] >= p);
  const asc = points.every((p, i) => i === 0 || points[i - 1] <= p);
  return ties || (!desc && !asc);
}
