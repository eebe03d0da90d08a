"""End-to-end: `sdscprov explain TARGET` by kernel name, directory and file, text and JSON."""
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import SHARED_CORPUS, SKIP, TESTDATA, TempDir, copy_tree, main, run  # noqa: E402

SHARED_UPSTREAM = os.path.join(os.path.dirname(SHARED_CORPUS), "sidecars", "upstream-inductor")

DEMO = os.path.join(TESTDATA, "demo")
DEMO_MAP = os.path.join(DEMO, "origins.json")


def annotated_demo(tmp):
    cache = os.path.join(tmp, "demo")
    copy_tree(DEMO, cache)
    run("annotate", "--origins", DEMO_MAP, cache, check_rc=0)
    return cache


def test_by_name_directory_and_file_agree():
    with TempDir() as tmp:
        cache = annotated_demo(tmp)
        kdir = glob.glob(os.path.join(cache, "inductor-spyre", "sdsc_fused_addmm_linear_relu_0_*"))[0]
        by_name = json.loads(run("explain", "--format", "json", "sdsc_fused_addmm_linear_relu_0", cache,
                                 check_rc=0)[1])
        by_dir = json.loads(run("explain", "--format", "json", kdir, check_rc=0)[1])
        assert by_name == by_dir
        (kernel,) = by_name["kernels"]
        assert kernel["kernel"] == "sdsc_fused_addmm_linear_relu_0"
        assert [op["opfunc"] for op in kernel["ops"]] == ["batchmatmul", "add", "relufwd", "batchmatmul"]
        # Each op shows the handle annotate wrote into its file.
        for op in kernel["ops"]:
            doc = json.load(open(op["file"]))
            assert op["debug_handle"] == next(iter(doc.values()))["debug_handle_"], op["file"]
        # The default search root is $TORCHINDUCTOR_CACHE_DIR.
        env_run = run("explain", "--format", "json", "sdsc_fused_addmm_linear_relu_0",
                      env={"TORCHINDUCTOR_CACHE_DIR": cache}, check_rc=0)[1]
        assert json.loads(env_run) == by_name
        # A file: only that op.
        one = json.loads(run("explain", "--format", "json", kernel["ops"][2]["file"], check_rc=0)[1])
        assert [op["op"] for op in one["kernels"][0]["ops"]] == ["2_relufwd"]


def test_text_shows_the_source_line_when_the_source_is_readable():
    with TempDir() as tmp:
        cache = annotated_demo(tmp)
        # Point the handle of one file at a real source file of ours, as a user's model would be.
        source = os.path.join(tmp, "model.py")
        open(source, "w").write("import torch\n\nclass M:\n    def forward(self, x):\n        return self.fc1(x)\n")
        path = sorted(glob.glob(os.path.join(cache, "**", "sdsc_0.json"), recursive=True))[-1]
        text = open(path).read()
        start = text.index('"file": "') + len('"file": "')
        end = text.index('"', start)
        line_at = text.index('"start_line": ', end) + len('"start_line": ')
        line_end = text.index(",", line_at)
        text = text[:start] + source + text[end:line_at] + "5" + text[line_end:]
        open(path, "w").write(text)
        # From the model's directory, as a user runs it (the current directory is a source root).
        rc, out, _ = run("explain", "--color", "never", path, check_rc=0, cwd=tmp)
        assert f"{source}:5" in out, out
        assert "return self.fc1(x)" in out, out


def test_unknown_kernel_and_unannotated_files():
    with TempDir() as tmp:
        cache = os.path.join(tmp, "demo")
        copy_tree(DEMO, cache)
        rc, out, err = run("explain", "sdsc_no_such_kernel_0", cache)
        assert rc == 2 and "no kernel directory named 'sdsc_no_such_kernel_0'" in err, (rc, err)
        assert "nearest" not in err, err
        # A near miss: the nearest kernel and directory names are suggested.
        rc, out, err = run("explain", "sdsc_fused_adm_1", cache, check_rc=2)
        assert err.rstrip().endswith("; the nearest names: sdsc_fused_addmm_1 [bad-argument]"), err
        rc, out, err = run("explain", "sdsc_fused_addmm_1@sdsc_fused_addmm_1_b9d3wz0f", cache,
                           check_rc=2)
        assert "the nearest names: sdsc_fused_addmm_1@sdsc_fused_addmm_1_b9d3wz0e [" in err, err
        # The label profile gives the kernel: KERNEL@DIRECTORY-NAME.
        rc, out, err = run("explain", "--format", "json",
                           "sdsc_fused_addmm_1@sdsc_fused_addmm_1_b9d3wz0e", cache, check_rc=0)
        assert [k["dir"] for k in json.loads(out)["kernels"]] == [
            os.path.join(cache, "inductor-spyre", "sdsc_fused_addmm_1_b9d3wz0e")]
        rc, out, err = run("explain", "--color", "never", "sdsc_fused_addmm_1", cache, check_rc=0)
        assert "no debug_handle_" in out and "sdscprov annotate" in out, out


def test_upstream_mappings_give_pre_and_post_grad_nodes():
    with TempDir() as tmp:
        cache = annotated_demo(tmp)
        mappings = os.path.join(tmp, "inductor_provenance_tracking_node_mappings.json")
        json.dump({"preToPost": {"x": ["permute", "mm_default_1"], "l1": ["add_tensor_1"]},
                   "postToPre": {"permute": ["x"], "mm_default_1": ["x"], "add_tensor_1": ["l1"]},
                   "cppCodeToPost": {"sdsc_fused_addmm_linear_relu_0:1": ["permute", "mm_default_1"],
                                     "sdsc_fused_addmm_linear_relu_0:4": ["add_tensor_1"],
                                     "sdsc_fused_addmm_1:2": ["add_tensor"]},
                   "postToCppCode": {}, "version": 2.0}, open(mappings, "w"))
        out = json.loads(run("explain", "--format", "json", "--mappings", mappings,
                             "sdsc_fused_addmm_linear_relu_0", cache, check_rc=0)[1])
        (kernel,) = out["kernels"]
        assert kernel["post_grad_nodes"] == ["permute", "mm_default_1", "add_tensor_1"], kernel
        assert kernel["pre_grad_nodes"] == ["x", "l1"], kernel
        text = run("explain", "--color", "never", "--mappings", mappings, "sdsc_fused_addmm_linear_relu_0",
                   cache, check_rc=0)[1]
        assert "pre-grad nodes:  x, l1" in text and "post-grad nodes: permute, mm_default_1, add_tensor_1" in text

        # A bad mappings file is bad input, reported at its line:col; nothing is explained.
        bad = os.path.join(tmp, "bad.json")
        open(bad, "w").write('{"version": 2.0,\n "cppCodeToPost": {"k": "x"}}')
        rc, out, err = run("explain", "--mappings", bad, "sdsc_fused_addmm_1", cache)
        assert rc == 2 and f"{bad}:2:" in err and "bad-mappings" in err and out == "", (rc, out, err)


def test_kernel_stack_traces_give_source_lines_for_kernels_without_handles():
    with TempDir() as tmp:
        cache = os.path.join(tmp, "demo")
        copy_tree(DEMO, cache)  # not annotated: no handle at all
        model = os.path.join(tmp, "model.py")
        open(model, "w").write("import torch\n\ndef f(x, w):\n    y = x @ w\n    return torch.relu(y)\n")
        torch_file = os.path.join(tmp, "site", "torch", "nn", "functional.py")
        traces = os.path.join(tmp, "inductor_provenance_tracking_kernel_stack_traces.json")
        json.dump({"sdsc_fused_addmm_linear_relu_0:1": [
            f'  File "{model}", line 4, in f\n    y = x @ w\n  File "{torch_file}", line 9, in mm\n',
            f'  File "{model}", line 5, in f\n    return torch.relu(y)\n'],
            "sdsc_other_0": ["  File \"x.py\", line 1, in g\n"]}, open(traces, "w"))
        out = json.loads(run("explain", "--format", "json", "--mappings", traces,
                             "sdsc_fused_addmm_linear_relu_0", cache, check_rc=0)[1])
        (kernel,) = out["kernels"]
        got = [(t["source"]["file"], t["source"]["start_line"], t["source_line_text"]) for t in kernel["stack_traces"]]
        # The frame a handle would take: the innermost outside torch.
        assert got == [(model, 4, "    y = x @ w"), (model, 5, "    return torch.relu(y)")], got
        text = run("explain", "--color", "never", "--mappings", traces, "sdsc_fused_addmm_linear_relu_0",
                   cache, check_rc=0)[1]
        assert "stack traces (kernel level, from the mappings): 2" in text, text
        assert f"  - {model}:4\n    > y = x @ w\n" in text and f"  - {model}:5\n    > return torch.relu(y)\n" in text, text
        # Another kernel's traces are not shown; a trace whose file is not here has no text.
        other = json.loads(run("explain", "--format", "json", "--mappings", traces, "sdsc_fused_addmm_1",
                               cache, check_rc=0)[1])
        assert other["kernels"][0]["stack_traces"] == [], other


def test_shared_upstream_examples_are_read():
    if not os.path.isdir(SHARED_UPSTREAM):
        return SKIP
    with TempDir() as tmp:
        cache = annotated_demo(tmp)
        names = [os.path.relpath(os.path.join(d, f), SHARED_UPSTREAM)
                 for d, _, files in os.walk(SHARED_UPSTREAM) for f in files if f.endswith(".json")]
        assert names
        for name in sorted(names):
            run("explain", "--mappings", os.path.join(SHARED_UPSTREAM, name), "sdsc_fused_addmm_1", cache,
                check_rc=0)


if __name__ == "__main__":
    main([test_by_name_directory_and_file_agree,
          test_text_shows_the_source_line_when_the_source_is_readable,
          test_unknown_kernel_and_unannotated_files,
          test_upstream_mappings_give_pre_and_post_grad_nodes,
          test_kernel_stack_traces_give_source_lines_for_kernels_without_handles,
          test_shared_upstream_examples_are_read])
