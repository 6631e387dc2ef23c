// HTTP calls of PROTOCOL section 2, and the seat credentials kept in localStorage.

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message || code || `HTTP ${status}`);
    this.status = status;
    this.code = code;
  }
}

async function call(method, path, body, token) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (token) headers.Authorization = `Bearer ${token}`;
  let res;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, 'network', '');
  }
  let data = null;
  try { data = await res.json(); } catch { /* empty or not JSON */ }
  if (!res.ok) {
    const err = data && data.error ? data.error : {};
    throw new ApiError(res.status, err.code || `http_${res.status}`, err.message || '');
  }
  return data;
}

export const api = {
  createRoom: (name, settings) => call('POST', '/api/rooms', { name, settings }),
  joinRoom: (room, name) => call('POST', `/api/rooms/${encodeURIComponent(room)}/players`, { name }),
  watchRoom: (room, name) => call('POST', `/api/rooms/${encodeURIComponent(room)}/spectators`, { name }),
  roomSummary: (room) => call('GET', `/api/rooms/${encodeURIComponent(room)}`),
  tournament: (code) => call('GET', `/api/tournaments/${encodeURIComponent(code)}`),
  tournamentEnter: (code, name) => call('POST', `/api/tournaments/${encodeURIComponent(code)}/entrants`, { name }),
  tournamentMe: (code, token) => call('GET', `/api/tournaments/${encodeURIComponent(code)}/me`, undefined, token),
  createTournament: (body) => call('POST', '/api/tournaments', body),
  removeEntrant: (code, entrantId, token) =>
    call('DELETE', `/api/tournaments/${encodeURIComponent(code)}/entrants/${encodeURIComponent(entrantId)}`, undefined, token),
  startTournament: (code, token) => call('POST', `/api/tournaments/${encodeURIComponent(code)}/start`, undefined, token),
};

// --- credentials --------------------------------------------------------------------------

const PREFIX = 'uno.session.';

/** {room, token, player_id, seat, role} for a room, or null. */
export function loadSession(room) {
  try {
    const raw = localStorage.getItem(PREFIX + room);
    const s = raw ? JSON.parse(raw) : null;
    return s && typeof s.token === 'string' ? s : null;
  } catch {
    return null;
  }
}

export function saveSession(session) {
  try {
    localStorage.setItem(PREFIX + session.room, JSON.stringify({ ...session, saved_at: Date.now() }));
  } catch { /* private mode: the session lasts for this page only */ }
}

export function forgetSession(room) {
  try { localStorage.removeItem(PREFIX + room); } catch { /* nothing stored */ }
}

/** Rooms this browser holds a seat in, newest first (for the home page). */
export function knownSessions() {
  const out = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (!key || !key.startsWith(PREFIX)) continue;
      const s = JSON.parse(localStorage.getItem(key));
      if (s && s.room) out.push(s);
    }
  } catch { /* ignore broken entries */ }
  return out.sort((a, b) => (b.saved_at || 0) - (a.saved_at || 0)).slice(0, 5);
}

export function rememberedName() {
  try { return localStorage.getItem('uno.name') || ''; } catch { return ''; }
}

export function rememberName(name) {
  try { localStorage.setItem('uno.name', name); } catch { /* ignore */ }
}
