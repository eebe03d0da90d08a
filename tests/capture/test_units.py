"""Unit tests of the capture's pure parts: reading a buffer's provenance, the SDSC opfunc of an
OpSpec, pairing kernels with their directories, the wrappers, building and merging maps, the
atomic write, and the map's schema.

Run by tests/e2e/test_capture.py (so ctest runs them), or alone:
    PYTHONPATH=python python3 -m unittest tests/capture/test_units.py
"""
import json
import os
import shutil
import stat
import sys
import tempfile
import types
import unittest
import weakref
from types import SimpleNamespace

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [os.path.join(ROOT, "python"), HERE]

from schema_check import validate  # noqa: E402
from sdscprov_capture import hookpoints, opfunc, origins_map, provenance, recorder  # noqa: E402
from sdscprov_capture.origins_map import build, write_atomic  # noqa: E402
from sdscprov_capture.provenance import CapturedOp  # noqa: E402
from sdscprov_capture.recorder import CapturedKernel, Recorder  # noqa: E402


def load(path):
    with open(path) as f:
        return json.load(f)


SCHEMA = load(os.path.join(ROOT, "docs", "origins-map.schema.json"))


class FxNode:
    def __init__(self, name, aten=None, trace=None, **meta):
        self.name = name
        self.target = aten
        self.meta = dict(meta)  # original_aten=None given here is a present None
        if aten is not None:
            self.meta["original_aten"] = aten
        if trace is not None:
            self.meta["stack_trace"] = trace


class Buffer:
    def __init__(self, name, origins, origin_node=None):
        self.name, self.origins, self.origin_node = name, origins, origin_node

    def get_name(self):
        return self.name


class Kernel:
    """A SpyreKernel as the recorder sees it: an op_specs list."""

    def __init__(self):
        self.op_specs = []


class Graph:
    pass


def spec(op):
    return SimpleNamespace(op=op, is_reduction=False)


# Device coordinates of a [c0, c1] tensor whose stick is c1: (c1 // 64, c0, c1 % 64).
STICK_LAST = [{"c1"}, {"c0"}, {"c1"}]


def tensor(coordinates):
    return SimpleNamespace(device_coordinates=[SimpleNamespace(free_symbols=set(c)) for c in coordinates])


def reduction(op, reduces):
    """An OpSpec reducing its [c0, c1] input over ``reduces``."""
    output = [c - {reduces} for c in STICK_LAST]
    return SimpleNamespace(op=op, is_reduction=True, args=[tensor(STICK_LAST), tensor(output)])


def record(rec, kernel, buffer, op):
    """What the create_op_spec hook does: build the OpSpec, then tell the recorder."""
    s = spec(op)
    kernel.op_specs.append(s)
    rec.op_created(kernel, s, op, lambda: buffer)
    return s


class ProvenanceTest(unittest.TestCase):
    def test_origins_sorted_primary_buffer_and_history(self):
        mm, perm = FxNode("mm_default_1", "aten.mm.default"), FxNode("permute", "aten.permute.default")
        buf = Buffer("buf0", [perm, mm], mm)
        buf._spyre_prov_history = (SimpleNamespace(kind="rewrite", pass_name="insert_restickify", reason=None),
                                   {"kind": "fusion", "pass_name": "fuse", "reason": 7})
        op, nodes = provenance.read_op(buf, "batchmatmul")
        self.assertEqual(op.origins, ["mm_default_1", "permute"])
        self.assertEqual((op.buffer, op.origin_node, op.opfunc), ("buf0", "mm_default_1", "batchmatmul"))
        self.assertEqual(op.transform_history, [
            {"kind": "rewrite", "pass_name": "insert_restickify", "reason": None},
            {"kind": "fusion", "pass_name": "fuse", "reason": "7"}])
        self.assertEqual(sorted(nodes), ["mm_default_1", "permute"])
        self.assertEqual(op.to_json()["transform_history"][1]["reason"], "7")

    def test_no_origins_no_primary_no_history(self):
        op, nodes = provenance.read_op(Buffer("buf9", set()), "identity")
        self.assertEqual((op.origins, op.origin_node, nodes), ([], None, {}))
        self.assertNotIn("transform_history", op.to_json())
        self.assertNotIn("spec_path", op.to_json())

    def test_node_meta_becomes_json(self):
        class NodeSource:
            def to_dict(self):
                return {"name": "x", "graph_id": 3}

        node = FxNode("permute", "aten.permute.default", '  File "/m.py", line 3, in f\n',
                      nn_module_stack={"L__self___fc1": ("L['self'].fc1", unittest.TestCase)},
                      source_fn_stack=[("fc1", float("nan"))], from_node=[NodeSource()],
                      unrelated=object())
        entry = provenance.node_entry(node)
        self.assertEqual(entry["original_aten"], "aten.permute.default")
        self.assertEqual(entry["stack_trace"], '  File "/m.py", line 3, in f\n')
        self.assertEqual(entry["nn_module_stack"], {"L__self___fc1": ["L['self'].fc1", "unittest.case.TestCase"]})
        self.assertEqual(entry["source_fn_stack"], [["fc1", "nan"]])
        self.assertEqual(entry["from_node"], [{"name": "x", "graph_id": 3}])
        self.assertNotIn("unrelated", entry)
        json.dumps(entry, allow_nan=False)
        bare = provenance.node_entry(SimpleNamespace(name="n"))
        self.assertEqual(bare, {"original_aten": None, "stack_trace": None})

    def test_origins_sorted_by_name_then_aten_text_as_torch_spyre_does(self):
        present_none = FxNode("x", original_aten=None)
        absent, aten = FxNode("x"), FxNode("x", "aten.b.default")
        key = provenance.origin_sort_key
        self.assertEqual([key(n) for n in (present_none, absent, aten)],
                         [("x", "None"), ("x", ""), ("x", "aten.b.default")])
        ordered = sorted([present_none, aten, absent], key=key)
        self.assertEqual([id(n) for n in ordered], [id(absent), id(present_none), id(aten)])
        self.assertEqual(key(FxNode("a", "aten.z")) < key(FxNode("b", "aten.a")), True)

    def test_origins_sharing_a_name_must_mean_one_node(self):
        same = [FxNode("x", "aten.a"), FxNode("x", "aten.a")]
        op, nodes = provenance.read_op(Buffer("buf0", same), "add")
        self.assertEqual((op.origins, list(nodes)), (["x", "x"], ["x"]))
        with self.assertRaises(provenance.OriginNameClash):
            provenance.read_op(Buffer("buf0", [FxNode("x", "aten.a"), FxNode("x", "aten.b")]), "add")
        with self.assertRaises(provenance.OriginNameClash):  # the primary is another "x"
            provenance.read_op(Buffer("buf0", [FxNode("x", "aten.a")], FxNode("x")), "add")

    def test_unnamed_node_is_an_error(self):
        with self.assertRaises(TypeError):
            provenance.read_op(Buffer("b", [SimpleNamespace(meta={})]), "add")


class OpfuncTest(unittest.TestCase):
    """The opfunc in an SDSC file's key, which the map's ops must carry."""

    def loaded(self, name, **attributes):
        """Makes ``name`` look imported by the compile (as torch-spyre's modules are), for this test."""
        module = types.ModuleType(name)
        vars(module).update(attributes)
        previous = sys.modules.get(name)
        sys.modules[name] = module
        self.addCleanup(lambda: sys.modules.pop(name) if previous is None
                        else sys.modules.__setitem__(name, previous))
        return module

    def test_key_of_the_compiled_document(self):
        self.assertEqual(opfunc.from_compiled({"3_sumnonstick": {}}), "sumnonstick")
        self.assertEqual(opfunc.from_compiled(({"0_LXRelayoutSTCDPOpLx": {}}, [], [], [])), "LXRelayoutSTCDPOpLx")
        for odd in ({"sum": {}}, {"x_sum": {}}, {"0_": {}}, {"0_a": {}, "1_b": {}}, None, "0_sum", ()):
            self.assertIsNone(opfunc.from_compiled(odd), odd)

    def test_reduction_named_by_the_dimension_it_reduces(self):
        self.assertNotIn(opfunc.SUPERDSC, sys.modules)
        cases = [(reduction("sum", "c0"), "sumnonstick"), (reduction("max", "c0"), "maxnonstick"),
                 (reduction("max", "c1"), "max"), (reduction("batchmatmul", "c0"), "batchmatmul"),
                 (reduction("topk", "c0"), "topk"), (spec("add"), "add"),
                 (SimpleNamespace(op="sum", is_reduction=True), "sumnonstick")]
        for op_spec, expected in cases:
            self.assertEqual(opfunc.predict(op_spec, op_spec.op), expected, op_spec)
        self.loaded(opfunc.CONSTANTS, POOL_OPS={"maxpool2d"}, CONV_OPS=("conv2d",))
        self.assertEqual(opfunc.predict(reduction("maxpool2d", "c0"), "maxpool2d"), "maxpool2d")
        self.assertEqual(opfunc.predict(reduction("conv2d", "c0"), "conv2d"), "conv2d")
        self.assertEqual(opfunc.predict(reduction("mean", "c0"), "mean"), "meannonstick")

    def test_torch_spyres_own_rule_is_used_when_it_is_loaded(self):
        calls = []

        def own(op, is_reduction, output_scales):
            calls.append((op, is_reduction, sorted(output_scales.values())))
            return "identity" if op == "to_dtype" else op + "-own"

        self.loaded(opfunc.SUPERDSC, _get_op_func=own)
        self.assertEqual(opfunc.predict(reduction("max", "c1"), "max"), "max-own")
        self.assertEqual(opfunc.predict(reduction("sum", "c0"), "sum"), "sum-own")
        self.assertEqual(opfunc.predict(spec("to_dtype"), "to_dtype"), "identity")
        self.assertEqual(calls, [("max", True, [-2]), ("sum", True, []), ("to_dtype", False, [])])

        def broken(op, is_reduction):
            raise AssertionError("not called with two arguments")
        self.loaded(opfunc.SUPERDSC, _get_op_func=broken)
        self.assertEqual(opfunc.predict(reduction("sum", "c0"), "sum"), "sumnonstick")


class RecorderTest(unittest.TestCase):
    def setUp(self):
        self.errors = []
        # Only the text: a kept exception would keep its frames, and the kernels in them, alive.
        self.rec = Recorder(lambda where, e: self.errors.append((where, str(e))))
        self.node = FxNode("add", "aten.add.Tensor")

    def kernel(self, *ops):
        k = Kernel()
        for op in ops:
            record(self.rec, k, Buffer(f"buf_{op}", [self.node], self.node), op)
        return k

    def test_same_name_in_two_graphs_gets_each_its_directory(self):
        g1, g2 = Graph(), Graph()
        self.rec.kernel_named(self.kernel("add"), "sdsc_fused_add_0", g1)
        self.rec.output_dir("sdsc_fused_add_0", "/c/inductor-spyre/sdsc_fused_add_0_aaaaaaaa")
        self.rec.kernel_named(self.kernel("add", "mul"), "sdsc_fused_add_0", g2)
        self.rec.output_dir("sdsc_fused_add_0", "/c/inductor-spyre/sdsc_fused_add_0_bbbbbbbb")
        kernels = self.rec.finish()
        self.assertEqual([(k.dir[-8:], [o.opfunc for o in k.ops]) for k in kernels],
                         [("aaaaaaaa", ["add"]), ("bbbbbbbb", ["add", "mul"])])
        self.assertFalse(any(k.problem for k in kernels))

    def test_identical_kernel_reused_in_one_graph_keeps_the_first(self):
        g = Graph()
        first = self.kernel("add")
        self.rec.kernel_named(first, "sdsc_fused_add_0", g)
        self.rec.kernel_named(self.kernel("add"), "sdsc_fused_add_0", g)
        self.rec.output_dir("sdsc_fused_add_0", "/c/d")
        kernels = self.rec.finish()
        self.assertEqual(len(kernels), 1)
        self.assertEqual(self.rec.shared_kernels, 1)
        self.assertEqual(kernels[0].ops[0].buffer, "buf_add")

    def test_kernel_of_a_graph_never_loaded_is_not_given_the_next_graphs_directory(self):
        g1 = Graph()
        self.rec.kernel_named(self.kernel("mul"), "sdsc_fused_0", g1)
        del g1  # that graph's compile failed and is gone
        self.rec.kernel_named(self.kernel("add"), "sdsc_fused_0", Graph())
        self.rec.output_dir("sdsc_fused_0", "/c/d")
        kernels = self.rec.finish()
        self.assertEqual([(k.ops[0].opfunc, k.dir, k.problem) for k in kernels],
                         [("add", "/c/d", None), ("mul", None, recorder.NO_DIRECTORY)])

    def test_directory_without_captured_kernel_is_counted(self):
        self.rec.output_dir("sdsc_fused_add_0", "/c/d")
        self.assertEqual(self.rec.finish(), [])
        self.assertEqual(self.rec.unmatched_dirs, [("sdsc_fused_add_0", "/c/d")])

    def test_bundle_order_loops_and_foreign_op_specs(self):
        k = Kernel()
        a = record(self.rec, k, Buffer("buf0", [self.node]), "add")
        b = record(self.rec, k, Buffer("buf1", [self.node]), "exp")
        dropped = record(self.rec, k, Buffer("buf2", [self.node]), "neg")
        k.op_specs = [SimpleNamespace(op="restickify"), SimpleNamespace(count=4, body=[b, spec("identity")]), a]
        k.op_specs[0].is_reduction = False
        self.assertIsNotNone(dropped)
        self.rec.kernel_named(k, "sdsc_fused_0")
        self.rec.output_dir("sdsc_fused_0", "/c/d")
        ops = self.rec.finish()[0].ops
        self.assertEqual([(o.opfunc, o.buffer, o.origins, o.spec_path) for o in ops], [
            ("restickify", "", [], [0]), ("exp", "buf1", ["add"], [1, 0]),
            ("identity", "", [], [1, 1]), ("add", "buf0", ["add"], [2])])

    def test_bundle_checked_against_the_capture(self):
        self.rec.kernel_named(self.kernel("add", "mul"), "k_0")
        self.rec.output_dir("k_0", "/c/k_0_x")
        self.rec.bundle_generated("k_0", "/c/k_0_x", [spec("add"), SimpleNamespace(count=2, body=[spec("mul")])])
        self.rec.kernel_named(self.kernel("add"), "k_1")
        self.rec.output_dir("k_1", "/c/k_1_x")
        self.rec.bundle_generated("k_1", "/c/k_1_x", [spec("exp")])
        self.assertEqual([k.problem for k in self.rec.finish()], [None, recorder.SPECS_DIFFER])

    def test_persistent_cache_directory_followed_through_its_rename(self):
        self.rec.kernel_named(self.kernel("add"), "k_0")
        self.rec.bundle_generated("k_0", "/c/cache/abc.tmp.123", [spec("add")])
        self.rec.dir_committed("/c/cache/abc.tmp.123", "/c/cache/abc")
        [k] = self.rec.finish()
        self.assertEqual((k.dir, k.problem), ("/c/cache/abc", None))

    def test_file_opfunc_is_the_one_compile_op_spec_made(self):
        """What torch-spyre's compile_op_spec made for an OpSpec of the bundle wins over the
        prediction; the bundle is checked against the OpSpecs' own ops, not the opfuncs."""
        k = Kernel()
        for op_spec in (reduction("sum", "c1"), reduction("sum", "c0")):
            k.op_specs.append(op_spec)
            self.rec.op_created(k, op_spec, op_spec.op, lambda: Buffer("buf", [self.node], self.node))
        self.rec.kernel_named(k, "k_0")
        self.rec.output_dir("k_0", "/c/k_0_x")
        rebuilt = [reduction("sum", "c1"), reduction("sum", "c0"), reduction("sum", "c0")]
        self.rec.op_compiled(rebuilt[0], ({"0_sumnonstick": {}}, [], [], []))  # torch-spyre knows better
        self.rec.op_compiled(rebuilt[2], {"0_wrong": {}})  # not an OpSpec of this bundle
        self.rec.bundle_generated("k_0", "/c/k_0_x", rebuilt[:2])
        [captured] = self.rec.finish()
        self.assertEqual([(op.opfunc, op.spec_op) for op in captured.ops],
                         [("sumnonstick", "sum"), ("sumnonstick", "sum")])
        self.assertIsNone(captured.problem)
        self.assertEqual(self.rec._compiled, {})

    def test_observations_of_a_failed_bundle_are_dropped(self):
        kept = reduction("max", "c1")
        self.rec.op_compiled(kept, {"0_maxnonstick": {}})
        self.rec.bundle_failed()
        self.assertEqual(self.rec._compiled, {})

    def test_discarded_prepared_kernel_is_freed_and_never_lends_its_entry(self):
        """torch-spyre can prepare a kernel and throw it away: the recorder must not keep it
        alive, and a kernel later made at the same address must start with nothing of it (not
        its OpSpecs, its FX nodes or its capture error)."""
        discarded = Kernel()
        record(self.rec, discarded, Buffer("buf9", [FxNode("lx_copy")]), "identity")
        record(self.rec, discarded, Buffer("buf9", [SimpleNamespace(meta={})]), "add")  # capture error
        alive, address = weakref.ref(discarded), id(discarded)
        del discarded
        self.assertIsNone(alive(), "the recorder keeps a discarded kernel alive")
        kernels = [Kernel() for _ in range(8)]  # CPython hands the freed address out again
        self.assertIn(address, [id(k) for k in kernels])
        for k in kernels:
            record(self.rec, k, Buffer("buf0", [self.node], self.node), "add")
        reused = next(k for k in kernels if id(k) == address)
        self.rec.kernel_named(reused, "k_0")
        self.rec.output_dir("k_0", "/c/k_0_x")
        [captured] = self.rec.finish()
        self.assertEqual((captured.problem, [op.opfunc for op in captured.ops], list(captured.nodes)),
                         (None, ["add"], ["add"]))

    def test_kernels_compiled_to_ktir_are_left_out(self):
        self.rec.kernel_named(self.kernel("neg"), "ktir_fused_neg_0")
        self.rec.output_dir("ktir_fused_neg_0", "/c/ktir_fused_neg_0_x")
        self.rec.kernel_named(self.kernel("add"), "sdsc_fused_add_1")  # named otherwise by a fork
        self.rec.output_dir("sdsc_fused_add_1", "/c/sdsc_fused_add_1_x")
        self.rec.ktir_compiled("sdsc_fused_add_1")
        self.rec.kernel_named(self.kernel("mul"), "ktir_fused_mul_2")
        self.rec.ktir_compiled("ktir_fused_mul_2")  # failed before making its directory
        kernels = self.rec.finish()
        self.assertEqual([(k.name, k.problem) for k in kernels],
                         [("ktir_fused_neg_0", recorder.KTIR), ("sdsc_fused_add_1", recorder.KTIR),
                          ("ktir_fused_mul_2", recorder.KTIR)])
        m = build(kernels)
        self.assertEqual((m.document["kernels"], dict(m.left_out)), ([], {recorder.KTIR: 3}))
        self.assertEqual(self.rec.unmatched_dirs, [])

    def test_origins_sharing_a_name_leave_the_kernel_out_without_a_warning(self):
        k = Kernel()
        record(self.rec, k, Buffer("buf0", [FxNode("x", "aten.a"), FxNode("x", "aten.b")]), "add")
        self.rec.kernel_named(k, "k_0")
        self.rec.output_dir("k_0", "/c/d")
        [captured] = self.rec.finish()
        self.assertEqual((captured.problem, self.errors), (recorder.ORIGIN_NAME_CLASH, []))

    def test_capture_error_marks_the_kernel_and_is_reported(self):
        k = Kernel()
        record(self.rec, k, Buffer("buf0", [SimpleNamespace(meta={})]), "add")  # no name
        self.rec.kernel_named(k, "k_0")
        self.rec.output_dir("k_0", "/c/d")
        [captured] = self.rec.finish()
        self.assertEqual(captured.problem, recorder.CAPTURE_ERROR)
        self.assertEqual([w for w, _ in self.errors], ["SpyreKernel.create_op_spec"])


def captured(name, directory, nodes, ops, problem=None):
    return CapturedKernel(name, [CapturedOp(op, f"buf{i}", origins, origins[0] if origins else None)
                                 for i, (op, origins) in enumerate(ops)],
                          nodes, directory, problem)


ADD = {"original_aten": "aten.add.Tensor", "stack_trace": None}
RELU = {"original_aten": "aten.relu.default", "stack_trace": '  File "/m.py", line 9, in f\n'}


class WrapperTest(unittest.TestCase):
    """The wrappers return what torch-spyre returns, raise what it raises, and report after."""

    class Calls:
        def __init__(self):
            self.calls = []

        def __getattr__(self, name):
            return lambda *args: self.calls.append((name, *args))

    def test_commit_compile_dir_arguments_found_by_either_name(self):
        errors = []
        rec = Recorder(lambda where, e: errors.append((where, str(e))))
        k, node = Kernel(), FxNode("add", "aten.add.Tensor")
        record(rec, k, Buffer("buf0", [node], node), "add")
        rec.kernel_named(k, "k_0")
        rec.bundle_generated("k_0", "/c/key.tmp.1", [spec("add")])  # the kernel cache's directory

        def commit_compile_dir(tmp_dir, cache_key):
            return "/c/" + cache_key
        wrapped = hookpoints._wrap_commit_compile_dir(commit_compile_dir, rec)
        self.assertEqual(wrapped(tmp_dir="/c/key.tmp.1", cache_key="key"), "/c/key")
        self.assertEqual([k.dir for k in rec.finish()], ["/c/key"])
        legacy = hookpoints._wrap_commit_compile_dir(lambda compile_dir, cache_key: "/c/" + cache_key, rec)
        self.assertEqual(legacy(compile_dir="/c/key", cache_key="other"), "/c/other")
        self.assertEqual([k.dir for k in rec.finish()], ["/c/other"])
        self.assertEqual(errors, [])

    def test_compile_op_spec_result_untouched_and_reported(self):
        calls, result, op_spec = self.Calls(), ({"0_add": {}}, [], [], []), spec("add")
        wrapped = hookpoints._wrap_compile_op_spec(lambda idx, op_spec, symbols, offset=0: result, calls)
        self.assertIs(wrapped(0, op_spec, [], 0), result)
        self.assertIs(wrapped(idx=0, op_spec=op_spec, symbols=[]), result)
        self.assertEqual(calls.calls, [("op_compiled", op_spec, result)] * 2)

    def test_failing_generate_bundle_and_ktir_raise_their_own_error(self):
        calls, error = self.Calls(), RuntimeError("dxp failed")

        def fail(*args, **kwargs):
            raise error
        for wrap, args in ((hookpoints._wrap_generate_bundle, ("k_0", "/c/d", [])),
                           (hookpoints._wrap_ktir, (object(), "ktir_k_0", []))):
            with self.assertRaises(RuntimeError) as raised:
                wrap(fail, calls)(*args)
            self.assertIs(raised.exception, error)
        self.assertEqual(calls.calls, [("bundle_failed",), ("ktir_compiled", "ktir_k_0")])


class OriginsMapTest(unittest.TestCase):
    def test_two_compiles_merge_into_one_map(self):
        first = [captured("sdsc_fused_add_0", "/c/inductor-spyre/sdsc_fused_add_0_aaaaaaaa",
                          {"add": ADD}, [("add", ["add"])])]
        second = [captured("sdsc_fused_add_0", "/c/inductor-spyre/sdsc_fused_add_0_bbbbbbbb",
                           {"add": dict(ADD, target="aten.add.Tensor")}, [("add", ["add"])]),
                  captured("sdsc_fused_relu_1", "/c/inductor-spyre/sdsc_fused_relu_1_cccccccc",
                           {"relu": RELU}, [("relufwd", ["relu"])])]
        m = build(first + second)
        doc = m.document
        self.assertEqual(validate(doc, SCHEMA), [])
        self.assertEqual([(k["name"], k["dir"]) for k in doc["kernels"]], [
            ("sdsc_fused_add_0", "sdsc_fused_add_0_aaaaaaaa"),
            ("sdsc_fused_add_0", "sdsc_fused_add_0_bbbbbbbb"),
            ("sdsc_fused_relu_1", "sdsc_fused_relu_1_cccccccc")])
        self.assertEqual(doc["nodes"], {"add": ADD, "relu": RELU})  # the first entry of a node stays
        self.assertEqual((m.kernels, m.ops, m.nodes, sum(m.left_out.values())), (3, 3, 2, 0))

    def test_node_name_meaning_another_node_leaves_the_later_kernel_out(self):
        other_relu = dict(RELU, stack_trace='  File "/other.py", line 2, in g\n')
        m = build([captured("k_0", "/c/k_0_a", {"relu": RELU}, [("relufwd", ["relu"])]),
                   captured("k_0", "/c/k_0_b", {"relu": other_relu, "add": ADD},
                            [("relufwd", ["relu"]), ("add", ["add"])])])
        self.assertEqual([k["dir"] for k in m.document["kernels"]], ["k_0_a"])
        self.assertEqual(m.document["nodes"], {"relu": RELU})
        self.assertEqual(dict(m.left_out), {origins_map.NODE_CLASH: 1})

    def test_kernels_without_directory_with_problems_or_sharing_one_are_left_out(self):
        m = build([captured("k_0", None, {"add": ADD}, [("add", ["add"])], recorder.NO_DIRECTORY),
                   captured("k_1", "/c/x/key1", {"add": ADD}, [("add", ["add"])]),
                   captured("k_2", "/c/x/key1/", {"add": ADD}, [("add", ["add"])]),
                   captured("k_3", "/c/x/key3", {"add": ADD}, [("add", ["add"])], recorder.CAPTURE_ERROR)])
        self.assertEqual([k["name"] for k in m.document["kernels"]], ["k_1"])
        self.assertEqual(dict(m.left_out), {recorder.NO_DIRECTORY: 1, origins_map.DIRECTORY_TAKEN: 1,
                                            recorder.CAPTURE_ERROR: 1})

    def test_empty_capture_is_a_valid_map(self):
        doc = build([]).document
        self.assertEqual(doc, {"sdscprov_origins": 1, "nodes": {}, "kernels": []})
        self.assertEqual(validate(doc, SCHEMA), [])


class AtomicWriteTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="sdscprov-capture-unit-")

    def tearDown(self):
        os.chmod(self.dir, 0o755)
        shutil.rmtree(self.dir)

    def test_write_then_replace_keeps_mode_and_leaves_no_temporary(self):
        path = os.path.join(self.dir, "origins.json")
        write_atomic(path, {"sdscprov_origins": 1, "nodes": {}, "kernels": []})
        self.assertEqual(load(path)["kernels"], [])
        os.chmod(path, 0o640)
        doc = build([captured("k_0", "/c/k_0_a", {"relu": RELU}, [("relufwd", ["relu"])])]).document
        write_atomic(path, doc)
        self.assertEqual(load(path), doc)
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o640)
        self.assertEqual(os.listdir(self.dir), ["origins.json"])

    def test_failed_write_leaves_no_temporary(self):
        occupied = os.path.join(self.dir, "origins.json")
        os.mkdir(occupied)  # os.replace onto a directory fails after the temporary is written
        with self.assertRaises(OSError):
            write_atomic(occupied, {"sdscprov_origins": 1, "nodes": {}, "kernels": []})
        self.assertEqual(os.listdir(self.dir), ["origins.json"])
        self.assertEqual(os.listdir(occupied), [])

    def test_unwritable_directory_raises(self):
        if os.geteuid() == 0:
            self.skipTest("root writes into read-only directories")
        os.chmod(self.dir, 0o555)
        with self.assertRaises(OSError):
            write_atomic(os.path.join(self.dir, "origins.json"), {})


class SchemaCheckTest(unittest.TestCase):
    """The checker must be able to fail, or the validations above prove nothing."""

    def test_rejects_what_the_schema_forbids(self):
        good = build([captured("k", "/c/k_a", {"add": ADD}, [("add", ["add"])])]).document
        self.assertEqual(validate(good, SCHEMA), [])
        cases = {
            "unknown member": lambda d: d["kernels"][0]["ops"][0].update(orign_node="add"),
            "expected string": lambda d: d["nodes"]["add"].update(stack_trace=3),
            "expected 1": lambda d: d.update(sdscprov_origins=2),
            "missing member 'ops'": lambda d: d["kernels"][0].pop("ops"),
            "does not match": lambda d: d["kernels"][0].update(dir="a/b"),
            "fewer than 1": lambda d: d["kernels"][0]["ops"][0].update(spec_path=[]),
            "below 0": lambda d: d["kernels"][0]["ops"][0].update(spec_path=[-1]),
        }
        for expected, damage in cases.items():
            doc = json.loads(json.dumps(good))
            damage(doc)
            errors = validate(doc, SCHEMA)
            self.assertTrue(any(expected in e for e in errors), (expected, errors))


if __name__ == "__main__":
    unittest.main()
