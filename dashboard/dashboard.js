// The dashboard of the Messaging API mock, served at /__mock/ by the mock itself.
// Plain JavaScript (ES2020), no framework and no build step: it calls the control routes next to
// it (requests, state, reset, switches) with the token typed in, and nothing else.
'use strict';

(() => {
  const POLL_MS = 500;
  const WORLD_REFRESH_MS = 5000;
  const KEEP_ROWS = 200;
  const TOKEN_KEY = 'messaging-api-mock.dashboard.token';

  const $ = (id) => document.getElementById(id);

  const state = {
    token: '',
    /** Journal entries, newest first. */
    entries: [],
    lastSeq: 0,
    openSeq: null,
    world: null,
    selected: null,
    switches: { latency_ms: null, errors: null },
    /** Bumped on every token change, so that answers for the previous token are dropped. */
    generation: 0,
    /** The status of the error switch that was used up, until another is set. */
    usedUp: null,
    pollTimer: 0,
    worldTimer: 0,
  };

  /**
   * A call to a control route of this token; the answer's JSON (or null for 204), or throws an Error
   * with the mock's message. X-Mock-Dashboard keeps the page's calls out of the mock's request log.
   */
  async function call(method, route, body) {
    const headers = { Authorization: `Bearer ${state.token}`, 'X-Mock-Dashboard': '1' };
    let payload;
    if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      payload = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const response = await fetch(route, { method, headers, body: payload, cache: 'no-store' });
    const text = await response.text();
    let parsed = null;
    if (text !== '') {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    if (!response.ok) {
      const message = parsed && typeof parsed === 'object' && parsed.message ? parsed.message : text;
      const error = new Error(`${response.status}: ${message || response.statusText}`);
      error.status = response.status;
      throw error;
    }
    return parsed;
  }

  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (name === 'className') node.className = value;
      else if (name === 'dataset') Object.assign(node.dataset, value);
      else node.setAttribute(name, value === true ? '' : String(value));
    }
    for (const child of children.flat()) {
      if (child === undefined || child === null || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function setStatus(text, isError) {
    const status = $('status');
    status.textContent = text;
    status.classList.toggle('error', Boolean(isError));
  }

  // ---- Token ---------------------------------------------------------------------------------

  function openToken(token) {
    state.token = token;
    state.generation += 1;
    state.entries = [];
    state.lastSeq = 0;
    state.openSeq = null;
    state.world = null;
    state.selected = null;
    state.switches = { latency_ms: null, errors: null };
    state.usedUp = null;
    try {
      localStorage.setItem(TOKEN_KEY, token);
    } catch {
      // Storage may be off (private mode): the page works without remembering.
    }
    $('main').hidden = false;
    closeDetails();
    renderLog();
    clearTimeout(state.pollTimer);
    clearTimeout(state.worldTimer);
    setStatus(`Showing the world of token "${token}".`);
    // Where the world is, asked before the world or its requests are read (that brings it into memory).
    const generation = state.generation;
    void showKept().finally(() => {
      void poll(generation);
      void refreshWorld(generation);
    });
    void showConventions();
  }

  /** Whether the token's world was in memory or on disk (a data dir), or is kept nowhere else. */
  async function showKept() {
    try {
      const kept = await call('GET', '/__mock/kept');
      $('kept').textContent =
        kept.kept === 'data dir'
          ? `Worlds are kept in the data dir; this token's world was ${kept.in_memory ? 'in memory' : 'on disk, and is loaded back now'}.`
          : kept.kept === 'storage'
            ? "Worlds are kept in this browser's storage."
            : 'Worlds live in memory only: a restart, or the memory bounds, lose what a token wrote (--data-dir keeps it).';
    } catch (error) {
      $('kept').textContent = `Could not read where worlds are kept: ${error.message}`;
    }
  }

  /** What fills the document's gaps here: the mock's own conventions, or a server's (a twin). */
  async function showConventions() {
    const list = (id, items) => {
      const ul = $(id);
      ul.replaceChildren(
        ...items.map((text) => {
          const li = document.createElement('li');
          li.textContent = text;
          return li;
        }),
      );
    };
    try {
      const shown = await call('GET', '/__mock/conventions');
      $('conventions').textContent = shown.twin
        ? "The twin of a server: it answers with that server's choices where the document is silent."
        : "The mock's own conventions (C1–C20).";
      list('conventions-taken', shown.taken);
      list(
        'conventions-not',
        shown.not_mirrored.map((text) => `Not mirrored: ${text}`),
      );
    } catch (error) {
      $('conventions').textContent = `Could not read the conventions: ${error.message}`;
    }
  }

  $('token-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const token = $('token').value.trim();
    if (token !== '') openToken(token);
  });

  // ---- Request log ---------------------------------------------------------------------------

  const WRITES = new Set(['POST', 'PUT', 'DELETE', 'PATCH']);

  async function poll(generation) {
    if (generation !== state.generation) return;
    try {
      const [journal, switches] = await Promise.all([
        call('GET', `requests?since=${state.lastSeq}`),
        call('GET', 'switches'),
      ]);
      if (generation !== state.generation) return;
      const fresh = journal.data;
      if (fresh.length > 0) {
        state.lastSeq = fresh[0].seq;
        state.entries = fresh.concat(state.entries).slice(0, KEEP_ROWS);
        renderLog();
        if (fresh.some((entry) => WRITES.has(entry.method) && entry.status < 400)) {
          void refreshWorld(generation);
        }
      }
      // The error switch turned off by itself: its last forced answer was given, so its fields
      // go back to how a new switch starts.
      if (state.switches.errors !== null && switches.errors === null) {
        state.usedUp = state.switches.errors.status;
        resetErrorFields();
      }
      state.switches = switches;
      renderSwitches();
      if ($('status').classList.contains('error')) setStatus(`Showing the world of token "${state.token}".`);
    } catch (error) {
      if (generation !== state.generation) return;
      setStatus(`Cannot reach the mock: ${error.message}`, true);
    }
    state.pollTimer = setTimeout(() => poll(generation), POLL_MS);
  }

  function statusClass(status) {
    if (status >= 500) return '5xx';
    if (status >= 400) return '4xx';
    if (status >= 300) return '3xx';
    return '2xx';
  }

  function shown(entry) {
    const kind = statusClass(entry.status);
    const box = $(`show-${kind}`);
    if (box && !box.checked) return false;
    const text = $('path-filter').value.trim().toLowerCase();
    return text === '' || entry.path.toLowerCase().includes(text);
  }

  function forcedBadge(entry) {
    if (!entry.forced) return null;
    const label = entry.forced === 'prefer' ? 'forced: Prefer' : 'forced: switch';
    return el('span', { className: `badge forced-${entry.forced}` }, label);
  }

  function timeOf(iso) {
    const date = new Date(iso);
    return Number.isNaN(date.getTime()) ? '' : date.toLocaleTimeString([], { hour12: false });
  }

  function renderLog() {
    const rows = $('log-rows');
    const focused = document.activeElement && document.activeElement.closest('#log-rows tr');
    const focusedSeq = focused ? focused.dataset.seq : null;
    const visible = state.entries.filter(shown);
    rows.replaceChildren(
      ...visible.map((entry) => {
        const kind = statusClass(entry.status);
        const open = entry.seq === state.openSeq;
        return el(
          'tr',
          {
            tabindex: 0,
            className: open ? 'open' : '',
            dataset: { seq: entry.seq, status: entry.status },
            'aria-selected': open ? 'true' : 'false',
            title: 'Enter or click: details',
          },
          el('td', { className: 'time' }, timeOf(entry.time)),
          el('td', { className: `method method-${entry.method.toLowerCase()}` }, entry.method),
          el(
            'td',
            { className: 'path' },
            el('span', { className: 'path-text' }, entry.path),
            forcedBadge(entry),
          ),
          el('td', null, el('span', { className: `code code-${kind}` }, entry.status)),
          el('td', { className: 'num' }, Math.round(entry.duration_ms)),
        );
      }),
    );
    $('log-empty').hidden = visible.length > 0;
    $('log-empty').textContent =
      state.entries.length === 0 ? 'No API request yet for this token.' : 'No request matches the filters.';
    if (focusedSeq !== null) rows.querySelector(`tr[data-seq="${focusedSeq}"]`)?.focus();
  }

  function pretty(value) {
    if (typeof value === 'string') return value;
    return JSON.stringify(value, null, 2);
  }

  function section(title, value) {
    return [el('h4', null, title), el('pre', { className: 'json', tabindex: 0 }, pretty(value))];
  }

  function openDetails(seq) {
    const entry = state.entries.find((e) => e.seq === seq);
    if (!entry) return;
    state.openSeq = seq;
    const badge = forcedBadge(entry);
    $('details-title').replaceChildren(
      `${entry.method} ${entry.path} → ${entry.status}`,
      ...(badge ? [badge] : []),
    );
    const parts = [
      el(
        'p',
        { className: 'meta' },
        `#${entry.seq} at ${entry.time}, ${entry.duration_ms} ms`,
        entry.forced === 'prefer' ? ' — forced by a Prefer: code header' : '',
        entry.forced === 'switch' ? ' — forced by the error switch' : '',
      ),
    ];
    const noQuery =
      entry.query === undefined ||
      (typeof entry.query === 'object' && entry.query !== null && Object.keys(entry.query).length === 0);
    if (!noQuery) parts.push(...section('Query parameters', entry.query));
    if (entry.body !== undefined) parts.push(...section('Request body', entry.body));
    parts.push(...section('Answer', entry.answer == null ? '(no body)' : entry.answer));
    $('details-body').replaceChildren(...parts);
    $('details').hidden = false;
    renderLog();
  }

  function closeDetails() {
    const seq = state.openSeq;
    state.openSeq = null;
    $('details').hidden = true;
    if (seq !== null) {
      renderLog();
      $('log-rows').querySelector(`tr[data-seq="${seq}"]`)?.focus();
    }
  }

  $('log-rows').addEventListener('click', (event) => {
    const row = event.target.closest('tr');
    if (row) openDetails(Number(row.dataset.seq));
  });
  $('log-rows').addEventListener('keydown', (event) => {
    const row = event.target.closest('tr');
    if (!row) return;
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      openDetails(Number(row.dataset.seq));
    } else if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const next = event.key === 'ArrowDown' ? row.nextElementSibling : row.previousElementSibling;
      next?.focus();
    }
  });
  $('details-close').addEventListener('click', closeDetails);
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && state.openSeq !== null) closeDetails();
  });
  for (const id of ['show-2xx', 'show-4xx', 'show-5xx', 'path-filter']) {
    $(id).addEventListener('input', renderLog);
  }

  // ---- World ---------------------------------------------------------------------------------

  async function refreshWorld(generation) {
    clearTimeout(state.worldTimer);
    try {
      const world = await call('GET', 'state');
      if (generation !== state.generation) return;
      state.world = world;
      renderWorld();
    } catch (error) {
      if (generation !== state.generation) return;
      $('counts').textContent = `Cannot read the world: ${error.message}`;
    }
    state.worldTimer = setTimeout(() => refreshWorld(generation), WORLD_REFRESH_MS);
  }

  function isActive(contact) {
    return contact.last_active_at !== null && contact.last_active_at !== undefined;
  }

  function dateOf(seconds) {
    return seconds === null || seconds === undefined ? '' : new Date(seconds * 1000).toLocaleString();
  }

  function initials(contact) {
    const name = contact.display_name || contact.username || '?';
    const parts = name.split(/[\s._-]+/).filter(Boolean);
    return ((parts[0] || '?')[0] + (parts[1] ? parts[1][0] : '')).toUpperCase();
  }

  function renderWorld() {
    const { contacts, messages } = state.world;
    const active = contacts.filter(isActive).length;
    $('counts').textContent = `${contacts.length} contacts (${active} active), ${messages.length} messages`;
    const byConversation = new Map();
    for (const message of messages) {
      byConversation.set(message.conversation_id, (byConversation.get(message.conversation_id) || 0) + 1);
    }
    if (state.selected !== null && !contacts.some((c) => c.id === state.selected)) state.selected = null;
    const focusedId = document.activeElement?.closest('#contacts button')?.dataset.contactId;
    const sorted = contacts.slice().sort((a, b) => b.created_at - a.created_at);
    $('contacts').replaceChildren(
      ...sorted.map((contact) =>
        el(
          'li',
          null,
          el(
            'button',
            {
              type: 'button',
              className: 'contact',
              dataset: { contactId: contact.id, username: contact.username },
              'aria-pressed': contact.id === state.selected ? 'true' : 'false',
            },
            el('span', { className: 'avatar', 'aria-hidden': 'true' }, initials(contact)),
            el(
              'span',
              { className: 'who' },
              el('span', { className: 'name' }, contact.display_name || contact.username),
              el('span', { className: 'username' }, `@${contact.username}`),
            ),
            el(
              'span',
              { className: 'side' },
              isActive(contact)
                ? el(
                    'span',
                    { className: 'active', title: `last active ${dateOf(contact.last_active_at)}` },
                    'active',
                  )
                : null,
              el(
                'span',
                { className: 'count' },
                byConversation.get(contact.conversation_id) || 0,
                el('span', { className: 'visually-hidden' }, ' messages'),
              ),
            ),
          ),
        ),
      ),
    );
    if (focusedId) $('contacts').querySelector(`button[data-contact-id="${focusedId}"]`)?.focus();
    renderConversation();
  }

  function reactionChips(reactions) {
    const chips = [];
    for (const group of reactions || []) {
      for (const [name, users] of Object.entries(group)) {
        chips.push(
          el(
            'span',
            { className: 'chip', title: users.join(', '), dataset: { reaction: name } },
            `${name} ${users.length}`,
          ),
        );
      }
    }
    return chips.length ? el('div', { className: 'chips' }, chips) : null;
  }

  function sizeOf(bytes) {
    if (bytes === null || bytes === undefined) return '';
    if (bytes >= 1024 * 1024) return ` (${(bytes / 1024 / 1024).toFixed(1)} MB)`;
    return ` (${Math.max(1, Math.round(bytes / 1024))} kB)`;
  }

  function renderConversation() {
    const contact = state.world && state.world.contacts.find((c) => c.id === state.selected);
    if (!contact) {
      $('conversation-title').textContent = 'Select a contact';
      $('messages').replaceChildren();
      return;
    }
    $('conversation-title').textContent = `Conversation with ${contact.display_name || contact.username}`;
    const messages = state.world.messages
      .filter((m) => m.conversation_id === contact.conversation_id)
      .sort((a, b) => a.created_at - b.created_at);
    if (messages.length === 0) {
      $('messages').replaceChildren(el('li', { className: 'empty' }, 'No message yet.'));
      return;
    }
    $('messages').replaceChildren(
      ...messages.map((m) =>
        el(
          'li',
          { className: 'message', dataset: { messageId: m.id } },
          el('p', { className: 'text' }, m.message),
          (m.attachments || []).length
            ? el(
                'ul',
                { className: 'attachments', 'aria-label': 'Attachments' },
                m.attachments.map((a) =>
                  el(
                    'li',
                    { title: a.file_url },
                    el('span', { className: 'label' }, 'File'),
                    el('span', { className: 'filename' }, a.filename),
                    el('span', { className: 'muted' }, `${a.file_type}${sizeOf(a.file_size)}`),
                  ),
                ),
              )
            : null,
          reactionChips(m.reactions),
          el(
            'p',
            { className: 'muted when' },
            dateOf(m.created_at),
            m.updated_at ? ' · edited' : '',
            m.read_at ? ' · read' : ' · unread',
          ),
        ),
      ),
    );
  }

  $('contacts').addEventListener('click', (event) => {
    const button = event.target.closest('button[data-contact-id]');
    if (!button) return;
    state.selected = button.dataset.contactId;
    renderWorld();
  });

  // ---- Controls ------------------------------------------------------------------------------

  function worldMessage(text, isError) {
    const line = $('world-message');
    line.textContent = text;
    line.classList.toggle('error', Boolean(isError));
  }

  function renderSwitches() {
    const { latency_ms: latency, errors } = state.switches;
    const parts = [];
    if (latency !== null) parts.push(el('span', { className: 'pill on' }, `latency ${latency} ms`));
    if (errors !== null) {
      const answers = errors.remaining === 1 ? 'answer' : 'answers';
      parts.push(
        el('span', { className: 'pill on' }, `next ${errors.remaining} ${answers}: ${errors.status}`),
      );
    } else if (state.usedUp !== null) {
      parts.push(el('span', { className: 'pill done' }, `${state.usedUp} switch used up`));
    }
    if (parts.length === 0) parts.push(el('span', { className: 'pill' }, 'No switch on: real answers.'));
    $('switches-state').replaceChildren(...parts);
    $('switches-state').dataset.active = String(latency !== null || errors !== null);
  }

  $('switches-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const latency = $('latency').value.trim();
    const count = $('error-count').value.trim();
    const status = $('error-status').value.trim();
    const body = {
      latency_ms: latency === '' ? null : Number(latency),
      errors: count === '' ? null : { status: Number(status), count: Number(count) },
    };
    try {
      state.switches = await call('PUT', 'switches', body);
      state.usedUp = null;
      renderSwitches();
      worldMessage('');
    } catch (error) {
      worldMessage(error.message, true);
    }
  });

  function resetErrorFields() {
    $('error-count').value = '';
    $('error-status').value = $('error-status').defaultValue;
  }

  $('switches-clear').addEventListener('click', async () => {
    try {
      await call('DELETE', 'switches');
      state.switches = { latency_ms: null, errors: null };
      state.usedUp = null;
      $('latency').value = '';
      resetErrorFields();
      renderSwitches();
    } catch (error) {
      worldMessage(error.message, true);
    }
  });

  $('reset').addEventListener('click', async () => {
    try {
      await call('POST', 'reset');
      worldMessage('The world is back to the seeded one.');
      await refreshWorld(state.generation);
      const switches = await call('GET', 'switches');
      state.switches = switches;
      renderSwitches();
    } catch (error) {
      worldMessage(error.message, true);
    }
  });

  $('export').addEventListener('click', async () => {
    try {
      const world = await call('GET', 'state');
      const blob = new Blob([JSON.stringify(world, null, 2) + '\n'], { type: 'application/json' });
      const link = el('a', {
        href: URL.createObjectURL(blob),
        download: `world-${state.token.replace(/[^A-Za-z0-9._-]/g, '_')}.json`,
      });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
      worldMessage(`Exported ${world.contacts.length} contacts and ${world.messages.length} messages.`);
    } catch (error) {
      worldMessage(error.message, true);
    }
  });

  $('import').addEventListener('change', async () => {
    const file = $('import').files[0];
    if (!file) return;
    try {
      const counts = await call('PUT', 'state', await file.text());
      worldMessage(`Imported ${file.name}: ${counts.contacts} contacts, ${counts.messages} messages.`);
      state.selected = null;
      await refreshWorld(state.generation);
    } catch (error) {
      worldMessage(`Refused: ${error.message}`, true);
    } finally {
      $('import').value = '';
    }
  });

  // ---- Start ---------------------------------------------------------------------------------

  let remembered = '';
  try {
    remembered = localStorage.getItem(TOKEN_KEY) || '';
  } catch {
    remembered = '';
  }
  if (remembered !== '') {
    $('token').value = remembered;
    openToken(remembered);
  } else {
    setStatus('Type the token whose world to show (the one your client sends as Bearer).');
    $('token').focus();
  }
})();
