// The page's script: reads the page's data (the JSON element written by src/report/html_model.cpp)
// and builds every element with textContent, never markup. Long lists are virtualised (only the
// rows in view exist), so that a 100,000-file cache's page stays quick.
(function () {
  'use strict';
  const D = JSON.parse(document.getElementById('sdscprov-data').textContent);
  const $ = (id) => document.getElementById(id);
  // Text is shown with what would act unseen made visible: a bidirectional formatting character
  // (which reorders the rest of its line on screen, so that a name displays reversed) or a
  // control character but tab and line feed becomes <U+202E>, as the text report shows it. The
  // data keep the bytes (a copied command names the real file).
  const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
  const shown = (text) => String(text).replace(HIDDEN,
    (c) => '<U+' + c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0') + '>');
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = shown(text);
    return e;
  }
  const setText = (id, text) => { $(id).textContent = shown(text); };

  // ---- numbers, written as the text report writes them --------------------------------------
  function thousands(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ','); }
  function count(n, one, many) { return thousands(n) + ' ' + (n === 1 ? one : many); }
  const pad3 = (n) => String(n).padStart(3, '0');
  // Device time: milliseconds with three decimals under a second, else seconds with three
  // (rounded half up).
  function dur(ns) {
    if (ns >= 1e9) {
      const ms = Math.round(ns / 1e6);
      return thousands(Math.floor(ms / 1000)) + '.' + pad3(ms % 1000) + ' s';
    }
    const us = Math.round(ns / 1000);
    return Math.floor(us / 1000) + '.' + pad3(us % 1000) + ' ms';
  }
  // part / whole in percent with one decimal (rounded half up); "-" without a whole.
  function share(part, whole) {
    if (!whole) return '-';
    const tenths = Math.round(part * 1000 / whole);
    return Math.floor(tenths / 10) + '.' + (tenths % 10) + '%';
  }
  const byText = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
  // A change in device time: signed, as dur writes the size ("+1.338 ms", "-0.724 ms").
  const signedDur = (ns) => (ns > 0 ? '+' : ns < 0 ? '-' : '') + dur(Math.abs(ns));
  // A change in percent of the base time, one decimal, its size rounded half up; "-" without a
  // base time.
  function changePct(change, base) {
    if (!base) return '-';
    const tenths = Math.floor((2000 * Math.abs(change) + base) / (2 * base));
    return (tenths ? (change < 0 ? '-' : '+') : '') + Math.floor(tenths / 10) + '.' + (tenths % 10) + '%';
  }
  // The change column's mark: "new" (no base time: mark 1), "gone" (no new time: 2), else the
  // change in percent.
  function changeMark(change, base, mark) {
    const text = mark === 1 ? 'new' : mark === 2 ? 'gone' : changePct(change, base);
    return el('span', 'num c-pct' + (mark ? ' mark-' + text : change > 0 ? ' grew' : change < 0 ? ' shrank' : ''), text);
  }

  // A name that may not fit: shortened on screen in the middle, its tail kept whole (the tail is
  // what tells kernels apart: the key, the directory's suffix). The text stays whole in the
  // document (a copy takes all of it) and in the tooltip. The cell never gets narrower than its
  // tail and a few characters of its head.
  function nameEl(name, cls, tail, whole) {
    const text = shown(name);
    const e = el('span', 'mid' + (cls ? ' ' + cls : ''));
    const chars = [...text], n = whole ? Math.min(tail, chars.length) : Math.min(tail || 24, Math.floor(chars.length / 2));
    const head = el('span', 'head', chars.slice(0, chars.length - n).join(''));
    head.style.maxWidth = 'calc(100% - ' + n + 'ch)';
    e.append(head, el('span', 'tail', chars.slice(chars.length - n).join('')));
    e.style.minWidth = Math.min(chars.length, n + 4) + 'ch';
    e.title = text;
    return e;
  }

  // A source line's label ("/dir/sub/file.py:LINE"): its directories give way first, the file's
  // name and the line stay whole at every width (the tail is all after the last '/').
  const lineTail = (label) => [...shown(label)].length - [...shown(label.slice(0, label.lastIndexOf('/') + 1))].length;
  const lineEl = (label, cls) => nameEl(label, cls, lineTail(label), true);
  // The least width of such a label in ch: its tail and a few characters of its head.
  const lineMinCh = (label) => Math.min([...shown(label)].length, lineTail(label) + 4);

  const ROW = 20;
  // A list of `count` rows of ROW pixels that holds only the rows in view. Arrow keys, Page Up and
  // Down, Home and End move a cursor; Enter activates its row as a click does.
  function VList(box, render, activate) {
    const space = el('div', 'vspace');
    box.replaceChildren(space);
    let count = 0, queued = false, cur = -1;
    function draw() {
      queued = false;
      space.style.height = (count * ROW) + 'px';
      const top = box.scrollTop, height = box.clientHeight || 400;
      const first = Math.max(0, Math.floor(top / ROW) - 10);
      const last = Math.min(count, Math.ceil((top + height) / ROW) + 10);
      const rows = [];
      for (let i = first; i < last; i++) {
        const r = render(i);
        r.style.top = (i * ROW) + 'px';
        r.dataset.i = i;
        if (i === cur) r.classList.add('cur');
        rows.push(r);
      }
      space.replaceChildren(...rows);
    }
    function show(i) {
      const top = i * ROW;
      if (top < box.scrollTop || top + ROW > box.scrollTop + box.clientHeight) box.scrollTop = Math.max(0, top - box.clientHeight / 3);
      draw();
    }
    box.addEventListener('scroll', () => { if (!queued) { queued = true; requestAnimationFrame(draw); } });
    box.addEventListener('keydown', (e) => {
      if (!count) return;
      const page = Math.max(1, Math.floor(box.clientHeight / ROW) - 1);
      const moves = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page, Home: -count, End: count };
      if (e.key in moves) {
        cur = Math.max(0, Math.min(count - 1, cur < 0 ? 0 : cur + moves[e.key]));
        show(cur);
      } else if (e.key === 'Enter' && cur >= 0) {
        activate(cur);
      } else {
        return;
      }
      e.preventDefault();
    });
    return {
      set(n) { count = n; if (cur >= n) cur = -1; draw(); },
      draw,
      show,
      // Back to the first row (a list never drawn is there already: no layout is forced).
      top() { if (count) box.scrollTop = 0; cur = -1; },
    };
  }

  // ---- the header -----------------------------------------------------------------------------
  const [tool, command, title] = D.head;
  const K = D.kernels, O = D.ops, S = D.sources, P = D.problems, R = D.rankings;
  const profile = command === 'profile';
  const T = D.profile || { ns: 0 };
  // profile --baseline: the base run's totals (T: the new run's). Its rankings' rows also hold
  // each row's base time and whether it is new or gone, its kernels their base time ("b").
  const C = D.compare;
  if (C) document.body.classList.add('compare');
  if (profile) document.body.classList.add('profile');
  if (D.ranks) document.body.classList.add('ranks');
  setText('title', title);
  setText('tool', tool);
  if (D.verdict) {
    const v = $('verdict');
    v.hidden = false;
    v.className = 'v-' + D.verdict[0];
    v.textContent = shown(D.verdict[1]);
  }
  if (C) {
    // Each run's figures as compared ([steps, ns, events, events in no step, their ns]).
    const h = $('headline'), [rb, rn] = C.runs, steps = C.basis === 'steps';
    const events = (r) => ' ' + (steps ? 'per step (' + count(r[2], 'kernel event', 'kernel events') + ' in ' + count(r[0], 'step', 'steps') + ')'
      : 'in ' + count(r[2], 'kernel event', 'kernel events'));
    h.hidden = false;
    h.append((steps ? 'Compared per step' : 'Compared totals of each run' + (C.note ? ' (' + C.note + ')' : '')) + ': base ', el('b', '', dur(rb[1])),
      events(rb) + ', new ', el('b', '', dur(rn[1])), events(rn) + ': ', el('b', 'change', signedDur(rn[1] - rb[1]) + ' (' + changePct(rn[1] - rb[1], rb[1]) + ')'),
      '. Paired with provenance: ' + share(C.paired_ns, C.ns) + ' of the base, ' + share(T.paired_ns, T.ns) + ' of the new.');
    if (steps && (rb[3] || rn[3])) {
      h.append(' Left out: the kernel events that start in no step, ' + thousands(rb[3]) + ' of the base (' + dur(rb[4]) + '), ' +
        thousands(rn[3]) + ' of the new (' + dur(rn[4]) + ').');
    }
  } else if (D.profile) {
    const h = $('headline');
    h.hidden = false;
    if (!T.events) {
      h.textContent = 'No device kernel event among the trace\'s ' + count(T.trace_events, 'event', 'events') +
        ': torch-spyre writes them when the profiler records ProfilerActivity.PrivateUse1.';
    } else {
      h.append(el('b', '', dur(T.ns)), ' of device time in ' + count(T.events, 'kernel event', 'kernel events') + '; ',
        el('b', '', share(T.paired_ns, T.ns)), ' of it paired with provenance (' + count(T.paired_events, 'event', 'events') + '), ',
        el('b', '', share(T.ns - T.paired_ns, T.ns)), ' unresolved (' + count(T.events - T.paired_events, 'event', 'events') + ').');
      if (T.unmeasured) h.append(' ' + count(T.unmeasured, 'kernel event', 'kernel events') + ' without a usable duration are not in the times.');
    }
  }
  for (const [label, value] of D.summary) {
    const f = el('span', 'fig');
    f.append(el('span', 'fig-v', value), el('span', 'fig-l', label));
    $('summary').append(f);
  }
  if (D.coverage) {
    $('coverage').append(el('span', 'fig-l', 'coverage of ' + D.coverage.files + ' files:'));
    for (const [name, n, cov] of D.coverage.members) {
      $('coverage').append(el('span', 'cov cov-' + cov, name + ' ' + (cov === 'some' ? n + '/' + D.coverage.files : cov)));
    }
  }
  const legend = $('legend');
  const parts = C ? [['b-time', 'new device time']] : profile ? [['b-time', 'device time']] : [['b-pop', 'populated'], ['b-nul', 'null'], ['b-abs', 'absent'], ['b-mal', 'malformed']];
  for (const [cls, name] of parts) legend.append(el('i', cls), document.createTextNode(name));

  // ---- what came from where ---------------------------------------------------------------------
  // Which kernels and ops came from each source line ("source:line"), and each kernel's lines.
  const lineKernels = new Map(), lineOps = new Map();
  const kernelLines = K.map(() => new Set());
  function mark(k, src, line, aten) {
    const key = src + ':' + line;
    if (!lineKernels.has(key)) { lineKernels.set(key, new Set()); lineOps.set(key, new Set()); }
    lineKernels.get(key).add(k);
    if (aten) lineOps.get(key).add(aten);
    kernelLines[k].add(key);
  }
  function walk(h, fn) { fn(h); for (const c of h.ff) walk(c, fn); }
  for (const op of O) {
    if (op.h) walk(op.h, (h) => { if (h.src) mark(op.k, h.src[0], h.src[1], h.aten); });
  }
  K.forEach((k, i) => { for (const t of (k.traces || [])) if (t[1]) mark(i, t[1][0], t[1][1], null); });
  // Profile: a line's row of the ranking (its time and its kernels, as the text report has them).
  const byLine = R.find((r) => r.id === 'line');
  const lineRank = new Map();
  if (byLine) for (const r of byLine.rows) if (r[4] >= 0) lineRank.set(r[4] + ':' + r[5], r);

  // ---- kernels ----------------------------------------------------------------------------------
  // Other commands group the directories by kernel name (a cache keeps every recompile); profile
  // lists its kernels one row each.
  const groups = [], groupOf = new Map(), sameName = new Map();
  let maxNs = 0;
  K.forEach((k, i) => {
    k.low = k.dir.toLowerCase();
    k.rank = k.rank || [0, 0, 0];
    maxNs = Math.max(maxNs, k.ns || 0);
    if (profile) {
      k.low = (k.name + '\n' + k.dir + '\n' + (k.key || '')).toLowerCase();
      sameName.set(k.name, (sameName.get(k.name) || 0) + 1);
      return;
    }
    let g = groupOf.get(k.name);
    if (g === undefined) {
      g = groups.length;
      groupOf.set(k.name, g);
      groups.push({ name: k.name, low: k.name.toLowerCase(), ks: [], bar: [0, 0, 0, 0], rank: [0, 0, 0], files: 0, find: 0 });
    }
    const G = groups[g];
    G.ks.push(i);
    k.bar.forEach((n, j) => { G.bar[j] += n; });
    k.rank.forEach((n, j) => { G.rank[j] += n; });
    G.files += k.files;
    G.find += k.find;
  });
  const worse = (a, b) => { for (let j = 0; j < 3; j++) if (a.rank[j] !== b.rank[j]) return b.rank[j] - a.rank[j]; return 0; };
  // A kernel's change (new - base; a run without it counts 0) and its base time.
  const baseNs = (k) => (k.b ? k.b[0] : 0);
  const kChange = (k) => (k.ns || 0) - baseNs(k);
  const byChange = (a, b) => (Math.abs(kChange(K[b])) - Math.abs(kChange(K[a]))) || (kChange(K[b]) - kChange(K[a])) ||
    ((K[b].ns || 0) - (K[a].ns || 0)) || a - b;
  const SORTS = C
    ? { change: ['by change', byChange, null],
        time: ['by new device time', (a, b) => ((K[b].ns || 0) - (K[a].ns || 0)) || byChange(a, b), null],
        base: ['by base device time', (a, b) => (baseNs(K[b]) - baseNs(K[a])) || byChange(a, b), null],
        name: ['by name', (a, b) => byText(K[a].name, K[b].name) || a - b, null] }
    : profile
    ? { time: ['by device time', (a, b) => (K[b].ns - K[a].ns) || (K[b].ev - K[a].ev) || a - b, null],
        events: ['by events', (a, b) => (K[b].ev - K[a].ev) || (K[b].ns - K[a].ns) || a - b, null],
        name: ['by name', (a, b) => byText(K[a].name, K[b].name) || a - b, null] }
    : { worst: ['worst first', (a, b) => worse(K[a], K[b]) || byText(K[a].dir, K[b].dir), (a, b) => worse(groups[a], groups[b]) || byText(groups[a].name, groups[b].name)],
        name: ['by name', (a, b) => byText(K[a].dir, K[b].dir), (a, b) => byText(groups[a].name, groups[b].name)],
        found: ['as found', (a, b) => a - b, (a, b) => a - b] };
  const sort = $('sort');
  for (const [value, [label]] of Object.entries(SORTS)) {
    const o = el('option', '', label);
    o.value = value;
    sort.append(o);
  }
  let order = [], groupOrder = [];
  function applySort() {
    const [, kernels, grouped] = SORTS[sort.value];
    order = K.map((_, i) => i).sort(kernels);
    if (!profile) {
      const rank = new Map(order.map((k, n) => [k, n]));
      for (const G of groups) G.ks.sort((a, b) => rank.get(a) - rank.get(b));
      groupOrder = groups.map((_, g) => g).sort(grouped);
    }
  }

  function timeBar(ns, small) {
    const b = el('span', small ? 'bar small' : 'bar'), t = el('i', 'b-time');
    t.style.width = (maxNs ? 100 * (ns || 0) / maxNs : 0) + '%';
    b.append(t);
    b.title = dur(ns || 0);
    return b;
  }
  function handleBar(counts) {
    const b = el('span', 'bar');
    const total = counts.reduce((a, n) => a + n, 0);
    ['b-pop', 'b-nul', 'b-abs', 'b-mal'].forEach((cls, j) => {
      const i = el('i', cls);
      i.style.width = (total ? 100 * counts[j] / total : 0) + '%';
      b.append(i);
    });
    b.title = 'populated ' + counts[0] + ', null ' + counts[1] + ', absent ' + counts[2] + ', malformed ' + counts[3];
    return b;
  }
  // What a row says of its files, for readers without colour too.
  function files(x, e) {
    if (x.rank[0]) e.append(el('span', 'errors', count(x.rank[0], 'error', 'errors')));
    if (x.find) e.append(el('span', 'finding', count(x.find, 'finding', 'findings')), el('span', 'dim', 'of ' + count(x.files, 'file', 'files')));
    else if (x.rank[1]) e.append(el('span', 'dim', thousands(x.rank[1]) + ' of ' + count(x.files, 'file', 'files') + ' lacking'));
    else e.append(el('span', 'dim', count(x.files, 'file', 'files')));
  }

  let selected = -1, focus = null, hlLines = new Set(), rows = [];
  const collapsed = new Set();
  const filter = $('filter');
  const kernelList = VList($('kernel-list'), (i) => {
    const r = rows[i];
    if (r.k === undefined) {
      const G = groups[r.g];
      const e = el('div', 'row group-row');
      e.dataset.group = r.g;
      e.append(el('span', '', collapsed.has(r.g) ? '\u25b8' : '\u25be'), nameEl(G.name, 'grow name'),
        el('span', 'dim', count(r.n, 'directory', 'directories')));
      files(G, e);
      e.append(handleBar(G.bar));
      e.addEventListener('click', () => toggle(r.g));
      return e;
    }
    const k = K[r.k];
    const e = el('div', 'row kernel-row' + (profile ? '' : ' in-group') + (focus && focus.ks.has(r.k) ? ' hl' : '') + (selected === r.k ? ' sel' : ''));
    e.dataset.kernel = r.k;
    if (k.key) e.dataset.key = k.key;
    if (profile) {
      e.append(nameEl(k.name, 'grow name'));
      // Kernels of one name: their directories tell them apart.
      if (sameName.get(k.name) > 1) e.append(nameEl(k.dir.slice(k.dir.lastIndexOf('/') + 1), 'shrink dir dim', 12));
      if (C) e.append(el('span', 'num c-time', k.ns === undefined ? '-' : dur(k.ns)), el('span', 'num c-time c-change', signedDur(kChange(k))),
        changeMark(kChange(k), k.b ? k.b[0] : 0, k.b ? (k.ns === undefined ? 2 : 0) : 1), timeBar(k.ns, true));
      else e.append(el('span', 'num c-time', dur(k.ns || 0)), el('span', 'num c-share', share(k.ns || 0, T.ns)),
        el('span', 'num c-ev dim', thousands(k.ev || 0)), timeBar(k.ns, true));
    } else {
      e.append(nameEl(k.dir, 'grow dir'));
      files(k, e);
      e.append(handleBar(k.bar));
    }
    e.addEventListener('click', () => selectKernel(r.k));
    return e;
  }, (i) => { if (rows[i].k === undefined) toggle(rows[i].g); else selectKernel(rows[i].k); });
  function toggle(g) { if (collapsed.has(g)) collapsed.delete(g); else collapsed.add(g); buildRows(false); }

  // The rows the filter, the focus (a line's or a ranking row's kernels) and the order give. A new
  // filter or order starts at the top.
  function buildRows(fromTop) {
    const q = filter.value.trim().toLowerCase();
    const keep = (i) => !focus || focus.ks.has(i);
    rows = [];
    let shown = 0, shownGroups = 0;
    if (profile) {
      for (const i of order) if (keep(i) && (!q || K[i].low.includes(q))) rows.push({ k: i });
      shown = rows.length;
    } else {
      for (const g of groupOrder) {
        const G = groups[g], all = !q || G.low.includes(q);
        const ks = G.ks.filter((i) => keep(i) && (all || K[i].low.includes(q)));
        if (!ks.length) continue;
        rows.push({ g, n: ks.length });
        shown += ks.length;
        shownGroups++;
        if (!collapsed.has(g)) for (const k of ks) rows.push({ g, k });
      }
    }
    let text;
    if (profile) {
      text = focus ? count(shown, 'kernel', 'kernels') + ' from ' + focus.label : thousands(shown) + ' of ' + count(K.length, 'kernel', 'kernels');
    } else if (focus) {
      text = count(shown, 'directory', 'directories') + ' (' + count(shownGroups, 'kernel', 'kernels') + ') from ' + focus.label;
    } else {
      text = thousands(shown) + ' of ' + count(K.length, 'directory', 'directories') + ' (' + thousands(shownGroups) + ' of ' + count(groups.length, 'kernel', 'kernels') + ')';
    }
    setText('kernel-count', text);
    if (fromTop) kernelList.top();
    kernelList.set(rows.length);
  }
  function setFocus(label, ks) {
    focus = ks ? { label, ks } : null;
    if (focus && !profile) for (const k of ks) collapsed.delete(groupOf.get(K[k].name));
    $('focus-clear').hidden = !focus;
    buildRows(true);
  }
  filter.addEventListener('input', () => { buildRows(true); buildProblems(); });
  filter.addEventListener('keydown', (e) => { if (e.key === 'Escape' && filter.value) { filter.value = ''; buildRows(true); buildProblems(); } });
  sort.addEventListener('change', () => { applySort(); buildRows(true); });
  $('focus-clear').addEventListener('click', () => { setFocus(null); hlLines = new Set(); lineList.draw(); $('line-status').textContent = 'Click a line to list its kernels.'; });

  // ---- profile: where the device time goes --------------------------------------------------
  let rankTab = 0, rankSel = -1;
  // A step clicked: the rankings show its time only (`step`: its bundles' [events, ns] by
  // bundle; `stepNs`: its device time, what the shares are of).
  let step = null, stepSel = -1, stepNs = 0;
  const inStep = (r, j) => r[3].reduce((n, k) => n + (step.get(k) || [0, 0])[j], 0);
  const rowNs = (r) => (step ? inStep(r, 1) : r[1]), rowEv = (r) => (step ? inStep(r, 0) : r[2]);
  const allNs = () => (step ? stepNs : T.ns);
  // Compared: each ranking's largest change, the length of its change bars.
  const maxChange = R.map((rk) => (rk.cmp ? rk.rows.reduce((m, r) => Math.max(m, Math.abs(r[1] - r[7])), 0) : 0));
  // A compared row's cells: base, new, the change and its mark, and a bar (growth or shrink).
  function changeCells(r) {
    const change = r[1] - r[7], bar = el('span', 'bar small'), t = el('i', change < 0 ? 'b-shrink' : 'b-grow');
    t.style.width = (maxChange[rankTab] ? 100 * Math.abs(change) / maxChange[rankTab] : 0) + '%';
    bar.append(t);
    // Each time's exact nanoseconds in its tooltip.
    const cell = (cls, text, ns) => { const c = el('span', 'num c-time ' + cls, text); c.title = ns + ' ns'; return c; };
    return [cell('c-base', r[9] === 1 ? '-' : dur(r[7]), r[7]), cell('c-new', r[9] === 2 ? '-' : dur(r[1]), r[1]),
      cell('c-change', signedDur(change), (change > 0 ? '+' : '') + change), changeMark(change, r[7], r[9]), bar];
  }
  // Compared: the rows in the comparison's order (the size of the change, growth first at equal
  // size), or by growth: the largest growth first, the largest shrink last.
  const rankOrder = $('rank-order');
  let rankBy = null;
  const rowAt = (i) => R[rankTab].rows[rankBy ? rankBy[i] : i];
  function orderRanking() {
    const rows = R[rankTab].rows;
    if (step && !R[rankTab].cmp) { // the rows with time in the step, the most first
      const ns = rows.map(rowNs), ev = rows.map(rowEv);
      rankBy = rows.map((_, i) => i).filter((i) => ns[i] > 0).sort((a, b) => (ns[b] - ns[a]) || (ev[b] - ev[a]) || byText(rows[a][0], rows[b][0]));
      return;
    }
    rankBy = rankOrder.value === 'growth' && R[rankTab].cmp
      ? rows.map((_, i) => i).sort((a, b) => ((rows[b][1] - rows[b][7]) - (rows[a][1] - rows[a][7])) || a - b) : null;
  }
  const rankList = VList($('rank-list'), (i) => {
    const r = rowAt(i);
    const e = el('div', 'row rank-row' + (rankSel === i ? ' sel' : ''));
    const label = r[4] >= 0 ? lineEl(r[0], 'grow label') : nameEl(r[0], 'grow label');
    if (R[rankTab].cmp) {
      e.append(...changeCells(r), label);
      if (r[6]) e.append(el('span', 'shrink dim', r[6].trim()));
      e.addEventListener('click', () => activateRank(i));
      return e;
    }
    const bar = el('span', 'bar small'), t = el('i', 'b-time'), ns = rowNs(r), whole = allNs();
    t.style.width = (whole ? Math.min(100, 100 * ns / whole) : 0) + '%';
    bar.append(t);
    e.append(el('span', 'num c-time', dur(ns)), el('span', 'num c-share', share(ns, whole)));
    if (rankCols.bar) e.append(bar);
    if (rankCols.events) e.append(el('span', 'num c-ev dim', thousands(rowEv(r))));
    // Several ranks: each one's time, the longest marked.
    if (rankCols.ranks) {
      const ns = R[rankTab].rank_ns[rankBy ? rankBy[i] : i], most = Math.max(...ns);
      for (const v of ns) e.append(el('span', 'num c-rank' + (v === most && Math.min(...ns) < most ? ' grew' : ''), dur(v)));
    }
    // Against the ideal: its ideal, utilization (over the events that have one) and lost time.
    if (R[rankTab].ideal) {
      const known = !step && r[9] !== null; // the whole trace's: none for a step
      e.append(el('span', 'num c-time', known ? dur(r[7]) : '-'), el('span', 'num c-share', known ? share(r[7], r[9]) : '-'),
        el('span', 'num c-time', known ? dur(r[8]) : '-'));
    }
    e.append(label);
    if (r[6]) e.append(el('span', 'shrink dim', r[6].trim()));
    e.addEventListener('click', () => activateRank(i));
    return e;
  }, (i) => activateRank(i));
  // Which of a ranking's columns fit beside its labels' least width (a source line's file name
  // and line whole): the bar gives way first, then the events, then the per-rank times.
  let rankCols = { bar: true, events: true, ranks: false };
  let chPx = 0;
  function fitColumns(t) {
    if (!chPx) {
      const probe = el('span', 'mid', '0000000000');
      probe.style.position = 'absolute';
      probe.style.visibility = 'hidden';
      document.body.append(probe);
      chPx = probe.getBoundingClientRect().width / 10 || 7.5;
      probe.remove();
    }
    const rk = R[t], GAP = 8;
    let least = 0;
    for (const r of rk.rows) least = Math.max(least, r[4] >= 0 ? lineMinCh(r[0]) : Math.min([...shown(r[0])].length, 28));
    const box = $('rank-list');
    let room = box.clientWidth - 8 - Math.min(least, 60) * chPx - (3 * chPx + GAP) - GAP;
    room -= rk.cmp ? 5 * (76 + GAP) : (88 + 52 + 2 * GAP) + (rk.ideal ? 88 + 52 + 88 + 3 * GAP : 0);
    const perRank = rk.rank_ns ? D.ranks.length * (80 + GAP) : 0;
    rankCols = { bar: false, events: false, ranks: false };
    if (rk.cmp) return;
    for (const [name, px] of [['ranks', perRank], ['events', 64 + GAP], ['bar', 60 + GAP]]) {
      if (!px || room < px) continue;
      rankCols[name] = true;
      room -= px;
    }
  }
  function showRanking(t, keep) {
    rankTab = t;
    if (!keep) rankSel = -1;
    [...$('rank-tabs').children].forEach((b, i) => b.setAttribute('aria-selected', String(i === t)));
    $('rank-note').textContent = (R[t].note ? '(' + R[t].note + ')' : 'each event counts once') + (step ? ' \u00b7 ' + ST[stepSel][0] + ' only' : '');
    if (R[t].cmp) {
      $('rank-head').replaceChildren(el('span', 'num c-time', 'base'), el('span', 'num c-time', 'new'), el('span', 'num c-time', 'change'),
        el('span', 'num c-pct', '%'), el('span', 'bar small'));
    } else {
      fitColumns(t);
      $('rank-head').replaceChildren(el('span', 'num c-time', 'time'), el('span', 'num c-share', 'share'));
      if (rankCols.bar) $('rank-head').append(el('span', 'bar small'));
      if (rankCols.events) $('rank-head').append(el('span', 'num c-ev', 'events'));
      if (rankCols.ranks) for (const n of D.ranks) $('rank-head').append(el('span', 'num c-rank', 'rank ' + n));
      if (R[t].rank_ns && !rankCols.ranks) {
        $('rank-note').textContent += ' \u00b7 each rank\'s column shows in a wider window';
      }
    }
    if (R[t].ideal) $('rank-head').append(el('span', 'num c-time', 'ideal'), el('span', 'num c-share', 'util'), el('span', 'num c-time', 'lost'));
    $('rank-head').append(el('span', 'grow', R[t].what));
    if (!keep) rankList.top();
    orderRanking();
    rankList.set(rankBy ? rankBy.length : R[t].rows.length);
  }
  // A window of another width: the columns that fit again.
  if (profile && R.length) {
    let width = 0;
    new ResizeObserver(() => {
      const w = $('rank-list').clientWidth;
      if (w && w !== width) { width = w; showRanking(rankTab, true); }
    }).observe($('rank-list'));
  }
  // A ranking's row: its kernels listed, its line shown in the model, a kernel of its own shown.
  function activateRank(i) {
    const r = rowAt(i);
    rankSel = i;
    rankList.draw();
    if (r[4] >= 0) {
      showSource(r[4], r[5]);
      hlLines = new Set([r[4] + ':' + r[5]]);
      lineList.draw();
    }
    setFocus(r[0], new Set(r[3]));
    setText('line-status', r[0] + ' \u2192 ' + count(r[3].length, 'kernel', 'kernels') + ', ' +
      (R[rankTab].cmp ? signedDur(r[1] - r[7]) + ' (' + changeMark(r[1] - r[7], r[7], r[9]).textContent + ')' : dur(rowNs(r))));
    if (r[3].length === 1) selectKernel(r[3][0], true);
  }

  // ---- profile: the steps (each ProfilerStep span, or the whole trace), the slowest first ------
  // [name, start, wall, kernel busy, transfer, host wait, launch latency, unattributed, gaps,
  // kernels, transfers, launched, median launch delay, [[bundle, events, ns, idle]]]. Every bar
  // is drawn to one scale: the longest wall or sum of the parts (the parts add up over devices).
  const ST = (D.steps || []).slice().sort((a, b) => (b[2] - a[2]) || (a[1] - b[1]));
  const SEGS = [['busy', 3, 'kernel busy'], ['transfer', 4, 'transfer'], ['wait', 5, 'host wait'],
    ['latency', 6, 'launch latency'], ['unattributed', 7, 'unattributed idle']];
  if (profile && ST.length) {
    $('steps-pane').hidden = false;
    setText('steps-note', '(' + count(ST.length, 'step', 'steps') + ', the slowest first; kernel busy and transfer time summed over the devices)');
    for (const [cls, , text] of SEGS) $('step-legend').append(el('i', 's-' + cls), document.createTextNode(text));
    const scale = Math.max(...ST.map((s) => Math.max(s[2], SEGS.reduce((n, [, j]) => n + s[j], 0))));
    ST.forEach((s, i) => {
      const row = el('div', 'step-row'), bar = el('span', 'step-bar');
      row.dataset.step = i;
      row.dataset.wall = s[2];
      for (const [cls, j] of SEGS) {
        const seg = el('i', 's-' + cls);
        seg.dataset.seg = cls;
        seg.dataset.ns = s[j];
        seg.style.width = (scale ? 100 * s[j] / scale : 0) + '%';
        bar.append(seg);
      }
      row.append(el('span', 'step-name', s[0]), el('span', 'num step-wall', dur(s[2])), bar);
      row.title = shown(s[0] + ': wall ' + dur(s[2]) + '\nkernel busy ' + dur(s[3]) + ' (' + count(s[9], 'kernel', 'kernels') + ')' +
        '\ntransfer ' + dur(s[4]) + ' (' + count(s[10], 'transfer', 'transfers') + ')' +
        '\nidle ' + dur(s[5] + s[6] + s[7]) + ' in ' + count(s[8], 'gap', 'gaps') + ': host wait ' + dur(s[5]) +
        ', launch latency ' + dur(s[6]) + ', unattributed ' + dur(s[7]) +
        '\n' + count(s[11], 'launch', 'launches') + (s[11] ? ', median launch delay ' + dur(s[12]) : ''));
      row.addEventListener('click', () => selectStep(i));
      $('step-bars').append(row);
    });
  }
  // A step clicked: the rankings show its device time per row; "all steps" shows the whole trace.
  function selectStep(i) {
    stepSel = i;
    step = i < 0 ? null : new Map(ST[i][13].map(([k, ev, ns]) => [k, [ev, ns]]));
    stepNs = i < 0 ? 0 : ST[i][13].reduce((n, b) => n + b[2], 0);
    [...$('step-bars').children].forEach((e, j) => e.classList.toggle('sel', j === i));
    $('step-clear').hidden = i < 0;
    setText('step-status', i < 0 ? 'Click a step to restrict the rankings to it.' : 'The rankings show ' + ST[i][0] + ' only: ' + dur(stepNs) +
      ' of device time in ' + count(ST[i][13].reduce((n, b) => n + b[1], 0), 'kernel event', 'kernel events') + '.');
    rankSel = -1;
    if (R.length) showRanking(rankTab);
  }
  $('step-clear').addEventListener('click', () => selectStep(-1));
  if (C) {
    rankOrder.hidden = false;
    for (const [v, text] of [['change', 'by the size of the change'], ['growth', 'by growth (the largest growth first)']]) {
      const o = el('option', '', text);
      o.value = v;
      rankOrder.append(o);
    }
    rankOrder.addEventListener('change', () => { rankSel = -1; orderRanking(); rankList.top(); rankList.draw(); });
  }
  if (profile) {
    $('rank-pane').hidden = false;
    R.forEach((ranking, t) => {
      const b = el('button', 'tab', ranking.title + ' (' + thousands(ranking.rows.length) + ')');
      b.type = 'button';
      b.setAttribute('role', 'tab');
      b.dataset.tab = ranking.id;
      b.addEventListener('click', () => showRanking(t));
      $('rank-tabs').append(b);
    });
  }

  // ---- the model: one source file at a time, line by line --------------------------------------
  const select = $('source-select');
  // The heat: device time by line, or (profile with ideals) the time lost against the ideal, or
  // (compared) the change by line, new - base (a growth or a shrink), or the base run's time.
  let heat = [], fileMax = [], heatMode = C ? 'change' : 'time';
  const heatOf = (mode) => {
    heatMode = mode;
    heat = S.map((s) => {
      if (mode !== 'change') return new Map(mode === 'time' ? s.heat : s[mode]);
      const m = new Map(s.heat);
      for (const [n, ns] of s.base || []) m.set(n, (m.get(n) || 0) - ns); // none: no line ran in the base run
      return m;
    });
    fileMax = heat.map((m) => { let x = 0; for (const v of m.values()) x = Math.max(x, Math.abs(v)); return x; });
  };
  heatOf(heatMode);
  const heatSelect = $('heat-select');
  // Profile: the time lost against the ideal when a line has some, the idle time with the steps.
  const lost = S.some((s) => s.lost && s.lost.length);
  const heats = C ? [['change', 'heat: change in device time (red: growth, blue: shrink)'], ['time', 'heat: new device time'], ['base', 'heat: base device time']]
    : [['time', 'heat: device time'], ...(lost ? [['lost', 'heat: time lost against the ideal']] : []),
      ...(ST.length ? [['idle', 'heat: idle time before the line\'s kernels']] : [])];
  if (C || (profile && heats.length > 1)) {
    heatSelect.hidden = false;
    for (const [v, text] of heats) {
      const o = el('option', '', text);
      o.value = v;
      heatSelect.append(o);
    }
    heatSelect.addEventListener('change', () => { heatOf(heatSelect.value); lineList.draw(); });
  }
  const sourceOrder = S.map((_, i) => i);
  // The hottest file first (profile), else the one the most lines with kernels are in.
  const withKernels = S.map((s, i) => s.lines.filter(([line]) => lineKernels.has(i + ':' + line) || lineRank.has(i + ':' + line)).length);
  sourceOrder.sort(profile ? (a, b) => (fileMax[b] - fileMax[a]) || a - b : (a, b) => (withKernels[b] - withKernels[a]) || a - b);
  for (const i of sourceOrder) {
    const n = withKernels[i];
    const o = el('option', '', S[i].path + '  (' + count(n, 'line', 'lines') + ' with kernels' + (fileMax[i] ? (C ? ', the largest change ' : ', the hottest ') + dur(fileMax[i]) : '') + ')');
    o.value = String(i);
    select.append(o);
  }
  if (!S.length) select.append(el('option', '', 'no source file is named by a handle'));
  // What was not read of the source files, and why (once for the page, as the text reports say it).
  if (D.srcnote && D.srcnote.length) {
    $('source-note').textContent = D.srcnote.join('\n');
    $('source-note').hidden = false;
  }
  let current = S.length ? sourceOrder[0] : -1;
  const lineList = VList($('line-list'), (i) => {
    const [n, text] = S[current].lines[i];
    const key = current + ':' + n;
    const ks = lineKernels.get(key), ranked = lineRank.get(key);
    // A line after lines left out (the page holds a window around each line named): a gap.
    const gap = i > 0 && S[current].lines[i - 1][0] !== n - 1;
    const e = el('div', 'row line-row' + (ks || ranked ? ' has' : '') + (hlLines.has(key) ? ' hl' : '') + (gap ? ' gap' : ''));
    e.dataset.line = n;
    e.append(el('span', 'ln', n));
    const ns = heat[current].get(n) || 0;
    if (profile) {
      // Against the file's hottest line, so that every file shows its own hot spots.
      const h = el('span', 'heat');
      h.style.background = 'rgba(var(' + (ns < 0 ? '--shrink' : '--heat') + '), ' +
        (ns && fileMax[current] ? Math.max(0.12, Math.sqrt(Math.abs(ns) / fileMax[current])).toFixed(3) : 0) + ')';
      h.title = heatMode === 'change' ? signedDur(ns) : dur(ns);
      h.dataset.ns = ns;
      e.append(h);
    }
    e.append(el('span', 'grow src' + (text === null ? ' dim' : ''), text === null ? '(text not readable here)' : text));
    if (ks || ranked) {
      const n_k = ranked ? ranked[3].length : ks.size;
      const ops = [...(lineOps.get(key) || [])];
      const word = { lost: 'lost ', idle: 'idle ' }[heatMode] || '';
      let ann = (profile && ns ? word + dur(ns) + ' (' + share(ns, T.ns) + ') \u00b7 ' : '') + count(n_k, 'kernel', 'kernels');
      if (C) {
        ann = (ranked ? signedDur(ranked[1] - ranked[7]) + ' (' + changeMark(ranked[1] - ranked[7], ranked[7], ranked[9]).textContent + ') \u00b7 ' +
          (ranked[9] === 2 ? 'gone' : dur(ranked[1]) + ' new') + ' \u00b7 ' : '') + count(n_k, 'kernel', 'kernels');
      }
      if (ops.length) ann += ' \u00b7 ' + ops.slice(0, 3).join(', ') + (ops.length > 3 ? ', \u2026' : '');
      e.append(el('span', 'ann', ann));
      e.addEventListener('click', () => selectLine(current, n));
    }
    return e;
  }, (i) => { const n = S[current].lines[i][0]; if (lineKernels.has(current + ':' + n) || lineRank.has(current + ':' + n)) selectLine(current, n); });
  function showSource(src, line) {
    if (src !== current) { current = src; lineList.top(); }
    select.value = String(src);
    lineList.set(S[current].lines.length);
    if (line !== undefined) {
      const i = S[current].lines.findIndex((l) => l[0] === line);
      if (i >= 0) lineList.show(i);
    }
  }
  select.addEventListener('change', () => { showSource(Number(select.value)); });

  // A line's kernels listed (and only them), from the top.
  function selectLine(src, line) {
    const key = src + ':' + line, ranked = lineRank.get(key);
    const ks = new Set(ranked ? ranked[3] : (lineKernels.get(key) || []));
    hlLines = new Set([key]);
    const label = ranked ? ranked[0] : S[src].path + ':' + line;
    setFocus(label, ks);
    lineList.draw();
    setText('line-status', label + ' \u2192 ' + (profile ? count(ks.size, 'kernel', 'kernels') : count(ks.size, 'directory', 'directories')));
  }
  function selectKernel(k, keepModel) {
    selected = k;
    hlLines = kernelLines[k];
    kernelList.draw();
    showDetail(k);
    const pane = $('detail-pane').getBoundingClientRect();
    if (pane.top > window.innerHeight - 120 || pane.bottom < 0) $('detail-pane').scrollIntoView({ block: 'start' });
    if (keepModel) { lineList.draw(); return; }
    const first = [...hlLines][0];
    if (first !== undefined) {
      const [src, line] = first.split(':').map(Number);
      showSource(src, line);
      setText('line-status', K[k].dir + ' \u2192 ' + count(hlLines.size, 'source line', 'source lines'));
    } else {
      lineList.draw();
      setText('line-status', K[k].dir + ' names no source line');
    }
  }

  // ---- one kernel: its ops and their handles, FX nodes, stack traces and stages --------------
  function kv(box, label, value) {
    if (value === null || value === undefined || value === '') return;
    box.append(el('span', '', label), value instanceof Node ? value : el('span', '', value));
  }
  function sourceLink(src, line, col) {
    const a = el('span', 'link', S[src].path + ':' + line + (col ? ':' + col : ''));
    a.addEventListener('click', () => showSource(src, line));
    return a;
  }
  function handleBlock(h) {
    const box = el('div', 'handle');
    const g = el('div', 'kv');
    kv(g, 'id', h.id);
    kv(g, 'source', h.src ? sourceLink(h.src[0], h.src[1], h.src[2]) : h.gen ? 'compiler-generated (no model source by design)' : '(none)');
    kv(g, 'aten op', h.aten);
    kv(g, 'ir_chain', h.ir.join(' \u2192 '));
    if (h.th) kv(g, 'history', h.th.map((s) => s[0] + ' ' + s[1] + (s[2] ? ' (' + s[2] + ')' : '')).join('; '));
    if ('fc' in h) kv(g, 'fusion context', h.fc === null ? '(null)' : h.fc);
    if (h.ff.length) kv(g, 'fused_from', count(h.ff.length, 'constituent', 'constituents'));
    box.append(g);
    for (const c of h.ff) box.append(handleBlock(c));
    return box;
  }
  // A word as a POSIX shell reads it back: as it is when plain, else single-quoted.
  const shellWord = (s) => (/^[A-Za-z0-9_.\/:@%+=,-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\\''") + "'");
  function copyButton(text) {
    const b = el('button', '', 'copy');
    b.type = 'button';
    b.title = 'Copy to the clipboard';
    b.addEventListener('click', () => {
      const done = () => { b.textContent = 'copied'; setTimeout(() => { b.textContent = 'copy'; }, 1500); };
      const fallback = () => {
        const t = el('textarea');
        t.value = text;
        document.body.append(t);
        t.select();
        try { if (document.execCommand('copy')) done(); } finally { t.remove(); }
      };
      if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, fallback); else fallback();
    });
    return b;
  }
  function showDetail(k) {
    const x = K[k], box = $('kernel-detail');
    box.className = '';
    box.replaceChildren(el('h3', '', x.name));
    const target = x.x ? x.dir : x.next;
    if (target) {
      const cmd = 'sdscprov explain ' + shellWord(target), line = el('div', 'next');
      line.append(el('span', 'dim', 'next:'), el('code', '', cmd), copyButton(cmd));
      box.append(line);
    }
    const g = el('div', 'kv');
    kv(g, 'key', x.key);
    kv(g, profile ? 'directories' : 'directory', x.dir);
    kv(g, 'status', x.note);
    if (!profile) kv(g, 'handles', 'populated ' + x.bar[0] + ', null ' + x.bar[1] + ', absent ' + x.bar[2] + ', malformed ' + x.bar[3]);
    if (C) {
      kv(g, 'new device time', x.ns === undefined ? 'gone (not in the new run)' : dur(x.ns) + ' in ' + count(x.ev, 'event', 'events') + ' (' + share(x.ns, C.runs[1][1]) + ' of the new run)');
      kv(g, 'base device time', x.b ? dur(x.b[0]) + ' in ' + count(x.b[1], 'event', 'events') + ' (' + share(x.b[0], C.runs[0][1]) + ' of the base run)' : 'new (not in the base run)');
      kv(g, 'change', signedDur(kChange(x)) + ' (' + changeMark(kChange(x), baseNs(x), x.b ? (x.ns === undefined ? 2 : 0) : 1).textContent + ')');
    } else if (x.ns !== undefined) kv(g, 'device time', dur(x.ns) + ' in ' + count(x.ev, 'event', 'events') + ' (' + share(x.ns, T.ns) + ' of the device time)');
    if (kernelLines[k].size) {
      const links = el('span', 'links');
      const lines = [...kernelLines[k]].map((key) => key.split(':').map(Number)).sort((a, b) => byText(S[a[0]].path, S[b[0]].path) || a[1] - b[1]);
      for (const [src, line] of lines.slice(0, 50)) links.append(sourceLink(src, line));
      if (lines.length > 50) links.append(el('span', 'dim', (lines.length - 50) + ' more'));
      kv(g, 'source lines', links);
    }
    if (x.pre) { kv(g, 'pre-grad nodes', x.pre.join(', ') || '(none)'); kv(g, 'post-grad nodes', x.post.join(', ') || '(none)'); }
    box.append(g);
    if (x.st) {
      const t = el('table', 'stages'), head = el('tr'), body = el('tr');
      ['DMI', 'PREP', 'CMPT', 'DMO'].forEach((s, i) => { head.append(el('td', 'dim', s)); body.append(el('td', '', thousands(x.st[i]))); });
      t.append(head, body);
      box.append(el('div', 'dim', 'stages (device counter ticks)'), t);
    }
    for (const t of (x.traces || [])) box.append(el('pre', '', t[0]));
    const [first, n] = x.ops, shown = Math.min(n, 500);
    for (let i = first; i < first + shown; i++) {
      const op = O[i], d = el('div', 'op');
      d.append(el('div', 'op-head', op.f + (op.key ? '  ' + op.key : '') + '  [' + op.st + ']'));
      for (const note of (op.notes || [])) d.append(el('div', 'dim', note));
      if (op.h) d.append(handleBlock(op.h));
      box.append(d);
    }
    if (n > shown) box.append(el('div', 'dim', (n - shown) + ' more ops not shown'));
  }

  // ---- problems, as path:line:col lines, errors first; the filter reaches them too -----------
  const SEVERITY = { error: 0, finding: 1, warning: 2, note: 3 };
  const problemOrder = P.map((_, i) => i).sort((a, b) => ((SEVERITY[P[a][3]] ?? 4) - (SEVERITY[P[b][3]] ?? 4)) || a - b);
  let problemRows = problemOrder, problemText = null;
  const problemList = VList($('problem-list'), (i) => {
    const [path, line, col, sev, code, msg] = P[problemRows[i]];
    const e = el('div', 'row problem-row');
    e.append(nameEl(path + (line ? ':' + line + (col ? ':' + col : '') : ''), 'shrink where', 16), el('span', '', ': '),
      el('span', 'sev-' + sev, sev), el('span', 'grow', msg + ' [' + code + ']'));
    e.title = shown(msg);
    return e;
  }, () => {});
  function buildProblems() {
    const q = filter.value.trim().toLowerCase();
    if (q && !problemText) problemText = P.map((p) => (p[0] + '\n' + p[4] + '\n' + p[5]).toLowerCase());
    problemRows = q ? problemOrder.filter((i) => problemText[i].includes(q)) : problemOrder;
    $('problem-count').textContent = '(' + (q ? thousands(problemRows.length) + ' of ' : '') + thousands(P.length) + ')';
    problemList.top();
    problemList.set(problemRows.length);
  }

  // ---- the first view: the worst kernel, and (profile) the hottest line in its file ----------
  applySort();
  buildRows(true);
  buildProblems();
  if (profile && R.length) showRanking(0);
  // Compared: the line that grew the most (else the first line of the ranking).
  const hottest = byLine && ((C && byLine.rows.find((r) => r[4] >= 0 && r[1] > r[7])) || byLine.rows.find((r) => r[4] >= 0));
  if (hottest && C) {
    hlLines = new Set([hottest[4] + ':' + hottest[5]]);
    showSource(hottest[4], hottest[5]);
    setText('line-status', (hottest[1] > hottest[7] ? 'The largest growth: ' : 'No line grew; the largest change: ') + hottest[0] + ', ' +
      signedDur(hottest[1] - hottest[7]) + ' (' + changeMark(hottest[1] - hottest[7], hottest[7], hottest[9]).textContent + '). Click a line to list its kernels.');
  } else if (hottest) {
    hlLines = new Set([hottest[4] + ':' + hottest[5]]);
    showSource(hottest[4], hottest[5]);
    setText('line-status', 'The hottest line: ' + hottest[0] + ', ' + dur(hottest[1]) + ' (' + share(hottest[1], T.ns) + '). Click a line to list its kernels.');
  } else if (current >= 0) {
    showSource(current);
  }
  const worst = rows.find((r) => r.k !== undefined);
  if (worst) { // marked on its drawn row: a second draw would lay the page out again
    selected = worst.k;
    const row = document.querySelector('#kernel-list .row[data-kernel="' + worst.k + '"]');
    if (row) row.classList.add('sel');
    showDetail(worst.k);
  }
  document.body.dataset.ready = '1';
  window.sdscprovRenderMs = performance.now();
})();
