import getpass
import os


def cache_dir():
    """Inductor's cache directory: $TORCHINDUCTOR_CACHE_DIR, else /tmp/torchinductor_<user>."""
    return os.environ.get("TORCHINDUCTOR_CACHE_DIR") or f"/tmp/torchinductor_{getpass.getuser()}"
