extension PlaygroundPage {
    /// The page's script: the editor's lines and marks, the calls to the playground's API as the
    /// user types (each debounced, and a late answer to an older call ignored), and the panes.
    static let script = #"""
    'use strict';
    const $ = (id) => document.getElementById(id);
    const state = { prefill: false, name: null, isNew: false, saved: '', diagnostics: [], compiled: null, subjects: ['token'], cases: [], selected: null, timers: {}, calls: {},
      lines: 0, marked: [] };
    // The session's token, from the address policy-run play printed; every call carries it.
    const TOKEN = new URLSearchParams(location.search).get('token') || '';
    const TEMPLATE = 'policy: new-policy\ndescription: What a valid token is, in a sentence\ntoken:\n  algorithms: [RS256]\n  keys: {jwks_uri: https://issuer.example/.well-known/jwks.json}\n  issuer: https://issuer.example\n  audience: api://example\n  leeway: 60s\n';
    const PLACEHOLDERS = { token: 'Paste a token (compact or JSON serialization)', request: 'Paste the request as JSON: {"method": "POST", "url": "https://…", "headers": {…}, "body": …}',
      callback: 'Paste the URL the browser was sent back to: https://app.example/callback?code=…&state=…' };

    /// An element with attributes and children; strings become text, never markup.
    function el(tag, attributes, ...children) {
      const element = document.createElement(tag);
      for (const [name, value] of Object.entries(attributes || {})) {
        if (name === 'class') element.className = value; else element.setAttribute(name, value);
      }
      for (const child of children) if (child !== null && child !== undefined) element.append(child instanceof Node ? child : String(child));
      return element;
    }

    async function call(path, body) {
      const headers = { 'X-Playground-Token': TOKEN };
      const options = body === undefined ? { headers } : { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
      const response = await fetch(path, options);
      const json = await response.json();
      if (!response.ok) throw new Error(json.error ? json.error.message : response.statusText);
      return json;
    }

    /// Runs `work` after `delay` ms without another call for `key`; an answer to a call that a
    /// later one replaced is dropped.
    function schedule(key, delay, work) {
      clearTimeout(state.timers[key]);
      state.timers[key] = setTimeout(async () => {
        const ticket = (state.calls[key] || 0) + 1;
        state.calls[key] = ticket;
        try {
          const result = await work();
          if (state.calls[key] === ticket && result) result();
        } catch (error) {
          if (state.calls[key] === ticket) setStatus(error.message, true);
        }
      }, delay);
    }

    function setStatus(text, isError) {
      $('status').textContent = text;
      $('status').className = isError ? 'error' : 'muted';
    }

    /// The name a new policy's text declares, as written; null when it declares none.
    function declaredName() {
      const declared = /^policy:[ \t]*["']?([^"'#\s]+)/m.exec($('yaml').value);
      return declared ? declared[1] : null;
    }

    /// Whether `name` can name a policy file (as the playground checks it too).
    function isFileName(name) { return /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(name) && !/\.test$/i.test(name); }

    /// The file's name; for a new policy, the name its text declares when that can name a file.
    function policyName() {
      if (!state.isNew) return state.name;
      const declared = declaredName();
      return declared && isFileName(declared) ? declared : 'untitled';
    }
    function edited() { return { name: policyName(), text: $('yaml').value }; }

    // The editor: line numbers, and each diagnostic marked on its line. Lines are added or
    // removed at the end and only the marks that change are touched, so a keystroke in a long
    // policy costs what changed, not a line element per line.
    function renderEditor() {
      const gutter = $('gutter'), backdrop = $('backdrop');
      let lines = 1;
      const text = $('yaml').value;
      for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) lines++;
      for (let line = state.lines + 1; line <= lines; line++) {
        gutter.append(el('div', { class: 'line', 'data-line': line }, line));
        backdrop.append(el('div', { class: 'line' }));
      }
      while (state.lines > lines) { gutter.lastChild.remove(); backdrop.lastChild.remove(); state.lines--; }
      state.lines = lines;
      for (const line of state.marked) {
        if (line > lines) continue;
        gutter.children[line - 1].className = 'line';
        gutter.children[line - 1].removeAttribute('title');
        backdrop.children[line - 1].className = 'line';
      }
      const marks = new Map();
      for (const diagnostic of state.diagnostics) {
        if (!diagnostic.in_editor || diagnostic.line > lines) continue;
        if (!marks.has(diagnostic.line)) marks.set(diagnostic.line, []);
        marks.get(diagnostic.line).push(diagnostic);
      }
      for (const [line, found] of marks) {
        const severity = found.some((d) => d.severity === 'error') ? 'line error' : 'line warning';
        gutter.children[line - 1].className = severity;
        gutter.children[line - 1].title = found.map((d) => d.message).join('\n');
        backdrop.children[line - 1].className = severity;
      }
      state.marked = [...marks.keys()];
      syncScroll();
    }

    function syncScroll() {
      $('gutter').scrollTop = $('yaml').scrollTop;
      // Marks span whole lines: only the vertical scroll matters.
      $('backdrop').scrollTop = $('yaml').scrollTop;
    }

    function goToLine(line, column) {
      const text = $('yaml').value;
      let offset = 0;
      for (let current = 1; current < line; current++) offset = text.indexOf('\n', offset) + 1;
      $('yaml').focus();
      $('yaml').setSelectionRange(offset + column - 1, offset + column - 1);
      $('yaml').scrollTop = Math.max(0, (line - 5) * 20);
      syncScroll();
    }

    function renderDiagnostics() {
      const items = state.diagnostics.map((d) => {
        const where = d.in_editor ? `line ${d.line}, column ${d.column}` : `${d.file}:${d.line}:${d.column}`;
        const item = el('li', { class: d.severity, 'data-line': d.line, 'data-in-editor': d.in_editor },
          el('span', { class: 'where' }, where), ' ', el('span', { class: 'code-name' }, d.code), ': ', d.message,
          d.hint ? el('div', { class: 'hint' }, 'hint: ' + d.hint) : null);
        if (d.in_editor) item.addEventListener('click', () => goToLine(d.line, d.column));
        return item;
      });
      $('diagnostics').replaceChildren(...items);
      const errors = state.diagnostics.filter((d) => d.severity === 'error').length;
      const warnings = state.diagnostics.length - errors;
      $('compile-status').textContent = state.compiled
        ? `Compiles: policy ${state.compiled}` + (warnings ? `, ${warnings} warning${warnings === 1 ? '' : 's'}` : '')
        : `Does not compile: ${errors} error${errors === 1 ? '' : 's'}`;
    }

    function onEdit() {
      renderEditor();
      $('dirty').textContent = $('yaml').value === state.saved ? '' : '• unsaved';
      schedule('compile', 200, async () => {
        const result = await call('/api/compile', edited());
        return () => {
          state.diagnostics = result.diagnostics;
          state.compiled = result.policy;
          if (result.subjects) state.subjects = result.subjects;
          renderEditor();
          renderDiagnostics();
          if (result.subjects && result.subjects.length && !result.subjects.includes($('kind').value)) {
            $('kind').value = result.subjects[0];
            $('subject').placeholder = PLACEHOLDERS[$('kind').value];
          }
        };
      });
      evaluateSoon(300);
      schedule('tests', 600, async () => {
        const result = await call('/api/tests', edited());
        return () => renderTests(result);
      });
    }

    function evaluateSoon(delay) {
      schedule('evaluate', delay, async () => {
        const subject = $('subject').value.trim();
        // A policy that judges a subject waits for one; one that judges inputs alone (pkce) does not.
        if (!subject && state.subjects.length) return () => { renderDecoded(null); renderVerdict(null); };
        const result = await call('/api/evaluate', { ...edited(), kind: $('kind').value, subject, now: $('now').value, inputs: $('inputs').value });
        return () => { setStatus(''); renderDecoded(result.decoded); renderVerdict(result); };
      });
    }

    // The token: header and claims, each time claim with its date.
    function renderDecoded(decoded) {
      const pane = $('decoded');
      if (!decoded) {
        pane.replaceChildren($('kind').value === 'token' ? 'No token.' : 'The subject is a ' + $('kind').value + ': no token to decode.');
        pane.className = 'muted';
        return;
      }
      pane.className = '';
      if (decoded.error) { pane.replaceChildren(el('p', { class: 'error' }, decoded.error)); return; }
      const claims = el('pre', { id: 'claims' });
      if (decoded.claims && typeof decoded.claims === 'object' && !Array.isArray(decoded.claims)) {
        for (const line of JSON.stringify(decoded.claims, null, 2).split('\n')) {
          const match = /^  "((?:[^"\\]|\\.)*)": /.exec(line);
          const name = match ? JSON.parse('"' + match[1] + '"') : null;
          claims.append(line);
          if (name && Object.hasOwn(decoded.dates, name)) claims.append(el('span', { class: 'date' }, '   // ' + decoded.dates[name]));
          claims.append('\n');
        }
      } else {
        claims.append(decoded.claims === null ? '(encrypted: the verdict says what decrypting found)' : JSON.stringify(decoded.claims, null, 2));
      }
      pane.replaceChildren(el('div', { class: 'muted' }, decoded.summary), el('h3', {}, 'Header'),
        el('pre', { id: 'header' }, JSON.stringify(decoded.header, null, 2)), el('h3', {}, 'Claims'), claims);
    }

    function renderVerdict(result) {
      const pane = $('verdict');
      if (!result) { pane.replaceChildren('Paste a subject to judge it.'); $('trace').replaceChildren(); return; }
      if (!result.verdict) {
        pane.replaceChildren(result.problem
          ? el('p', { id: 'verdict-problem', class: 'error' }, result.problem.message, el('span', { class: 'muted' }, ` (${result.problem.code})`))
          : el('p', { class: 'muted' }, 'The policy does not compile: its diagnostics are under the editor.'));
        $('trace').replaceChildren();
        return;
      }
      const verdict = result.verdict;
      const key = verdict.trace && verdict.trace.key;
      // As policy-run check says it: a token's signature, a request's bearer token, nothing for a callback or PKCE.
      const proof = key ? `verified with ${key.kid ? `kid '${key.kid}'` : 'a key'} from ${key.source}`
        : state.subjects.includes('token') ? (verdict.verified ? 'verified' : 'not verified')
        : verdict.verified ? 'bearer token verified' : '';
      const parts = [el('div', {}, el('span', { id: 'verdict-status', class: 'status ' + (verdict.valid ? 'valid' : 'invalid') }, verdict.valid ? 'VALID' : 'INVALID'),
        ' policy ', verdict.policy, proof ? ', ' + proof : '')];
      if (verdict.findings.length) {
        parts.push(el('ul', { class: 'findings' }, ...verdict.findings.map((f) =>
          el('li', {}, el('span', { class: 'code-name' }, f.code), ' ', f.rule, ': ', f.message, el('div', { class: 'hint' }, 'at ' + f.at)))));
      }
      if (verdict.skipped.length) parts.push(el('p', { class: 'muted' }, 'Skipped (optional input absent): ' + verdict.skipped.join(', ')));
      if (Object.keys(verdict.outputs).length) parts.push(el('h3', {}, 'Outputs'), el('pre', {}, JSON.stringify(verdict.outputs, null, 2)));
      pane.replaceChildren(...parts);
      renderTrace(verdict.trace);
    }

    /// Where a rule is: its file's name and line, the whole path when pointed at.
    function atFile(at) {
      const place = el('span', { class: 'muted' }, '  (' + at.split('/').pop() + ')');
      place.title = at;
      return place;
    }

    // The trace as a tree: rules grouped by their dotted names; the sections open, a group below them when a rule in it failed.
    function renderTrace(trace) {
      if (!trace) { $('trace').replaceChildren(); return; }
      const root = { children: new Map(), rules: [] };
      for (const entry of trace.rules) {
        let node = root;
        for (const part of entry.rule.split('.').slice(0, -1)) {
          if (!node.children.has(part)) node.children.set(part, { children: new Map(), rules: [] });
          node = node.children.get(part);
        }
        node.rules.push(entry);
      }
      const counts = (node, total = {}) => {
        for (const rule of node.rules) total[rule.status] = (total[rule.status] || 0) + 1;
        for (const child of node.children.values()) counts(child, total);
        return total;
      };
      const label = (status) => status.replace('_', ' ');
      const render = (name, node, depth) => {
        const total = counts(node);
        const details = el('details', { class: 'group' }, el('summary', {}, name, el('span', { class: 'muted' },
          ' — ' + Object.entries(total).map(([status, count]) => `${count} ${label(status)}`).join(', '))));
        if (total.fail || depth === 0) details.open = true;
        for (const [child, value] of node.children) details.append(render(child, value, depth + 1));
        for (const rule of node.rules) {
          details.append(el('div', { class: 'rule' }, el('span', { class: 'state ' + rule.status }, label(rule.status)), rule.rule,
            rule.detail ? el('span', { class: 'muted' }, ': ' + rule.detail) : null, atFile(rule.at)));
        }
        return details;
      };
      const groups = [...root.children].map(([name, node]) => render(name, node, 0));
      const loose = root.rules.map((rule) => el('div', { class: 'rule' }, el('span', { class: 'state ' + rule.status }, label(rule.status)), rule.rule));
      $('trace').replaceChildren(el('p', { class: 'muted' }, `Clock ${trace.clock.iso8601} from ${trace.clock.source}`), ...groups, ...loose);
    }

    // The test file's cases, run against the text being edited.
    function renderTests(result) {
      $('test-file').textContent = result.file ? result.file.split('/').pop() : '';
      state.cases = result.cases;
      if (!result.file) {
        $('test-summary').textContent = `No test file (${policyName()}.test.yaml) beside this policy.`;
        $('cases').replaceChildren();
        $('case-detail').replaceChildren();
        return;
      }
      if (result.problems.length) {
        $('test-summary').textContent = 'The test file cannot run: ' + result.problems.map((p) => `${p.file}:${p.line}: ${p.message}`).join('; ');
        $('cases').replaceChildren();
        return;
      }
      const passed = result.cases.filter((c) => c.outcome === 'pass').length;
      $('test-summary').textContent = `${passed} passed, ${result.cases.length - passed} failed`;
      $('cases').replaceChildren(...result.cases.map((testCase, index) => {
        const item = el('li', { 'data-outcome': testCase.outcome, 'data-index': index },
          el('span', { class: 'badge ' + testCase.outcome }, testCase.outcome.toUpperCase()), testCase.name);
        item.addEventListener('click', () => selectCase(index));
        return item;
      }));
      if (state.selected !== null && state.selected < result.cases.length) showCase(state.selected);
      if (state.prefill && result.cases.length) {
        // A policy just opened starts from its first case's time and inputs.
        state.prefill = false;
        $('now').value = result.cases[0].now;
        $('inputs').value = JSON.stringify(result.cases[0].inputs);
        evaluateSoon(0);
      }
    }

    function showCase(index) {
      state.selected = index;
      const testCase = state.cases[index];
      for (const item of $('cases').children) item.classList.toggle('selected', Number(item.dataset.index) === index);
      const parts = [el('div', {}, el('span', { id: 'case-status', class: 'status ' + (testCase.outcome === 'pass' ? 'valid' : 'invalid') }, testCase.outcome.toUpperCase()),
        ' ', testCase.name, el('span', { class: 'muted' }, ` (line ${testCase.line})`))];
      if (testCase.differences) parts.push(el('ul', { class: 'findings' }, ...testCase.differences.map((d) => el('li', {}, d))));
      if (testCase.verdict && testCase.verdict.findings.length) {
        parts.push(el('div', { class: 'muted' }, 'Findings: ' + testCase.verdict.findings.map((f) => f.code).join(', ')));
      }
      if (testCase.token === undefined && testCase.request === undefined && testCase.callback === undefined) {
        parts.push(el('div', { class: 'muted' }, 'Its token is minted by the test runner with stand-in keys: the Verdict pane still judges the subject you gave.'));
      }
      $('case-detail').replaceChildren(...parts);
      $('case-detail').scrollIntoView({ block: 'nearest' });
    }

    // Picking a case shows its outcome, and puts its subject, time and inputs in the panes when it has a subject to paste.
    function selectCase(index) {
      showCase(index);
      const testCase = state.cases[index];
      const subject = testCase.token !== undefined ? ['token', testCase.token] : testCase.request !== undefined ? ['request', testCase.request]
        : testCase.callback !== undefined ? ['callback', testCase.callback] : null;
      if (!subject) return;
      [$('kind').value, $('subject').value] = subject;
      $('now').value = testCase.now;
      $('inputs').value = JSON.stringify(testCase.inputs);
      evaluateSoon(0);
    }

    async function loadPolicies(select) {
      if (!TOKEN) throw new Error('Open the address policy-run play printed: it carries the token that lets this page call the playground.');
      const result = await call('/api/policies');
      const options = result.policies.map((p) => el('option', { value: p.name }, p.name + (p.tests ? '' : ' (no tests)')));
      options.push(el('option', { value: '' }, '(new policy)'));
      $('policy').replaceChildren(...options);
      const wanted = select !== undefined ? select : (new URLSearchParams(location.search).get('policy') || (result.policies[0] && result.policies[0].name) || '');
      $('policy').value = wanted;
      await openPolicy($('policy').value);
    }

    async function openPolicy(name) {
      state.isNew = name === '';
      state.name = state.isNew ? null : name;
      state.selected = null;
      // The time and inputs are the new policy's: its first case's, once its tests have run.
      state.prefill = true;
      $('now').value = '';
      $('inputs').value = '{}';
      const text = state.isNew ? TEMPLATE : (await call('/api/policies/' + encodeURIComponent(name))).text;
      $('yaml').value = text;
      state.saved = state.isNew ? '' : text;
      $('file').textContent = state.isNew ? '(new: saved under the name it declares)' : name + '.yaml';
      $('yaml').scrollTop = 0;
      state.diagnostics = [];
      $('case-detail').replaceChildren();
      onEdit();
    }

    async function save() {
      if (state.isNew && !(declaredName() && isFileName(declaredName()))) {
        setStatus(`Not saved: a new policy is saved under the name its 'policy:' declares, and '${declaredName() || ''}' cannot name a file (letters, digits, '.', '_', '-').`, true);
        return;
      }
      const errors = state.diagnostics.filter((d) => d.severity === 'error').length;
      if (errors && !window.confirm(`This text does not compile (${errors} error${errors === 1 ? '' : 's'}): policy-run will refuse the file. Save it anyway?`)) return;
      if (!state.isNew && state.compiled && state.compiled !== state.name
          && !window.confirm(`The text declares policy '${state.compiled}' but is saved as ${state.name}.yaml: its tests and other policies look it up by its file's name. Save anyway?`)) return;
      try {
        const result = await call('/api/save', { ...edited(), new: state.isNew });
        state.saved = $('yaml').value;
        setStatus('Saved to ' + result.saved);
        $('dirty').textContent = '';
        if (state.isNew) await loadPolicies(policyName());
      } catch (error) {
        setStatus('Not saved: ' + error.message, true);
      }
    }

    window.addEventListener('DOMContentLoaded', () => {
      $('yaml').addEventListener('input', onEdit);
      $('yaml').addEventListener('scroll', syncScroll);
      $('yaml').addEventListener('keydown', (event) => {
        if (event.key !== 'Tab') return;
        event.preventDefault();
        const area = $('yaml'), start = area.selectionStart;
        area.setRangeText('  ', start, area.selectionEnd, 'end');
        onEdit();
      });
      for (const id of ['subject', 'now', 'inputs']) $(id).addEventListener('input', () => evaluateSoon(250));
      $('kind').addEventListener('change', () => { $('subject').placeholder = PLACEHOLDERS[$('kind').value]; evaluateSoon(0); });
      $('save').addEventListener('click', save);
      let previous = null;
      $('policy').addEventListener('focus', () => { previous = $('policy').value; });
      $('policy').addEventListener('change', () => {
        if ($('yaml').value !== state.saved && !window.confirm('Discard the unsaved changes to this policy?')) { $('policy').value = previous; return; }
        openPolicy($('policy').value).catch((error) => setStatus(error.message, true));
      });
      window.addEventListener('beforeunload', (event) => { if ($('yaml').value !== state.saved) event.preventDefault(); });
      loadPolicies().catch((error) => setStatus(error.message, true));
    });

    """#
}
