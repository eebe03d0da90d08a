"""Runs sdscprov with standard output and/or standard error on a pseudo-terminal of a given size,
for the tests of what a terminal gets (shortened names, the progress line) and what a pipe gets."""
import fcntl
import os
import pty
import struct
import subprocess
import termios
import threading

from e2e import BIN


def run_pty(*args, stdout_tty=True, stderr_tty=False, columns=100, env=None, cwd=None):
    """Returns (rc, stdout, stderr) as text; a stream on the terminal is read from its master
    side (output processing off: "\\n" stays "\\n", "\\r" stays "\\r")."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    attrs = termios.tcgetattr(slave)
    attrs[1] &= ~termios.OPOST
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    full_env = dict(os.environ)
    full_env.pop("NO_COLOR", None)
    full_env.pop("COLUMNS", None)
    full_env.update(env or {})
    p = subprocess.Popen([BIN, *args], stdin=subprocess.DEVNULL,
                         stdout=slave if stdout_tty else subprocess.PIPE,
                         stderr=slave if stderr_tty else subprocess.PIPE, env=full_env, cwd=cwd)
    os.close(slave)
    chunks = []

    def drain():
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: every writer of the terminal is gone
                break
            if not chunk:
                break
            chunks.append(chunk)

    reader = threading.Thread(target=drain)
    reader.start()
    out, err = p.communicate(timeout=300)
    reader.join(timeout=60)
    os.close(master)
    tty = b"".join(chunks).decode("utf-8", errors="replace")
    out = tty if stdout_tty else out.decode("utf-8", errors="replace")
    err = tty if stderr_tty else err.decode("utf-8", errors="replace")
    return p.returncode, out, err
