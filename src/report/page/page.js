(function () {
  'use strict';
  const D = JSON.parse(document.getElementById('sdscprov-data').textContent);
  const $ = (id) => document.getElementById(id);
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  const ROW = 20;
  // A list of `count` rows of ROW pixels that holds only the rows in view.
  function VList(box, render) {
    const space = el('div', 'vspace');
    box.replaceChildren(space);
    let count = 0, queued = false;
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
        rows.push(r);
      }
      space.replaceChildren(...rows);
    }
    box.addEventListener('scroll', () => { if (!queued) { queued = true; requestAnimationFrame(draw); } });
    return {
      set(n) { count = n; draw(); },
      draw,
      show(i) {
        const top = i * ROW;
        if (top < box.scrollTop || top + ROW > box.scrollTop + box.clientHeight) box.scrollTop = Math.max(0, top - box.clientHeight / 3);
        draw();
      },
    };
  }

  const [tool, command, title] = D.head;
  const K = D.kernels, O = D.ops, S = D.sources, P = D.problems;
  const profile = command === 'profile';
  $('title').textContent = title;
  $('tool').textContent = tool;
  for (const [label, value] of D.summary) {
    const f = el('span', 'fig');
    f.append(el('span', 'fig-v', value), el('span', 'fig-l', label));
    $('summary').append(f);
  }
  if (D.coverage) {
    $('coverage').append(el('span', 'fig-l', 'coverage of ' + D.coverage.files + ' files:'));
    for (const [name, count, cov] of D.coverage.members) {
      $('coverage').append(el('span', 'cov cov-' + cov, name + ' ' + (cov === 'some' ? count + '/' + D.coverage.files : cov)));
    }
  }
  const legend = $('legend');
  const parts = profile ? [['b-time', 'device time']] : [['b-pop', 'populated'], ['b-nul', 'null'], ['b-abs', 'absent'], ['b-mal', 'malformed']];
  for (const [cls, name] of parts) { legend.append(el('i', cls), document.createTextNode(name)); }

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

  // Kernels grouped by name, in the order they came.
  const groups = [], groupOf = new Map();
  let maxNs = 0;
  K.forEach((k, i) => {
    let g = groupOf.get(k.name);
    if (g === undefined) {
      g = groups.length;
      groupOf.set(k.name, g);
      groups.push({ name: k.name, low: k.name.toLowerCase(), ks: [], bar: [0, 0, 0, 0], ns: 0 });
    }
    const G = groups[g];
    G.ks.push(i);
    k.low = k.dir.toLowerCase();
    k.bar.forEach((n, j) => { G.bar[j] += n; });
    G.ns += k.ns || 0;
    maxNs = Math.max(maxNs, k.ns || 0);
  });
  for (const G of groups) maxNs = Math.max(maxNs, G.ns);

  function bar(counts, ns) {
    const b = el('span', 'bar');
    if (profile) {
      const t = el('i', 'b-time');
      t.style.width = (maxNs ? 100 * (ns || 0) / maxNs : 0) + '%';
      b.append(t);
      b.title = (ns || 0) + ' ns';
      return b;
    }
    const total = counts.reduce((a, n) => a + n, 0);
    ['b-pop', 'b-nul', 'b-abs', 'b-mal'].forEach((cls, j) => {
      const i = el('i', cls);
      i.style.width = (total ? 100 * counts[j] / total : 0) + '%';
      b.append(i);
    });
    b.title = 'populated ' + counts[0] + ', null ' + counts[1] + ', absent ' + counts[2] + ', malformed ' + counts[3];
    return b;
  }
  function ms(ns) { return (ns / 1e6).toFixed(3) + ' ms'; }

  let hlKernels = new Set(), hlLines = new Set(), selected = -1;
  const collapsed = new Set();
  let rows = [];
  const filter = $('filter');
  const kernelList = VList($('kernel-list'), (i) => {
    const r = rows[i];
    if (r.k === undefined) {
      const G = groups[r.g];
      const e = el('div', 'row group-row');
      e.dataset.group = r.g;
      e.append(el('span', '', collapsed.has(r.g) ? '\u25b8' : '\u25be'), el('span', 'grow name', G.name),
        el('span', 'dim', r.n + (r.n === 1 ? ' directory' : ' directories')), bar(G.bar, G.ns));
      e.addEventListener('click', () => { if (collapsed.has(r.g)) collapsed.delete(r.g); else collapsed.add(r.g); buildRows(); });
      return e;
    }
    const k = K[r.k];
    const e = el('div', 'row kernel-row' + (hlKernels.has(r.k) ? ' hl' : '') + (selected === r.k ? ' sel' : ''));
    e.dataset.kernel = r.k;
    e.append(el('span', 'grow dir', k.dir));
    if (k.find) e.append(el('span', 'finding', k.find + (k.find === 1 ? ' finding' : ' findings')));
    e.append(el('span', 'dim', profile ? ms(k.ns || 0) : k.files + (k.files === 1 ? ' file' : ' files')), bar(k.bar, k.ns));
    e.addEventListener('click', () => selectKernel(r.k));
    return e;
  });
  function buildRows() {
    const q = filter.value.trim().toLowerCase();
    rows = [];
    let shown = 0;
    groups.forEach((G, g) => {
      const ks = !q || G.low.includes(q) ? G.ks : G.ks.filter((i) => K[i].low.includes(q));
      if (!ks.length) return;
      rows.push({ g, n: ks.length });
      shown += ks.length;
      if (!collapsed.has(g)) for (const k of ks) rows.push({ g, k });
    });
    $('kernel-count').textContent = shown + ' of ' + K.length + (K.length === 1 ? ' kernel' : ' kernels');
    kernelList.set(rows.length);
  }
  filter.addEventListener('input', buildRows);

  // The model: one source file at a time, line by line.
  const select = $('source-select');
  const heat = S.map((s) => new Map(s.heat));
  let maxHeat = 0;
  for (const s of S) for (const [, ns] of s.heat) maxHeat = Math.max(maxHeat, ns);
  S.forEach((s, i) => {
    let n = 0;
    for (const [line] of s.lines) if (lineKernels.has(i + ':' + line)) n++;
    const o = el('option', '', s.path + '  (' + n + (n === 1 ? ' line' : ' lines') + ' with kernels)');
    o.value = String(i);
    select.append(o);
  });
  if (!S.length) select.append(el('option', '', 'no source file is named by a handle'));
  let current = S.length ? 0 : -1;
  const lineList = VList($('line-list'), (i) => {
    const [n, text] = S[current].lines[i];
    const key = current + ':' + n;
    const ks = lineKernels.get(key);
    const e = el('div', 'row line-row' + (ks ? ' has' : '') + (hlLines.has(key) ? ' hl' : ''));
    e.dataset.line = n;
    e.append(el('span', 'ln', n));
    if (profile) {
      const ns = heat[current].get(n) || 0;
      const h = el('span', 'heat');
      h.style.background = 'rgba(var(--heat), ' + (maxHeat ? Math.max(ns ? 0.08 : 0, ns / maxHeat).toFixed(3) : 0) + ')';
      h.title = ms(ns);
      e.append(h);
    }
    e.append(el('span', 'grow src' + (text === null ? ' dim' : ''), text === null ? '(text not readable here)' : text));
    if (ks) {
      const ops = [...lineOps.get(key)];
      let ann = ks.size + (ks.size === 1 ? ' kernel' : ' kernels');
      if (ops.length) ann += ' \u00b7 ' + ops.slice(0, 3).join(', ') + (ops.length > 3 ? ', \u2026' : '');
      if (profile && heat[current].get(n)) ann += ' \u00b7 ' + ms(heat[current].get(n));
      e.append(el('span', 'ann', ann));
      e.addEventListener('click', () => selectLine(current, n));
    }
    return e;
  });
  function showSource(src, line) {
    if (src !== current) { current = src; select.value = String(src); }
    lineList.set(S[current].lines.length);
    if (line !== undefined) {
      const i = S[current].lines.findIndex((l) => l[0] === line);
      if (i >= 0) lineList.show(i);
    }
  }
  select.addEventListener('change', () => { showSource(Number(select.value)); });

  function firstRowOf(set) { return rows.findIndex((r) => r.k !== undefined && set.has(r.k)); }
  function selectLine(src, line) {
    const key = src + ':' + line;
    hlLines = new Set([key]);
    hlKernels = new Set(lineKernels.get(key) || []);
    for (const k of hlKernels) collapsed.delete(groupOf.get(K[k].name));
    buildRows();
    const i = firstRowOf(hlKernels);
    if (i >= 0) kernelList.show(i);
    lineList.draw();
    $('line-status').textContent = S[src].path + ':' + line + ' \u2192 ' + hlKernels.size + (hlKernels.size === 1 ? ' kernel' : ' kernels');
  }
  function selectKernel(k) {
    selected = k;
    hlKernels = new Set([k]);
    hlLines = kernelLines[k];
    kernelList.draw();
    showDetail(k);
    const first = [...hlLines][0];
    if (first !== undefined) {
      const [src, line] = first.split(':').map(Number);
      showSource(src, line);
      $('line-status').textContent = K[k].dir + ' \u2192 ' + hlLines.size + (hlLines.size === 1 ? ' source line' : ' source lines');
    } else {
      lineList.draw();
      $('line-status').textContent = K[k].dir + ' names no source line';
    }
  }

  // One kernel: its ops and their handles, FX nodes, stack traces and stages.
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
    kv(g, 'source', h.src ? sourceLink(h.src[0], h.src[1], h.src[2]) : '(none)');
    kv(g, 'aten op', h.aten);
    kv(g, 'ir_chain', h.ir.join(' \u2192 '));
    if (h.th) kv(g, 'history', h.th.map((s) => s[0] + ' ' + s[1] + (s[2] ? ' (' + s[2] + ')' : '')).join('; '));
    if ('fc' in h) kv(g, 'fusion context', h.fc === null ? '(null)' : h.fc);
    if (h.ff.length) kv(g, 'fused_from', h.ff.length + (h.ff.length === 1 ? ' constituent' : ' constituents'));
    box.append(g);
    for (const c of h.ff) box.append(handleBlock(c));
    return box;
  }
  function showDetail(k) {
    const x = K[k], box = $('kernel-detail');
    box.className = '';
    box.replaceChildren(el('h3', '', x.name));
    const g = el('div', 'kv');
    kv(g, profile ? 'directories' : 'directory', x.dir);
    kv(g, 'status', x.note);
    if (!profile) kv(g, 'handles', 'populated ' + x.bar[0] + ', null ' + x.bar[1] + ', absent ' + x.bar[2] + ', malformed ' + x.bar[3]);
    if (x.ns !== undefined) kv(g, 'device time', ms(x.ns) + ' in ' + x.ev + (x.ev === 1 ? ' event' : ' events'));
    if (x.pre) { kv(g, 'pre-grad nodes', x.pre.join(', ') || '(none)'); kv(g, 'post-grad nodes', x.post.join(', ') || '(none)'); }
    box.append(g);
    if (x.st) {
      const t = el('table', 'stages'), head = el('tr'), body = el('tr');
      ['DMI', 'PREP', 'CMPT', 'DMO'].forEach((s, i) => { head.append(el('td', 'dim', s)); body.append(el('td', '', x.st[i])); });
      t.append(head, body);
      box.append(el('div', 'dim', 'stages (device counter ticks)'), t);
    }
    for (const t of (x.traces || [])) box.append(el('pre', '', t[0]));
    const [first, count] = x.ops, shown = Math.min(count, 500);
    for (let i = first; i < first + shown; i++) {
      const op = O[i], d = el('div', 'op');
      d.append(el('div', 'op-head', op.f + (op.key ? '  ' + op.key : '') + '  [' + op.st + ']'));
      for (const n of (op.notes || [])) d.append(el('div', 'dim', n));
      if (op.h) d.append(handleBlock(op.h));
      box.append(d);
    }
    if (count > shown) box.append(el('div', 'dim', (count - shown) + ' more ops not shown'));
  }

  // Problems, as path:line:col lines.
  $('problem-count').textContent = '(' + P.length + ')';
  const problemList = VList($('problem-list'), (i) => {
    const [path, line, col, sev, code, msg] = P[i];
    const e = el('div', 'row problem-row');
    e.append(el('span', 'grow', path + (line ? ':' + line + (col ? ':' + col : '') : '') + ': '),
      el('span', 'sev-' + sev, sev), el('span', '', msg + ' [' + code + ']'));
    e.title = msg;
    return e;
  });
  problemList.set(P.length);

  buildRows();
  if (current >= 0) showSource(current);
  document.body.dataset.ready = '1';
  window.sdscprovRenderMs = performance.now();
})();
