import os

from torch._inductor.ir import ComputedBuffer
from torch._inductor.virtualized import V
from torch.fx import Node

from .spyre_kernel import SpyreKernel


class SchedulerNode:
    def __init__(self, node):
        self.node = node  # the ComputedBuffer


# Late-2026 scheduling prepares every kernel before naming any (see codegen_graph).
PREPARE_AHEAD = os.environ.get("FAKE_TORCH_SPYRE_LAYOUT", "mid-2026") == "late-2026"


class Bundle:
    """The fused scheduler node of one kernel: ``ops`` is [(ComputedBuffer, Spyre op,
    is_reduction[, reduced dimension])]; ``fused_name`` is "fused_<aten ops>". ``method`` is the
    emitter ("sdsc", or "ktir" as with TORCH_SPYRE_KTIR=1). The first ``rejections``
    preparations of this bundle fail, as an LX placement that cannot be finalized does: after
    building the bundle's OpSpecs and one more (an LX relayout) the kernel is given up, and
    with it every kernel of that attempt."""

    def __init__(self, ops, fused_name, method=None, rejections=0):
        self.ops = [tuple(op) + (None,) * (4 - len(op)) for op in ops]
        self.fused_name = fused_name
        self.method = method or ("ktir" if os.environ.get("TORCH_SPYRE_KTIR") == "1" else "sdsc")
        self.rejections = rejections
        self.prepared_kernel = None


def codegen_graph(bundles):
    """Emits one kernel per bundle: mid-2026 builds each kernel's OpSpecs right before naming
    it; late-2026 prepares all kernels first (before HBM pooling) and names them later."""
    scheduling = SuperDSCScheduling()
    if PREPARE_AHEAD:
        prepare_spyre_kernels(bundles, scheduling)
    for bundle in bundles:
        scheduling.codegen_node(bundle)


def prepare_spyre_kernels(bundles, scheduling):
    """Late-2026 order: every bundle's kernel is prepared (its OpSpecs built) before any is
    named; a rejected attempt drops all of its kernels and the next attempt starts over."""
    for _ in range(1 + sum(b.rejections for b in bundles)):
        kernels = []
        for bundle in bundles:
            kernel = SpyreKernel()
            try:
                scheduling.prepare_kernel(bundle, kernel)
            except ValueError:
                break
            kernels.append((bundle, kernel))
        else:
            for bundle, kernel in kernels:
                bundle.prepared_kernel = kernel
            return
    raise RuntimeError("preparation never succeeded")


class SuperDSCScheduling:
    """Code generation of fused nodes into one kernel, in the order torch-spyre's does it:
    OpSpecs, then define_kernel (which names the kernel), then call_kernel."""

    def prepare_kernel(self, bundle, kernel):
        for buffer, op, is_reduction, reduces in bundle.ops:
            kernel.store(SchedulerNode(buffer), op, is_reduction, reduces)
        if bundle.rejections:
            bundle.rejections -= 1
            # The LX relayout the rejected placement needed: its buffer and FX node exist in
            # this attempt only, so they must not reach the map.
            relayout = ComputedBuffer("lx_relayout", [Node("lx_copy", None, {})])
            kernel.store(SchedulerNode(relayout), "identity")
            kernel.failed_node = relayout
            raise ValueError("LX ownership of lx_relayout cannot be finalized")
        return kernel

    def codegen_node(self, bundle):
        kernel = bundle.prepared_kernel or self.prepare_kernel(bundle, SpyreKernel())
        src_code = kernel.codegen_kernel()
        kernel_name = self.define_kernel(src_code, bundle.fused_name, bundle.method)
        kernel.kernel_name = kernel_name
        kernel.call_kernel(kernel.kernel_name)

    def define_kernel(self, src_code, fused_name, method="sdsc"):
        wrapper = V.graph.wrapper_code
        if src_code in wrapper.src_to_kernel:
            return wrapper.src_to_kernel[src_code]
        kernel_name = "_".join([method, fused_name, wrapper.next_kernel_suffix()])
        wrapper.src_to_kernel[src_code] = kernel_name
        wrapper.define_kernel(kernel_name, f"async_compile.{method}({kernel_name!r}, {src_code})")
        return kernel_name
