// Entry point: routing (/, /r/CODE, /t/CODE), the room session, and rendering of the view.
// The room's socket lives here too, so a room page loads in few requests.
import { h, s as svg, replaceKeepingFocus, patch, tickTimers, LANGUAGES, initialLanguage, setLanguage, onLanguageChange, language, t, errorText, loadSession, forgetSession, describe, settingsChanges, changesText } from './core.js';
import { playEvents, tableScreen, NARROW, SMALL_PHONE } from './table.js';
import { lobbyScreen } from './lobby.js';
import { DEFAULTS } from './settings.js';

// === the WebSocket =======================================================================
// The room's WebSocket (PROTOCOL section 3): hello with `since`, reconnect with backoff,
// command ids, resend of unanswered commands, ping for the server clock.

const PING_EVERY_MS = 15000;
const PONG_GRACE_MS = 10000;

let counter = 0;
const SESSION_TAG = Math.random().toString(36).slice(2, 8);

function newId() {
  counter += 1;
  return `${SESSION_TAG}-${Date.now().toString(36)}-${counter}`;
}

export class RoomSocket {
  /**
   * @param {object} o
   * @param {string} o.room
   * @param {string} o.token
   * @param {() => (number|null)} o.since   last version seen
   * @param {(frame: object) => void} o.onFrame
   * @param {(state: string) => void} o.onState  'connecting' | 'online' | 'offline'
   */
  constructor({ room, token, since, onFrame, onState }) {
    Object.assign(this, { room, token, since, onFrame, onState });
    this.ws = null;
    this.attempt = 0;
    this.stopped = false;
    this.pending = new Map();
    this.timers = {};
  }

  start() {
    this.stopped = false;
    this.connect();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timers.retry);
    clearInterval(this.timers.ping);
    clearTimeout(this.timers.pong);
    const ws = this.ws;
    this.ws = null;
    if (ws && ws.readyState <= 1) {
      try { ws.close(1000, 'bye'); } catch { /* already closing */ }
    }
  }

  connect() {
    clearTimeout(this.timers.retry);
    this.onState('connecting');
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const ws = new WebSocket(`${scheme}://${location.host}/ws/rooms/${encodeURIComponent(this.room)}`);
    this.ws = ws;
    ws.onopen = () => {
      if (this.ws !== ws) return;
      ws.send(JSON.stringify({ type: 'hello', token: this.token, since: this.since() }));
    };
    ws.onmessage = (msg) => {
      if (this.ws !== ws) return;
      let frame;
      try { frame = JSON.parse(msg.data); } catch { return; }
      this.handle(frame);
    };
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.ws = null;
      clearInterval(this.timers.ping);
      clearTimeout(this.timers.pong);
      this.onState('offline', e.code);
      // 4409: this seat was opened elsewhere (another tab); reconnecting would take it back
      // and start a tug of war, so wait for the player to ask.
      if (!this.stopped && e.code !== 4409) this.retryLater();
    };
    // An error is always followed by a close; the close decides what happens next.
    ws.onerror = () => {};
  }

  handle(frame) {
    if (frame.type === 'welcome') {
      this.attempt = 0;
      this.onState('online');
      this.startPing();
    } else if (frame.type === 'pong') {
      clearTimeout(this.timers.pong);
    } else if ((frame.type === 'ack' || frame.type === 'error') && frame.id) {
      this.pending.delete(frame.id);
    }
    this.onFrame(frame);
    // Commands sent while the socket was down, or whose answer was lost, go again with the
    // same id: the server applies an id once and answers a resend with the same ack.
    if (frame.type === 'welcome') {
      for (const cmd of this.pending.values()) this.rawSend(cmd);
    }
  }

  retryLater() {
    const base = Math.min(10000, 400 * 2 ** this.attempt);
    this.attempt += 1;
    const delay = base * (0.75 + Math.random() * 0.5);
    this.timers.retry = setTimeout(() => this.connect(), delay);
  }

  startPing() {
    clearInterval(this.timers.ping);
    this.ping();
    this.timers.ping = setInterval(() => this.ping(), PING_EVERY_MS);
  }

  ping() {
    if (!this.rawSend({ type: 'ping' })) return;
    clearTimeout(this.timers.pong);
    // No pong: the connection is dead without having said so; drop it and reconnect.
    this.timers.pong = setTimeout(() => { if (this.ws) this.ws.close(4000, 'no pong'); }, PONG_GRACE_MS);
  }

  /** Send a command; it gets an id and is kept until answered. Returns the id. */
  send(cmd) {
    const full = { ...cmd, id: cmd.id || newId() };
    this.pending.set(full.id, full);
    this.rawSend(full);
    return full.id;
  }

  rawSend(obj) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(obj));
    return true;
  }

  /** Forget unanswered commands (their meaning is gone once the view has moved on). */
  dropPending() {
    this.pending.clear();
  }

  /** Close now and reconnect at once (used by the reconnect button). */
  reconnectNow() {
    this.attempt = 0;
    this.stopped = false;
    clearTimeout(this.timers.retry);
    if (this.ws) this.ws.close(4000, 'reconnect');
    else this.connect();
  }
}

// === the room session, routing, rendering ================================================

const LOG_LIMIT = 200;

/** Everything the client knows; the rules live on the server, this is only what it said. */
const S = {
  route: { name: 'home' },
  session: null,      // {room, token, player_id, seat, role}
  socket: null,
  conn: 'offline',
  you: null,          // welcome.you
  view: null,
  version: null,      // last version seen (for `since`)
  log: [],            // [{version, event, names}], oldest first
  summary: null,      // the last round_ended event
  matchEnd: null,     // the last match_ended event
  offset: 0,          // server clock minus local clock, ms
  unoArmed: false,    // declare UNO with the next play
  picker: null,       // {type: 'color'|'target', move, color}
  summaryHidden: false,
  newCards: new Set(),
  inflight: null,     // {id, at} of the turn command awaiting its ack
  sounds: [],         // the sounds played (names), newest last
  showKeys: false,    // the keyboard shortcuts list is open
};

const app = document.getElementById('app');

function route() {
  const path = location.pathname;
  let m = path.match(/^\/r\/([^/]+)\/?$/);
  if (m) return { name: 'room', room: decodeURIComponent(m[1]) };
  m = path.match(/^\/t\/([^/]+)\/?$/);
  if (m) return { name: 'tournament', code: decodeURIComponent(m[1]) };
  m = path.match(/^\/m\/([^/]+)\/?$/);
  if (m) return { name: 'match', id: decodeURIComponent(m[1]) };
  // A mistyped or outdated address: the home page, saying so (the server answered 404).
  return { name: 'home', missing: path !== '/' && path !== '' };
}

export function navigate(path) {
  history.pushState({}, '', path);
  start();
}

function start() {
  leaveRoom();
  S.route = route();
  if (S.route.name === 'room') {
    const session = loadSession(S.route.room);
    if (session) enterRoom(session);
  }
  render();
}

let leaving = false; // this tab sent `leave`: its own player_left is no news

function leaveRoom() {
  if (S.socket) S.socket.stop();
  Object.assign(S, {
    socket: null, session: null, you: null, view: null, version: null, log: [],
    summary: null, matchEnd: null, unoArmed: false, picker: null, summaryHidden: false,
    inflight: null, confirmLeave: false,
  });
  setConn('offline');
}

/** Open the room's socket with stored credentials. */
export function enterRoom(session) {
  leaveRoom();
  S.session = session;
  // Same tab after a reload: the events seen before it (the server resumes after `since`).
  S.log = storedVersion(session.room) != null ? restoreLog(session.room) : [];
  S.socket = new RoomSocket({
    room: session.room,
    token: session.token,
    since: () => S.version ?? storedVersion(session.room),
    onFrame,
    onState: (state, code) => {
      // Once offline, each retry stays "Offline — reconnecting…" until the server welcomes the
      // page again (it flickered to "Connecting…" and back at every attempt).
      if (state === 'connecting' && S.conn === 'offline') return;
      setConn(state === 'offline' && code === 4409 ? 'replaced' : state);
      if (code === 4409) render();
    },
  });
  S.socket.start();
  render();
}

function storedVersion(room) {
  try {
    const v = Number.parseInt(sessionStorage.getItem(`uno.version.${room}`) ?? '', 10);
    return Number.isFinite(v) ? v : null;
  } catch {
    return null;
  }
}

function setConn(state) {
  S.conn = state;
  const el = document.getElementById('conn');
  if (!el) return;
  el.dataset.state = state;
  el.title = t(`conn.${state}`);
  el.hidden = !S.session;
  // One line on a phone too: the words are cut with an ellipsis (the title has them all)
  // rather than wrapped under the button.
  // Replaced: the banner's "Play in this tab" is the one way back (not a second "Reconnect",
  // which named a connection problem there was not).
  el.replaceChildren(h('span', { class: 'conn-text' }, t(`conn.${state}`)));
  if (state === 'offline') {
    el.append(h('button', {
      type: 'button', class: 'small', testid: 'reconnect-btn', onclick: () => S.socket?.reconnectNow(),
    }, t('conn.retry')));
  }
}

// --- frames -----------------------------------------------------------------------------

function onFrame(f) {
  switch (f.type) {
    case 'welcome': {
      S.you = f.you;
      setView(f.view, f.version);
      mergeLog(f.view?.log);
      mergeLog(f.view?.chat); // extension: the room's recent chat, for a new tab or a reload
      if (f.view?.status === 'playing' || f.view?.status === 'lobby') {
        S.summary = null;
        S.matchEnd = null;
      } else if (!S.summary) {
        // Back on a finished round (reload): its summary comes from the events kept so far.
        const seen = S.log.map((e) => e.event).reverse();
        S.summary = seen.find((e) => e.kind === 'round_ended') || null;
        S.matchEnd = seen.find((e) => e.kind === 'match_ended') || null;
      }
      render();
      break;
    }
    case 'events':
      applyEvents(f.events || [], f.view, f.version);
      break;
    case 'ack':
      answered(f.id);
      break;
    case 'error':
      answered(f.id);
      onError(f);
      break;
    case 'pong':
      if (typeof f.server_time === 'number') S.offset = f.server_time - Date.now();
      break;
    default:
      break; // frames this client does not know
  }
}

/** Settings as the server applies them: a key it did not send has the rules' default. */
function withDefaults(settings) {
  return settings ? { ...DEFAULTS, ...settings } : null;
}

/** Events told in a toast as well as in the log: they change hands or cards at a stroke. */
const TOASTED = new Set(['challenge_resolved', 'uno_caught', 'hands_swapped', 'hands_rotated', 'hands_shuffled']);

/**
 * One commit (or several merged, after a resume): its events in order to the log, the live
 * region and the animations, then the view after the last of them, rendered once.
 */
function applyEvents(events, view, version) {
  const fresh = events.filter((ev) => S.version == null || ev.version == null || ev.version > S.version);
  const last = version ?? view?.version ?? fresh.at(-1)?.version;
  // Everything already seen (resume overlap): nothing new to show.
  if (!fresh.length && S.version != null && last != null && last <= S.version) return;
  const before = S.view;
  // Seat names as they were when the events happened (a resume after a reload has no view yet).
  const names = seatNames(before || view);
  let settings = before?.settings ?? null;
  for (let ev of fresh) {
    // What a settings change changed: the event carries the whole settings, the page knows
    // the ones before (kept with the event, so the log can say it again in another language).
    if (ev.kind === 'settings_changed') {
      ev = { ...ev, changes: settingsChanges(withDefaults(settings), withDefaults(ev.settings)) };
      settings = ev.settings ?? settings;
      // The lobby shows no log: a player whose settings the host changed is told what changed.
      if (ev.changes?.length && S.view?.status === 'lobby' && S.view.you && S.view.you.seat !== S.view.host) {
        toast(t('ev.settings_changed_to', { changes: changesText(ev.changes) }));
        ev.toasted = true; // the toast's live region reads it: not twice
      }
    }
    // A challenge's outcome (and the hand it showed the challenger), a catch, and hands that
    // changed owner were only in the event log (on a phone, far below the table): a player's
    // cards changed without a word. The table is told at once.
    if (TOASTED.has(ev.kind)) {
      const text = describe(ev, { seats: names });
      if (text) { toast(text, 8000, 'event'); ev = { ...ev, toasted: true }; }
    }
    onEvent(ev, ev.version ?? last, names);
  }
  // The host removed this seat from the lobby: the page went on as a spectator's, saying
  // nothing ("You are watching"). It says so and offers the join form again.
  const me = S.session?.role === 'player' ? S.session.player_id : null;
  const gone = me && !leaving ? fresh.find((ev) => ev.kind === 'player_left' && ev.player_id === me) : null;
  if (gone) {
    const room = S.session.room;
    forgetSession(room);
    leaveRoom();
    toast(t(gone.reason === 'away' ? 'room.removed_away' : 'room.removed'));
    render();
    return;
  }
  setView(view, last);
  // A fresh deal is not "new cards": only cards that arrive during a round get the mark.
  if (fresh.some((ev) => ev.kind === 'round_started' || ev.kind === 'hands_shuffled' || ev.kind === 'hands_swapped' || ev.kind === 'hands_rotated')) S.newCards = new Set();
  afterEvents(fresh, before);
  render();
  playEvents(fresh, S.view?.you?.seat);
  // The summary is a modal dialog: keyboard focus goes into it when it opens.
  if (fresh.some((ev) => ev.kind === 'round_ended')) document.querySelector('[data-testid=summary-close]')?.focus();
}

function setView(view, version) {
  if (!view) return;
  if (typeof view.server_time === 'number') S.offset = view.server_time - Date.now();
  const oldIds = new Set((S.view?.you?.hand || []).map((c) => c.id));
  const hand = view.you?.hand || [];
  S.newCards = S.view ? new Set(hand.map((c) => c.id).filter((id) => !oldIds.has(id))) : new Set();
  S.view = view;
  S.version = version ?? view.version ?? S.version;
  try { sessionStorage.setItem(`uno.version.${view.room}`, String(S.version)); } catch { /* ignore */ }
  const moves = view.you?.moves;
  // A picker open for a card that is no longer playable has nothing left to decide.
  if (S.picker && !(moves?.play || []).some((m) => m.card === S.picker.move.card)) S.picker = null;
  if (!moves?.play?.length) S.unoArmed = false;
}

function onEvent(ev, version, names) {
  addLog(ev, version, true, names);
  if (ev.kind === 'round_ended') { S.summary = ev; S.summaryHidden = false; }
  if (ev.kind === 'match_ended') { S.matchEnd = ev; S.summaryHidden = false; }
  if (ev.kind === 'round_started') { S.summary = null; S.matchEnd = null; S.unoArmed = false; }
  // The host role may pass to you while you look elsewhere (the host left or stayed away).
  if (ev.kind === 'host_changed' && ev.host != null && ev.host === S.view?.you?.seat && S.view?.host !== ev.host) toast(t('lobby.you_host'));
}

function afterEvents(events, before) {
  const seat = S.view?.you?.seat;
  const turnNow = S.view?.status === 'playing' && seat != null && S.view.state?.turn === seat;
  const turnBefore = before?.status === 'playing' && before.state?.turn === seat;
  if (turnNow && !turnBefore) announce(t('table.your_turn'));
  // One sound per frame, the most important: round end, a catch, an UNO, your turn.
  const kinds = new Set(events.map((e) => e.kind));
  const caught = events.some((e) => e.kind === 'uno_caught' && !e.false_catch);
  if (kinds.has('round_ended')) sound('round');
  else if (caught) sound('catch');
  else if (kinds.has('uno_declared')) sound('uno');
  else if (turnNow && !turnBefore && before) {
    sound('turn');
    // Chromium refuses (and logs an error for) a buzz before the page's first tap, as after
    // a reload mid-round.
    if (!muted() && navigator.userActivation?.hasBeenActive !== false) navigator.vibrate?.(120);
  }
}

// --- sounds -------------------------------------------------------------------------------
// Short tones made with WebAudio (no files to load); muted is remembered in localStorage.

const MUTE_KEY = 'uno.mute';
const TONES = {
  turn: [[660, 0, 0.12], [880, 0.12, 0.16]],
  uno: [[523, 0, 0.1], [784, 0.1, 0.1], [1046, 0.2, 0.2]],
  catch: [[330, 0, 0.16], [220, 0.16, 0.24]],
  round: [[523, 0, 0.14], [659, 0.14, 0.14], [784, 0.28, 0.3]],
};
let audio = null;

function muted() {
  try { return localStorage.getItem(MUTE_KEY) === '1'; } catch { return false; }
}

function sound(name) {
  if (muted() || document.hidden) return;
  S.sounds.push(name);
  try {
    audio ||= new AudioContext();
    const at = audio.currentTime;
    for (const [freq, start, len] of TONES[name]) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, at + start);
      gain.gain.exponentialRampToValueAtTime(0.15, at + start + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, at + start + len);
      osc.connect(gain).connect(audio.destination);
      osc.start(at + start);
      osc.stop(at + start + len + 0.02);
    }
  } catch { /* no audio here: sounds are a bonus */ }
}

function buildMute() {
  const button = document.getElementById('mute');
  const off = muted();
  // A drawn speaker (an emoji may be missing from the phone's fonts).
  button.replaceChildren(svg('svg', { viewBox: '0 0 24 24', width: 20, height: 20, 'aria-hidden': 'true' },
    svg('path', { d: 'M3 9v6h4l5 4V5L7 9H3z', fill: 'currentColor' }),
    off ? svg('path', { d: 'M16 9l6 6M22 9l-6 6', stroke: 'currentColor', 'stroke-width': 2, fill: 'none' })
      : svg('path', { d: 'M15.5 8.5a5 5 0 0 1 0 7M18 6a8.5 8.5 0 0 1 0 12', stroke: 'currentColor', 'stroke-width': 2, fill: 'none' })));
  button.setAttribute('aria-pressed', String(off));
  button.setAttribute('aria-label', t(off ? 'sound.off' : 'sound.on'));
  button.title = t(off ? 'sound.off' : 'sound.on');
  button.onclick = () => {
    try { localStorage.setItem(MUTE_KEY, muted() ? '0' : '1'); } catch { /* not remembered */ }
    buildMute();
  };
}

// --- keyboard shortcuts -------------------------------------------------------------------
// D draw, U UNO, P pass, 1-9 the card at that place in the hand, ? this list.

function onShortcut(e) {
  if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
  if (e.target.closest?.('input, textarea, select, [contenteditable]')) return;
  if (S.conn === 'replaced' || screenName() !== 'table' || !S.view?.you) return;
  if (e.key === '?') {
    S.showKeys = !S.showKeys;
    render();
    if (S.showKeys) document.querySelector('[data-testid=keys-close]')?.focus();
    e.preventDefault();
    return;
  }
  if (document.querySelector('[aria-modal="true"], [role="alertdialog"]')) return;
  const moves = S.view.you.moves || {};
  const key = e.key.toLowerCase();
  if (key === 'd' && moves.draw) send({ type: 'draw' });
  else if (key === 'p' && moves.pass) send({ type: 'pass' });
  else if (key === 'u') document.querySelector('[data-testid=uno-btn]:not(:disabled)')?.click();
  else if (/^[1-9]$/.test(e.key)) {
    const card = document.querySelectorAll('[data-testid=hand] .card')[Number(e.key) - 1];
    if (!card) return;
    card.focus();
    card.click();
  } else return;
  e.preventDefault();
}

/** Seed the log from the view's recent events (after a reload), keeping what we already have. */
function mergeLog(list) {
  if (!Array.isArray(list)) return;
  const seen = new Set(S.log.map((e) => e.version).filter((v) => v != null));
  const saved = S.log;
  S.log = [];
  let settings = null; // a settings change seen earlier in the list says what the next changed
  for (let ev of list) {
    const v = ev.version ?? null;
    if (ev.kind === 'settings_changed') {
      const next = ev.settings ?? settings;
      ev = { ...ev, changes: settingsChanges(withDefaults(settings), withDefaults(ev.settings)) };
      settings = next;
    }
    if (v == null ? saved.length : seen.has(v)) continue;
    addLog(ev, v, false);
  }
  S.log = [...S.log, ...saved].sort((a, b) => (a.version ?? 0) - (b.version ?? 0));
  saveLog();
}

/**
 * Keep the event itself (not its sentence), with the seat names of that moment, so the log
 * is re-read in the language picked later and names stay right after seats move.
 */
function seatNames(view) {
  return (view?.seats || []).map((x) => ({ seat: x.seat, name: x.name, bot: !!x.bot, player_id: x.player_id ?? null }));
}

function addLog(ev, version, announceIt, names = seatNames(S.view)) {
  const entry = { version, event: ev, names };
  const text = describe(ev, { seats: names });
  if (!text) return;
  S.log.push(entry);
  if (S.log.length > LOG_LIMIT) S.log.splice(0, S.log.length - LOG_LIMIT);
  saveLog();
  if (announceIt && !ev.toasted && !['connected', 'disconnected', 'spectator_joined', 'spectator_left'].includes(ev.kind)) announce(text);
}

function saveLog() {
  if (!S.session) return;
  try {
    sessionStorage.setItem(`uno.log.${S.session.room}`, JSON.stringify(S.log.slice(-LOG_LIMIT)));
  } catch { /* storage full or disabled: the log lives in memory only */ }
}

function restoreLog(room) {
  try {
    const list = JSON.parse(sessionStorage.getItem(`uno.log.${room}`) || '[]');
    return Array.isArray(list) ? list.filter((e) => e && e.event) : [];
  } catch {
    return [];
  }
}

function onError(f) {
  // Without a command id, `unauthorized` answers the hello: the token is not a seat here.
  if (f.code === 'unauthorized' && !f.id && S.session) {
    // The stored token is no longer a seat here (room gone or seat removed): start over.
    const room = S.session.room;
    forgetSession(room);
    leaveRoom();
    toast(t('err.unauthorized'));
    render();
    return;
  }
  toast(errorText(f.code));
  // A refused change (settings, say) must not stay shown as if it had been applied.
  render();
}

// --- commands ---------------------------------------------------------------------------

/** Send a command decided on the current view (`at` = its version). */
// Turn commands wait for their answer: a second click meanwhile (a double click, a key held
// down) would only be refused, so it is dropped here.
const TURN_COMMANDS = new Set(['play', 'draw', 'pass', 'challenge', 'accept', 'choose']);
const INFLIGHT_MS = 5000;

export function send(cmd, { at = true } = {}) {
  if (!S.socket) return;
  const turn = TURN_COMMANDS.has(cmd.type);
  if (turn && S.inflight && Date.now() - S.inflight.at < INFLIGHT_MS) return;
  const full = at && S.view ? { ...cmd, at: S.view.version ?? S.version } : cmd;
  const id = S.socket.send(full);
  if (turn) S.inflight = { id, at: Date.now() };
}

const waiting = new Map(); // command id -> resolve, for commands whose answer a caller awaits

function answered(id) {
  if (S.inflight && S.inflight.id === id) S.inflight = null;
  waiting.get(id)?.();
  waiting.delete(id);
}

/** Send `leave`, wait for its answer (2 s at most), forget the seat and go home. */
async function leaveSeat() {
  if (!S.socket) return;
  leaving = true;
  const id = S.socket.send({ type: 'leave' });
  await new Promise((resolve) => {
    waiting.set(id, resolve);
    setTimeout(resolve, 2000);
  });
  waiting.delete(id);
  leaving = false;
  if (S.session) forgetSession(S.session.room);
  S.confirmLeave = false;
  navigate('/');
}

// --- live region, toasts ----------------------------------------------------------------

let announceTimer = null;
const announceQueue = [];

export function announce(text) {
  announceQueue.push(text);
  if (announceTimer) return;
  // Batch announcements so a burst of events is read as one message.
  announceTimer = setTimeout(() => {
    const live = document.getElementById('live');
    // Sentences joined with a full stop, unless one ends with its own ("Mikko said UNO!").
    const text = announceQueue.splice(0).reduce((all, line) => (all ? `${all}${/[.!?؟…]$/.test(all) ? ' ' : '. '}${line}` : line), '');
    const p = h('p', {}, text);
    live.append(p);
    while (live.childNodes.length > 5) live.firstChild.remove();
    announceTimer = null;
  }, 150);
}

/** A short message at the screen's edge; `kind` 'event' marks a move's news (not a refusal). */
export function toast(text, ms = 4000, kind = null) {
  const box = document.getElementById('toasts');
  const el = h('div', { class: 'toast', role: 'status', testid: 'toast', dataset: kind ? { kind } : {} }, text);
  box.append(el);
  setTimeout(() => el.remove(), ms);
}

// --- rendering --------------------------------------------------------------------------

const actions = {
  send, navigate, enterRoom, toast, announce, render: () => render(),
  leave: () => { if (S.session) forgetSession(S.session.room); navigate('/'); },
  leaveRoom: leaveSeat,
};

let lastScreen = null;

// Page code loaded when first needed: a seated player's room page needs neither the home and
// join forms nor the tournament page.
const pages = { home: null, tournament: null, match: null };
const PAGE_MODULES = { home: () => import('./home.js'), tournament: () => import('./tournament.js'), match: () => import('./match.js') };

function loadPage(name) {
  PAGE_MODULES[name]().then((m) => { pages[name] = m; render(); });
}

function render() {
  setConn(S.conn);
  const label = document.getElementById('room-label');
  label.textContent = S.route.name === 'room' ? t('room.code', { code: S.route.room }) : '';
  document.body.dataset.screen = screenName();
  document.body.classList.toggle('dark-side', S.view?.state?.side === 'dark');
  // The tab title tells a player in another tab that it is their turn.
  const mine = S.conn !== 'replaced' && S.view?.status === 'playing' && S.view.you && S.view.state?.turn === S.view.you.seat;
  document.title = mine ? `● ${t('table.your_turn')} — ${t('app.title')}` : t('app.title');
  // Likewise on the tournament page when this entrant's next table is ready.
  if (S.route.name === 'tournament' && pages.tournament?.tableIsReady(S.route.code)) document.title = `● ${t('tour.table_ready')} — ${t('app.title')}`;
  let screen;
  const need = { home: 'home', join: 'home', tournament: 'tournament', match: 'match' }[screenName()];
  if (need && !pages[need]) {
    loadPage(need);
    screen = h('section', { class: 'panel center', testid: 'loading' }, h('p', {}, t('join.loading')));
  } else switch (screenName()) {
    case 'home': screen = pages.home.homeScreen(S, actions); break;
    case 'tournament': screen = pages.tournament.tournamentScreen(S, actions); break;
    case 'match': screen = pages.match.matchScreen(S, actions); break;
    case 'join': screen = pages.home.joinScreen(S, actions); break;
    case 'connecting':
      screen = h('section', { class: 'panel center', testid: 'connecting' }, h('p', {}, t('conn.connecting')));
      break;
    case 'lobby': screen = lobbyScreen(S, actions); break;
    default: screen = tableScreen(S, actions); break;
  }
  // Another tab took this seat: this one shows so, and nothing here can act or type into the void.
  const replaced = S.conn === 'replaced' && !!S.session;
  if (replaced && screen) screen.inert = true;
  // The live screens (lobby, table) are patched in place; a new screen replaces the old one.
  const name = screenName();
  const moved = lastScreen !== null && lastScreen !== name;
  const active = document.activeElement;
  const hadFocus = !!active && active !== app && app.contains(active);
  if ((name === 'lobby' || name === 'table') && lastScreen === name) patch(app, replaced ? replacedBanner() : null, screen);
  else replaceKeepingFocus(app, replaced ? replacedBanner() : null, screen);
  if (moved) {
    // A new screen starts at its top: a guest reading the rules far down the lobby when the
    // host dealt was left at the bottom of the table (the chat), the piles and hand above.
    window.scrollTo(0, 0);
    // The button pressed went with the old screen: the focus stays in the page's main region
    // (where a screen reader reads on, and Tab goes on), not on nothing.
    if (hadFocus && !app.contains(document.activeElement)) app.focus({ preventScroll: true });
  }
  lastScreen = name;
  focusPrompt();
  tickTimers(S);
}

// A question to answer on a timer (challenge a Wild Draw Four, name the color of a turned-up wild)
// takes the focus when it appears, unless one is typing: from the hand, a keyboard player had
// to find it with Tab while the shortcuts were off and the seconds ran.
let shownPrompt = null;
function focusPrompt() {
  const prompt = app.querySelector('[data-testid=challenge-dialog], [data-testid=choose-dialog]');
  const shown = prompt?.dataset.testid ?? null;
  const fresh = shown && shown !== shownPrompt;
  shownPrompt = shown;
  if (!fresh || document.querySelector('[aria-modal="true"]')) return;
  const a = document.activeElement;
  if (a && a !== document.body && a !== app && (a.matches('input, textarea, select') || !app.contains(a))) return;
  revealHand(prompt);
  prompt.querySelector('button:not(:disabled)')?.focus({ preventScroll: true });
}

// The question floats at a fixed place (a phone: the top of the screen). A player scrolled down
// (reading the log or the chat under the hand) had the hand right under it: the page scrolls
// just enough to show the hand's first row below (or above) the question.
function revealHand(prompt) {
  const hand = app.querySelector('[data-testid=hand] .card');
  if (!hand) return;
  const p = prompt.getBoundingClientRect();
  const c = hand.getBoundingClientRect();
  const covered = c.left < p.right && c.right > p.left && c.top < p.bottom && c.bottom > p.top;
  const unseen = c.top < 0 || c.bottom > innerHeight;
  if (!covered && !unseen) return;
  // Below a question at the top, else above one at the bottom.
  const dy = p.top < innerHeight / 2 ? c.top - (p.bottom + 8) : c.bottom - (p.top - 8);
  window.scrollBy({ top: dy, behavior: 'instant' });
}

function replacedBanner() {
  return h('div', { class: 'panel replaced', role: 'alert', testid: 'replaced' },
    h('p', {}, t('conn.replaced_long')),
    h('button', { type: 'button', class: 'primary', testid: 'take-back', onclick: () => S.socket?.reconnectNow() }, t('conn.take_back')));
}

function screenName() {
  if (S.route.name === 'home') return 'home';
  if (S.route.name === 'tournament') return 'tournament';
  if (S.route.name === 'match') return 'match';
  if (!S.session) return 'join';
  if (!S.view) return 'connecting';
  if (S.view.status === 'lobby') return 'lobby';
  return 'table';
}

// --- boot -------------------------------------------------------------------------------

function buildLanguageSwitcher() {
  const select = document.getElementById('lang');
  select.replaceChildren(...Object.entries(LANGUAGES).map(([code, l]) =>
    h('option', { value: code, selected: code === language(), lang: code }, l.name)));
  select.onchange = () => setLanguage(select.value, { remember: true });
  document.getElementById('lang-label').textContent = t('lang.label');
  document.getElementById('skip-link').textContent = t('a11y.skip');
}

await setLanguage(initialLanguage());
buildLanguageSwitcher();
onLanguageChange(() => { buildLanguageSwitcher(); buildMute(); render(); });
buildMute();
document.addEventListener('keydown', onShortcut);
window.addEventListener('popstate', start);
NARROW.addEventListener('change', () => render());
SMALL_PHONE.addEventListener('change', () => render());
// A clean close on leaving the page, so the server marks the seat away at once.
window.addEventListener('pagehide', () => S.socket?.stop());
setInterval(() => tickTimers(S), 250);
// Developer and test handle: the same commands a player's buttons send, nothing more.
window.uno = { state: S, send: (cmd) => S.socket?.send(cmd) };
start();
