// The room settings form (RULES.md settings table), shared by the home page and the lobby.
import { h, t } from './core.js';

export const DEFAULTS = {
  variant: 'classic',
  deck: 'gdj85',
  custom_wilds: [],
  first_card: 'official',
  draw: 'one',
  max_draw: 10,
  forced_play: false,
  no_voluntary_draw: false,
  stack_draw2: false,
  stack_draw4: false,
  stack_draw4_on_draw2: false,
  seven_zero: false,
  jump_in: false,
  bluffing: true,
  uno_penalty: 2,
  false_catch_penalty: 0,
  scoring: 'winner_collects',
  target_score: 500,
  turn_seconds: 30,
  uno_window_ms: 3000,
  challenge_seconds: 10,
  afk_timeouts: 2,
  next_round_seconds: 10,
  flip_discard: 'whole_pile',
  max_players: 10,
};

// Field groups as shown; `when` hides a field that the chosen variant does not use.
const GROUPS = [
  ['set.group.game', [
    { key: 'variant', type: 'select', options: ['classic', 'all_wild', 'flip'] },
    { key: 'deck', type: 'select', options: ['gdj85', 'original'], when: (s) => s.variant === 'classic' },
    { key: 'first_card', type: 'select', options: ['official', 'redraw_until_number', 'apply_actions_reshuffle_wilds'], when: (s) => s.variant !== 'all_wild' },
    { key: 'flip_discard', type: 'select', options: ['whole_pile', 'top_card'], when: (s) => s.variant === 'flip' },
    { key: 'max_players', type: 'number', min: 2, max: 10 },
  ]],
  ['set.group.drawing', [
    { key: 'draw', type: 'select', options: ['one', 'until_playable'] },
    { key: 'max_draw', type: 'number', min: 0, max: 50, when: (s) => s.draw === 'until_playable' },
    { key: 'forced_play', type: 'bool' },
    { key: 'no_voluntary_draw', type: 'bool' },
  ]],
  ['set.group.house', [
    { key: 'stack_draw2', type: 'bool' },
    { key: 'stack_draw4', type: 'bool' },
    { key: 'stack_draw4_on_draw2', type: 'bool' },
    { key: 'seven_zero', type: 'bool' },
    { key: 'jump_in', type: 'bool' },
    { key: 'bluffing', type: 'bool' },
    { key: 'uno_penalty', type: 'number', min: 0, max: 10 },
    { key: 'false_catch_penalty', type: 'number', min: 0, max: 10 },
  ]],
  ['set.group.scoring', [
    { key: 'scoring', type: 'select', options: ['winner_collects', 'lowest_wins', 'none'] },
    { key: 'target_score', type: 'number', min: 50, max: 10000, step: 50 },
  ]],
  ['set.group.timers', [
    { key: 'turn_seconds', type: 'number', min: 0, max: 600, least: 5 },
    { key: 'uno_window_ms', type: 'number', min: 500, max: 30000, step: 500 },
    { key: 'challenge_seconds', type: 'number', min: 3, max: 120 },
    { key: 'afk_timeouts', type: 'number', min: 1, max: 10 },
    { key: 'next_round_seconds', type: 'number', min: 0, max: 300 },
  ]],
];

export const EFFECTS = ['next_draws', 'all_others_draw', 'skip_next', 'swap_hands', 'rotate_hands', 'discard_color', 'reverse'];
const EFFECTS_WITH_N = new Set(['next_draws', 'all_others_draw', 'skip_next']);

function customAllowed(s) {
  return s.variant === 'classic' && s.deck === 'gdj85';
}

/** Only the keys that differ from the defaults (what the create call sends). */
export function changedSettings(s) {
  const out = {};
  for (const [k, v] of Object.entries(s)) {
    if (JSON.stringify(v) !== JSON.stringify(DEFAULTS[k])) out[k] = v;
  }
  if (!customAllowed(s)) delete out.custom_wilds;
  return out;
}

/**
 * Build the settings form.
 * @param {object} current  settings to show
 * @param {object} o
 * @param {boolean} o.disabled       read-only (not the host)
 * @param {(patch: object, all: object) => void} o.onChange  called with the changed keys
 * @param {string} o.prefix          testid prefix
 * @param {string[]} o.omit          keys not shown (the tournament form sets them itself)
 * @param {number} o.seated          players already seated (the lobby): the least `max_players`
 */
export function settingsForm(current, { disabled = false, onChange, prefix = 'set', omit = [], seated = 0 }) {
  const s = { ...DEFAULTS, ...current, custom_wilds: [...(current.custom_wilds || [])] };
  const root = h('div', { class: 'settings', testid: `${prefix}-form` });

  const emit = (patch) => {
    // Leaving the classic gdj85 deck with Customizable cards set would be refused as a whole,
    // so the form clears them in the same change.
    const next = { ...s, ...patch };
    if (!customAllowed(next) && s.custom_wilds.length && !('custom_wilds' in patch)) {
      patch = { ...patch, custom_wilds: [] };
    }
    Object.assign(s, patch);
    onChange?.(patch, { ...s });
    draw();
  };

  const field = (f) => {
    const id = `${prefix}-${f.key}`;
    const label = t(`set.${f.key}`);
    const help = t(`set.${f.key}.help`);
    const value = s[f.key];
    let input;
    if (f.type === 'select') {
      input = h('select', {
        id, testid: id, disabled,
        onchange: (e) => emit({ [f.key]: e.target.value }),
      }, f.options.map((o) => h('option', { value: o, selected: o === value }, t(`set.${f.key}.${o}`))));
    } else if (f.type === 'bool') {
      input = h('input', {
        id, testid: id, type: 'checkbox', checked: !!value, disabled,
        onchange: (e) => emit({ [f.key]: e.target.checked }),
      });
      return h('div', { class: 'field check' }, input, h('label', { for: id }, label),
        help !== `set.${f.key}.help` ? h('small', { class: 'help' }, help) : null);
    } else {
      const min = f.key === 'max_players' ? Math.max(f.min, seated) : f.min;
      input = h('input', {
        id, testid: id, type: 'number', inputmode: 'numeric', min, max: f.max, step: f.step || 1,
        value: String(value), disabled,
        // A number out of the rules' range would be refused as a whole ("these settings are
        // not allowed", with no word of which): it is brought to the nearest allowed value
        // and shown so. `least`: the smallest value other than 0 (0 = untimed).
        onchange: (e) => {
          let n = Number.parseInt(e.target.value, 10);
          if (!Number.isFinite(n)) { e.target.value = String(s[f.key]); return; }
          n = Math.min(f.max, Math.max(min, n));
          if (f.least && n > 0 && n < f.least) n = f.least;
          e.target.value = String(n);
          emit({ [f.key]: n });
        },
      });
    }
    return h('div', { class: 'field' }, h('label', { for: id }, label), input,
      help !== `set.${f.key}.help` ? h('small', { class: 'help' }, help) : null);
  };

  const customWilds = () => {
    const list = s.custom_wilds;
    const update = (next) => emit({ custom_wilds: next });
    return h('fieldset', { class: 'custom-wilds', testid: `${prefix}-custom-wilds` },
      h('legend', {}, t('set.custom_wilds')),
      h('small', { class: 'help' }, t('set.custom_wilds.help')),
      list.map((w, i) => h('div', { class: 'custom-wild', testid: `${prefix}-custom-${i}` },
        h('select', {
          'aria-label': t('set.custom.effect'), disabled, testid: `${prefix}-custom-${i}-effect`,
          onchange: (e) => {
            const effect = e.target.value;
            const next = { effect, ...(EFFECTS_WITH_N.has(effect) ? { n: w.n || 2 } : {}), ...(w.label ? { label: w.label } : {}) };
            update(list.map((x, j) => (j === i ? next : x)));
          },
        }, EFFECTS.map((eff) => h('option', { value: eff, selected: eff === w.effect }, t(`effect.${eff}`, { n: 'N' })))),
        EFFECTS_WITH_N.has(w.effect) ? h('input', {
          type: 'number', min: 1, max: 10, value: String(w.n ?? 2), disabled, 'aria-label': t('set.custom.n'),
          testid: `${prefix}-custom-${i}-n`, class: 'narrow',
          onchange: (e) => {
            const n = Math.min(10, Math.max(1, Number.parseInt(e.target.value, 10) || 1));
            update(list.map((x, j) => (j === i ? { ...x, n } : x)));
          },
        }) : null,
        h('input', {
          type: 'text', maxlength: 60, value: w.label || '', disabled, placeholder: t('set.custom.label'),
          'aria-label': t('set.custom.label'), testid: `${prefix}-custom-${i}-label`,
          onchange: (e) => {
            const label = e.target.value.trim().slice(0, 60);
            update(list.map((x, j) => {
              if (j !== i) return x;
              const { label: _old, ...rest } = x;
              return label ? { ...rest, label } : rest;
            }));
          },
        }),
        h('button', {
          type: 'button', class: 'ghost', disabled, testid: `${prefix}-custom-${i}-remove`,
          onclick: () => update(list.filter((_, j) => j !== i)),
        }, t('set.custom.remove')))),
      list.length < 3 ? h('button', {
        type: 'button', class: 'ghost', disabled, testid: `${prefix}-custom-add`,
        onclick: () => update([...list, { effect: 'next_draws', n: 2 }]),
      }, t('set.custom.add')) : null);
  };

  const draw = () => {
    const focusKey = document.activeElement?.dataset?.testid;
    root.replaceChildren(...GROUPS.map(([title, fields]) => h('fieldset', { class: 'group' },
      h('legend', {}, t(title)),
      fields.filter((f) => !omit.includes(f.key) && (!f.when || f.when(s))).map(field),
      title === 'set.group.game' && customAllowed(s) ? customWilds() : null)));
    if (focusKey) root.querySelector(`[data-testid="${CSS.escape(focusKey)}"]`)?.focus();
  };
  draw();
  root.values = () => ({ ...s });
  return root;
}
