import json
import os
import tempfile
import uuid

from torch._inductor.runtime.runtime_utils import cache_dir
from torch_spyre._inductor.codegen.bundle import generate_bundle
from .kernel_cache import allocate_compile_dir, commit_compile_dir, compute_specs_hash

LAYOUT = os.environ.get("FAKE_TORCH_SPYRE_LAYOUT", "mid-2026")
_GIVEN_DIRS = json.loads(os.environ.get("FAKE_SPYRE_OUTPUT_DIRS", "{}"))


def get_output_dir(kernel_name):
    spyre_dir = os.path.join(cache_dir(), "inductor-spyre")
    os.makedirs(spyre_dir, exist_ok=True)
    given = _GIVEN_DIRS.get(kernel_name)
    if given:  # instead of mkdtemp's random name
        path = os.path.join(spyre_dir, given.pop(0))
        os.makedirs(path, exist_ok=True)
        return path
    prefix = f"{kernel_name}_" if LAYOUT == "mid-2026" else f"{uuid.uuid4().hex[:8]}_{kernel_name}_"
    return tempfile.mkdtemp(dir=spyre_dir, prefix=prefix)


class SpyreSDSCKernelRunner:
    def __init__(self, kernel_name, output_dir):
        self.kernel_name = kernel_name
        self.output_dir = output_dir

    def run(self, *args):
        pass


class SpyreAsyncCompile:
    def sdsc(self, kernel_name, specs, pool_size=0):
        if LAYOUT == "late-2026" and os.environ.get("SPYRE_KERNEL_CACHE") == "1":
            cache_key = compute_specs_hash(specs, kernel_name=kernel_name, pool_size=pool_size)
            compile_dir = allocate_compile_dir(cache_key)
            generate_bundle(kernel_name, compile_dir, specs)
            return SpyreSDSCKernelRunner(kernel_name, commit_compile_dir(compile_dir, cache_key))
        output_dir = get_output_dir(kernel_name)
        generate_bundle(kernel_name, output_dir, specs)
        return SpyreSDSCKernelRunner(kernel_name, output_dir)

    def ktir(self, kernel_name, specs):
        """The KTIR emitter: the kernel's text first, then its directory, which gets
        <kernel>.ktir and no SDSC file and no bundle."""
        text = f"// KTIR of {kernel_name}: {len(specs)} OpSpecs\n"
        output_dir = get_output_dir(kernel_name)
        with open(os.path.join(output_dir, f"{kernel_name}.ktir"), "w") as f:
            f.write(text)
        return SpyreSDSCKernelRunner(kernel_name, output_dir)

    def wait(self, scope):
        pass
