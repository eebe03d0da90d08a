#!/usr/bin/env python3
"""Drive a headless Chromium over the Chrome DevTools Protocol, for the HTML page's browser test
(tests/e2e/test_html.py) and benchmark (scripts/bench-html.sh).

Debian packages only: `chromium` and `python3-websocket` (scripts/setup.sh installs both with
SDSCPROV_TEST_TOOLS=1). Every page opened records what a person would not see but must know
of: console errors, uncaught exceptions, and every request other than the page's own file
(each one is also refused, so nothing ever leaves the machine).
"""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse

try:
    import websocket  # python3-websocket
except ImportError:  # a Python other than Debian's: use Debian's package where it installs it
    sys.path.append('/usr/lib/python3/dist-packages')
    import websocket


class BrowserMissing(Exception):
    pass


def chromium_path():
    for name in ('chromium', 'chromium-browser', 'google-chrome'):
        path = shutil.which(name)
        if path:
            return path
    raise BrowserMissing('no chromium on PATH: install Debian\'s chromium '
                         '(SDSCPROV_TEST_TOOLS=1 scripts/setup.sh)')


class Browser:
    """One headless Chromium; pages are opened one at a time with open()."""

    def __init__(self, width=1400, height=1000):
        self.size = (width, height)
        self.profile = tempfile.mkdtemp(prefix='sdscprov-chromium-')
        args = [chromium_path(), '--headless=new', '--no-sandbox', '--disable-gpu',
                '--no-first-run', '--no-default-browser-check', '--disable-extensions',
                '--disable-background-networking', '--disable-component-update', '--disable-sync',
                '--remote-debugging-port=0', '--remote-allow-origins=*',
                f'--user-data-dir={self.profile}', f'--window-size={width},{height}',
                'about:blank']
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        port_file = os.path.join(self.profile, 'DevToolsActivePort')
        deadline = time.time() + 30
        while not (os.path.exists(port_file) and len(open(port_file).read().split()) >= 2):
            if self.proc.poll() is not None or time.time() > deadline:
                err = self.proc.stderr.read().decode(errors='replace') if self.proc.poll() is not None else ''
                self.close()
                raise BrowserMissing(f'chromium did not start: {err[-2000:]}')
            time.sleep(0.05)
        port, path = open(port_file).read().split()[:2]
        self.ws = websocket.create_connection(f'ws://127.0.0.1:{port}{path}', timeout=60,
                                              suppress_origin=True)
        self.next_id = 0
        self.session = None
        self.events = []

    def close(self):
        try:
            if getattr(self, 'ws', None):
                self.ws.close()
        finally:
            if self.proc.poll() is None:
                self.proc.terminate()
                try:
                    self.proc.wait(10)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- protocol ---------------------------------------------------------------------------

    def send(self, method, params=None, session=True, timeout=60):
        self.next_id += 1
        msg = {'id': self.next_id, 'method': method, 'params': params or {}}
        if session and self.session:
            msg['sessionId'] = self.session
        self.ws.send(json.dumps(msg))
        deadline = time.time() + timeout
        while True:
            reply = self._receive(deadline)
            if reply.get('id') == self.next_id:
                if 'error' in reply:
                    raise RuntimeError(f'{method}: {reply["error"]}')
                return reply.get('result', {})

    def _receive(self, deadline):
        self.ws.settimeout(max(0.1, deadline - time.time()))
        try:
            msg = json.loads(self.ws.recv())
        except websocket.WebSocketTimeoutException:
            raise TimeoutError('no answer from chromium in time')
        if 'method' in msg:
            self._event(msg)
        return msg

    def _event(self, msg):
        method, params = msg['method'], msg.get('params', {})
        if method == 'Fetch.requestPaused':
            # Only the page's own file may load; anything else is recorded and refused.
            url = params['request']['url']
            if url == self.url:
                self.send_nowait('Fetch.continueRequest', {'requestId': params['requestId']})
            else:
                self.requests.append(url)
                self.send_nowait('Fetch.failRequest', {'requestId': params['requestId'],
                                                       'errorReason': 'BlockedByClient'})
        elif method == 'Network.requestWillBeSent':
            url = params['request']['url']
            if url != self.url and not url.startswith('data:'):
                self.requests.append(url)
        elif method == 'Runtime.exceptionThrown':
            d = params['exceptionDetails']
            self.errors.append('exception: ' + d.get('exception', {}).get('description', d.get('text', '')))
        elif method == 'Runtime.consoleAPICalled' and params['type'] in ('error', 'assert', 'warning'):
            self.errors.append('console.' + params['type'] + ': ' +
                               ' '.join(str(a.get('value', a.get('description', ''))) for a in params['args']))
        elif method == 'Log.entryAdded' and params['entry']['level'] in ('error', 'warning'):
            self.errors.append('log: ' + params['entry']['text'])
        elif method == 'Page.loadEventFired':
            self.loaded = True
        self.events.append(method)

    def send_nowait(self, method, params):
        self.next_id += 1
        self.ws.send(json.dumps({'id': self.next_id, 'method': method, 'params': params,
                                 'sessionId': self.session}))

    # -- pages ------------------------------------------------------------------------------

    def open(self, path, ready_timeout=60):
        """Opens a file in a fresh tab and waits until the page's script has drawn it. Returns
        the seconds from navigation to the first render, as the page measured them."""
        if self.session:
            self.send('Target.closeTarget', {'targetId': self.target}, session=False)
            self.session = None
        self.url = 'file://' + urllib.parse.quote(os.path.abspath(path))
        self.errors, self.requests, self.loaded = [], [], False
        self.target = self.send('Target.createTarget', {'url': 'about:blank'}, session=False)['targetId']
        self.session = self.send('Target.attachToTarget', {'targetId': self.target, 'flatten': True},
                                 session=False)['sessionId']
        for domain in ('Runtime', 'Log', 'Page', 'Network'):
            self.send(domain + '.enable')
        self._metrics()
        self.send('Fetch.enable', {'patterns': [{'urlPattern': '*'}]})
        self.send('Page.navigate', {'url': self.url})
        deadline = time.time() + ready_timeout
        while not self.loaded or not self.eval("document.body && document.body.dataset.ready === '1'"):
            if time.time() > deadline:
                raise TimeoutError(f'{path}: not drawn in {ready_timeout} s; errors: {self.errors}')
            if not self.loaded:
                self._receive(deadline)
            else:
                time.sleep(0.05)
        self.settle()
        return self.eval('window.sdscprovRenderMs') / 1000.0

    def _metrics(self):
        width, height = self.size
        self.send('Emulation.setDeviceMetricsOverride', {'width': width, 'height': height,
                                                         'deviceScaleFactor': 1, 'mobile': False})

    def resize(self, width, height):
        """Gives the open page a viewport of width x height CSS pixels (a screenshot's size)."""
        self.size = (width, height)
        self._metrics()
        self.settle()

    def settle(self):
        """Lets pending frames (scroll redraws) and events through."""
        self.eval('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))', True)

    def eval(self, expression, await_promise=False):
        r = self.send('Runtime.evaluate', {'expression': expression, 'returnByValue': True,
                                          'awaitPromise': await_promise})
        if 'exceptionDetails' in r:
            raise RuntimeError(f'{expression}: {r["exceptionDetails"]}')
        return r['result'].get('value')

    def click(self, selector):
        """Clicks the middle of the first element `selector` matches, as a mouse would."""
        box = self.eval('(() => { const e = document.querySelector(%s); if (!e) return null; '
                        'e.scrollIntoView({block: "nearest"}); const r = e.getBoundingClientRect(); '
                        'return [r.left + Math.min(r.width / 2, 200), r.top + r.height / 2]; })()'
                        % json.dumps(selector))
        if box is None:
            raise AssertionError(f'nothing to click: {selector}')
        for kind in ('mouseMoved', 'mousePressed', 'mouseReleased'):
            self.send('Input.dispatchMouseEvent', {'type': kind, 'x': box[0], 'y': box[1],
                                                   'button': 'left', 'clickCount': 1})
        self.settle()

    KEYS = {'Enter': 13, 'Escape': 27, 'ArrowDown': 40, 'ArrowUp': 38, 'Home': 36, 'End': 35}

    def press(self, selector, key):
        """Focuses the element `selector` matches and presses `key` (a name of KEYS) on it."""
        self.eval('document.querySelector(%s).focus()' % json.dumps(selector))
        for kind in ('keyDown', 'keyUp'):
            self.send('Input.dispatchKeyEvent', {'type': kind, 'key': key, 'code': key,
                                                 'windowsVirtualKeyCode': self.KEYS[key]})
        self.settle()

    def type_into(self, selector, text):
        self.eval('document.querySelector(%s).focus()' % json.dumps(selector))
        self.eval('document.querySelector(%s).select()' % json.dumps(selector))
        self.send('Input.insertText', {'text': text})
        self.settle()

    def screenshot(self, path):
        data = self.send('Page.captureScreenshot', {'format': 'png'})['data']
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, 'wb') as f:
            f.write(base64.b64decode(data))


# The source-line cells of a profile page's ranking in view: each one's full label (its tooltip),
# the tail shown whole, and whether that tail is on screen uncovered (inside its row, its list's
# visible box and the window, the topmost element at its corners).
_LINE_CELLS = r"""(() => {
  const list = document.getElementById('rank-list');
  list.scrollIntoView({ block: 'start' });
  const box = list.getBoundingClientRect(), right = box.left + list.clientWidth;
  const inside = (r, o) => r.left >= o.left - 0.5 && r.right <= o.right + 0.5;
  return [...list.querySelectorAll('.vspace > .row')].filter((row) => {
    const r = row.getBoundingClientRect();
    return r.top >= box.top && r.bottom <= box.top + list.clientHeight && r.bottom <= innerHeight;
  }).map((row) => {
    const label = row.querySelector('.label'), tail = label && label.querySelector('.tail');
    if (!tail) return null;
    const t = tail.getBoundingClientRect(), y = t.top + t.height / 2;
    const top = (x) => { const e = document.elementFromPoint(x, y); return !!e && tail.contains(e); };
    return [label.title, tail.textContent, label.textContent,
            inside(t, row.getBoundingClientRect()) && inside(t, label.getBoundingClientRect()) &&
            t.left >= box.left && t.right <= right + 0.5 && t.right <= innerWidth && t.width > 0 &&
            top(t.left + 1) && top(t.right - 1)];
  }).filter((x) => x);
})()"""


def line_cells(browser):
    """[full label, tail text, text in the document, tail whole on screen] of each source-line
    cell of the ranking in view (a label ending in `name.py:N`)."""
    import re
    return [c for c in browser.eval(_LINE_CELLS) if re.search(r'[^/]+\.py:\d+$', c[0])]


def check_line_cells(browser, page, least=3):
    """Every source-line cell in view shows its file's name and line (`name.py:N`) whole on
    screen, the full path in its tooltip and in the document (what a copy takes)."""
    cells = line_cells(browser)
    assert len(cells) >= least, f'{page}: {len(cells)} source-line cells in view: {cells}'
    for full, tail, text, on_screen in cells:
        assert text == full, (page, text, full)
        assert tail == full.rsplit('/', 1)[-1], f'{page}: {full!r} shows {tail!r} as its file and line'
        assert on_screen, f'{page}: {tail!r} of {full!r} is not whole on screen at {browser.size}'
    return cells
