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
