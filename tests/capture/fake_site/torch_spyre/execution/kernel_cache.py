import hashlib
import os
import shutil
import uuid

from torch._inductor.runtime.runtime_utils import cache_dir


def get_cache_root_dir():
    root = os.path.join(cache_dir(), "inductor-spyre-cache")
    os.makedirs(root, exist_ok=True)
    return root


def compute_specs_hash(specs, kernel_name="", pool_size=0):
    return hashlib.sha256(repr(list(specs)).encode()).hexdigest()


def allocate_compile_dir(cache_key):
    path = os.path.join(get_cache_root_dir(), f"{cache_key}.tmp.{uuid.uuid4().hex}")
    os.makedirs(path)
    return path


def commit_compile_dir(tmp_dir, cache_key):
    """Renames the finished compile directory to its key; a directory already there wins."""
    final = os.path.join(get_cache_root_dir(), cache_key)
    if os.path.exists(final):
        shutil.rmtree(tmp_dir)
    else:
        os.rename(tmp_dir, final)
    return final
