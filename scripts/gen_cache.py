#!/usr/bin/env python3
"""Generate a deterministic, realistic torch-spyre SuperDSC (SDSC) kernel cache.

Used for tests and benchmarks of sdscprov. Everything is synthetic: the structure follows
docs/formats.md, the values come from a seeded random generator.
The same arguments always produce the same bytes.

    gen_cache.py OUT_DIR --files N [--seed S] [--eras current,may2026,execute]
                 [--handles populated,null,absent] [--layout inductor-spyre|kernel-cache|mixed]
                 [--manifest PATH] [--incomplete] [--jobs J] [--origins-map PATH]
                 [--strip-to null|absent|mixed] [--keep-originals DIR]
                 [--ideal-cycles SHARE [--ideal-total SHARE] [--ideal-malformed SHARE]]
                 [--compiles N] [--compiler-generated FORMS]
    gen_cache.py OUT_DIR --simplemlp [--manifest PATH]
    gen_cache.py --self-test

What is written (sections of docs/formats.md in brackets):
  - kernel directories [1]: OUT_DIR/inductor-spyre/[<8 hex>_]<kernel>_<8 random>/ or
    OUT_DIR/inductor-spyre-cache/<sha256 key>/, 1-12 files mostly, occasionally up to 68;
  - file naming era per directory [1]: current sdsc_<N>.json + bundle.mlir (with symbol_ids,
    sometimes de-duplicated: more ops than files), may2026 sdsc_<N>_<opfunc>.json + bundle.mlir,
    execute execute/<dir>/sdsc.json (one op per kernel);
  - backend sidecars beside them: execute/<dir>/pagi.json (" : " spacing), segment_size.json,
    execute_dsg.txt; none of them is an SDSC file;
  - SDSC files [2]: one "<N>_<opfunc>" member, 14 levels deep, 15-47 KB, byte-identical to
    Python json.dump(obj, f, indent=2) output (no trailing newline);
  - debug_handle_ [3] per file: populated (first member, id version 2 [3.1]), null, or absent;
  - --incomplete: <key>.tmp.<uuid>/ and failed/<key>.tmp.<uuid>/ entries a scanner must skip.
  - --ideal-cycles SHARE: perf/ideal_cycles.json (docs/ideal-cycles.md) in that share of the
    kernel directories, one entry per SDSC op (op_category, ideal_cycles, op_name, sometimes
    cores); --ideal-total SHARE of them (default 0.5) with a "TOTAL" entry at most the sum of the
    others (1 in 10 with it alone), the rest summed; --ideal-malformed SHARE of them (default 0)
    unusable, the kinds in turn. Without a file, a quarter of the directories have an empty perf/.
    Each kernel_dirs entry of the manifest gains "ideal": {"state": "absent"}, {"state": "ok",
    "cycles", "rule": "total"|"sum", "category" (null with only a TOTAL entry), "entries",
    "other_members"} or {"state": "malformed", "kind", "line", "col": where sdscprov warns}; the
    manifest gains "ideal_cycles" counts. ideal_ns(cycles, MHz) gives a kernel's ideal time as
    sdscprov computes it. Drawn from streams of their own: every other byte stays the same.

Origins (docs/origins-map.md): every kernel directory has a compile model of its own (FX nodes
named k<dir index>_<name>, unique across the cache, with stack traces that sometimes hold
/torch/ frames; one OpSpec per bundle.mlir sdsc_execute line, de-duplicated ops included), and
every populated handle is derived from it by the docs/formats.md rules. The model is drawn from its own
random stream, so the cache's bytes are the same with and without the options below.
  - --origins-map PATH: writes that model as an origins map (version 1), atomically. About 1 in
    15 kernel directories are left out of it (annotate reports them as not in the map); about 1
    in 20 ops have "origins": [] (compiler-generated: drawn among the files written without a
    handle, so none of the files' ops with --handles populated; de-duplicated ops too). The
    manifest gains "origins" (kernels_in_map, kernels_not_in_map, no_origin_files: files of
    mapped directories whose op has no origins, expected_after_annotate: the handle states
    `sdscprov annotate --origins PATH` leaves) and "in_map" per kernel_dirs entry.
  - --strip-to null|absent|mixed: every populated handle is written as null / without the
    member (mixed: alternating over the populated files in plan order), byte for byte what
    json.dump(indent=2) gives for the object without provenance. Incomplete entries keep
    theirs. Manifest counts describe the files as written; "stripped", "strip_to" and
    "stripped_files" say what was stripped.
  - --keep-originals DIR: DIR receives the cache as it is without --strip-to (every file, same
    relative paths), so annotate's output can be compared with cmp.
  - --compiles N: a build server's cache, which keeps every compile: kernel directory i is of
    compile i % N, and the origins map is compile 0's (the others' directories are not in it,
    as another compile's map would list them). Manifest: "compiles", and "compile" per
    kernel_dirs entry.
  - --compiler-generated FORMS (of sourceless-handle, restickify, no-origins): the ops without FX
    origins are ops the compiler created (docs/formats.md, "Compiler-generated ops"), written in
    these forms in turn: sourceless-handle, a ReStickifyOpHBM op whose file holds a populated
    handle with source null and a source-less creation pass in its transform_history;
    restickify, a ReStickifyOpHBM op without a handle (null or absent); no-origins, the op as
    planned without a handle (only the map says it has no FX origins). Without it they are all
    of the last form. Manifest: "compiler_generated" (files by form) and per kernel_dirs entry.

Speed: each opfunc gets a handful of template documents built once (json.dumps); a file is a
template with its addresses filled in by str.format plus a handle serialised on its own.
Large runs are spread over processes (--jobs): 100,000 files (2.8 GB) take about 22 s with
--jobs 2 on tmpfs, 25 s with --origins-map (a slow disk adds its own time).
"""

import argparse
import hashlib
import json
import multiprocessing
import os
import random
import re
import sys
import tempfile

# ---------------------------------------------------------------------------------------------
# debug_handle_ ids (docs/formats.md, id version 2)

_SHORT_ESCAPES = {'"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r',
                  '\t': '\\t'}


def json_string_ascii(s):
    """A JSON string literal escaped like Python's json.dumps(ensure_ascii=True)."""
    out = ['"']
    for ch in s:
        code = ord(ch)
        if ch in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[ch])
        elif 0x20 <= code < 0x7F:
            out.append(ch)
        elif code < 0x10000:
            out.append('\\u%04x' % code)
        else:
            code -= 0x10000
            out.append('\\u%04x\\u%04x' % (0xD800 | (code >> 10), 0xDC00 | (code & 0x3FF)))
    out.append('"')
    return ''.join(out)


def _json_scalar(v):
    if v is None:
        return 'null'
    if isinstance(v, bool):
        return 'true' if v else 'false'
    if isinstance(v, int):
        return str(v)
    return json_string_ascii(v)


def handle_id_text_v2(aten_op, fused_from_ids, ir_chain, source):
    """The compact, key-sorted text that id version 2 hashes (transform_history excluded)."""
    if source is None:
        src = 'null'
    else:
        src = ('{"end_col":%s,"end_line":%s,"file":%s,"start_col":%s,"start_line":%s}' % (
            _json_scalar(source['end_col']), _json_scalar(source['end_line']),
            _json_scalar(source['file']), _json_scalar(source['start_col']),
            _json_scalar(source['start_line'])))
    return '{"aten_op":%s,"fused_from":[%s],"ir_chain":[%s],"source":%s,"version":2}' % (
        _json_scalar(aten_op), ','.join(json_string_ascii(i) for i in fused_from_ids),
        ','.join(json_string_ascii(n) for n in ir_chain), src)


def handle_id_v2(aten_op, fused_from_ids, ir_chain, source):
    """SHA-256 of the id text, first 8 bytes big-endian, shifted right by one, in decimal."""
    digest = hashlib.sha256(handle_id_text_v2(aten_op, fused_from_ids, ir_chain, source)
                            .encode('ascii')).digest()
    return str(int.from_bytes(digest[:8], 'big') >> 1)


def _source(path, line):
    return {"file": path, "start_line": line, "start_col": 0, "end_line": None, "end_col": None}


# The four test vectors of docs/formats.md: (aten_op, fused_from ids, ir_chain, source, id).
ID_TEST_VECTORS = [
    ("aten.add.Tensor", [], ["add", "buf0"], _source("/home/senuser/compile_add.py", 11),
     "8249498605557491263"),
    ("aten._softmax.default", [], ["amax", "buf0"], _source("/home/senuser/ex/ops.py", 11),
     "1791139761021750516"),
    (None, [], ["clone_60", "buf312"], None, "6460594415264223131"),
    (None, [], ["batched_matmul_default_1"], None, "8704335446284134785"),
]
FIRST_VECTOR_SHA256 = "e4f8368c4eab4c7fc1d1eee82ef67227356632d224258918e27ecf6d068c5435"

# ---------------------------------------------------------------------------------------------
# Vocabulary (synthetic, shaped after docs/formats.md)

ATEN_NAMES = [
    'add', 'addmm', 'amax', 'arange', 'argmax', 'avg_pool2d', 'bitwise_and', 'bmm', 'cat',
    'clamp', 'clone', 'convolution', 'cumsum', 'div', 'embedding', 'erf', 'exp', 'expand',
    'full_like', 'gelu', 'index_put', 'index_select', 'layer_norm', 'linear', 'logical_not',
    'masked_fill', 'maximum', 'mean', 'mm', 'mul', 'native_layer_norm', 'neg', 'permute', 'pow',
    'relu', 'repeat_interleave', 'rsqrt', 'scaled_dot_product_attention', 'scatter_add', 'select',
    'sigmoid', 'silu', 'slice', 'softmax', 'split_with_sizes', 'sub', 'sum', 't', 'tanh', 'topk',
    'transpose', 'unsqueeze', 'var_mean', 'view', 'where', 'zeros_like', '_softmax', '_to_copy',
]
COMMON_ATEN = ['add', 'addmm', 'bmm', 'linear', 'mm', 'mul', 'relu', 'silu', 'split_with_sizes',
               't', 'amax', 'exp', 'sub', 'sum', 'div', 'maximum', 'unsqueeze', 'transpose',
               'clone', 'permute', 'neg', 'softmax', '_softmax', 'view', 'rsqrt', 'mean', 'pow']

# ATen name -> Spyre ops it lowers to (rough, enough to make kernels look coherent).
ATEN_TO_OPFUNCS = {
    'add': ['add'], 'addmm': ['batchmatmul', 'add'], 'bmm': ['batchmatmul'],
    'mm': ['batchmatmul'], 'linear': ['batchmatmul'], 'relu': ['relufwd'], 'amax': ['max'],
    'maximum': ['max'], 'exp': ['exp'], 'neg': ['neg'], 'div': ['realdiv'], 'mul': ['mul'],
    'silu': ['neg', 'exp', 'add', 'realdiv', 'mul'],
    'softmax': ['max', 'sub', 'exp', 'sum', 'realdiv'],
    '_softmax': ['max', 'sub', 'exp', 'sum', 'realdiv'], 'clone': ['identity'],
    '_to_copy': ['identity'], 'permute': ['ReStickifyOpHBM'], 't': ['ReStickifyOpHBM'],
    'transpose': ['ReStickifyOpHBM', 'ReStickifyOpLx'], 'sub': ['sub'], 'sum': ['sum'],
    'view': ['shuffle'], 'mean': ['sum', 'realdiv'], 'rsqrt': ['realdiv'], 'pow': ['mul'],
}
OPFUNCS = ['add', 'sub', 'mul', 'realdiv', 'batchmatmul', 'relufwd', 'max', 'sum', 'exp', 'neg',
           'identity', 'ReStickifyOpHBM', 'ReStickifyOpLx', 'shuffle']
BINARY_OPFUNCS = {'add', 'sub', 'mul', 'realdiv', 'batchmatmul'}
RARE_OPFUNC = 'LXRelayoutSTCDPOpLx'   # an experimental-branch name, rare
SYMBOLIC_OPFUNCS = BINARY_OPFUNCS | {'relufwd', 'max', 'exp', 'neg'}

# Spyre op -> (FX origin base name, original_aten) candidates for a handle.
OPFUNC_ORIGINS = {
    'add': [('add', 'aten.add.Tensor'), ('add_tensor', 'aten.add.Tensor'),
            ('addmm', 'aten.addmm.default')],
    'sub': [('sub', 'aten.sub.Tensor')],
    'mul': [('mul', 'aten.mul.Tensor'), ('pow', 'aten.pow.Tensor_Scalar')],
    'realdiv': [('div', 'aten.div.Tensor'), ('rsqrt', 'aten.rsqrt.default')],
    'batchmatmul': [('mm_default', 'aten.mm.default'), ('bmm', 'aten.bmm.default'),
                    ('addmm', 'aten.addmm.default'), ('batched_matmul_default', 'aten.bmm.default')],
    'relufwd': [('relu', 'aten.relu.default')],
    'max': [('amax', 'aten.amax.default'), ('amax', 'aten._softmax.default'),
            ('maximum', 'aten.maximum.default')],
    'sum': [('sum', 'aten.sum.dim_IntList'), ('mean', 'aten.mean.dim')],
    'exp': [('exp', 'aten.exp.default')],
    'neg': [('neg', 'aten.neg.default')],
    'identity': [('clone', 'aten.clone.default'), ('_to_copy', 'aten._to_copy.default')],
    'ReStickifyOpHBM': [('permute', 'aten.permute.default'), ('t', 'aten.t.default')],
    'ReStickifyOpLx': [('transpose', 'aten.transpose.int')],
    'shuffle': [('view', 'aten.view.default')],
    RARE_OPFUNC: [('transpose', 'aten.transpose.int')],
}
SECONDARY_ORIGINS = [('permute', 'aten.permute.default'), ('view', 'aten.view.default'),
                     ('expand', 'aten.expand.default'), ('unsqueeze', 'aten.unsqueeze.default'),
                     ('convert_element_type', 'prims.convert_element_type.default'),
                     ('split_with_sizes', 'aten.split_with_sizes.default')]
RESTICKIFY_REASONS = [None, "producer stick dimension differs from consumer",
                      "layout change before batchmatmul", "stick size mismatch on input 1"]
USERS = ['senuser', 'mlperf', 'dev', 'ci-runner', 'ana', 'kwame', 'li.wei', 'zo\u00eb']
PROJECTS = ['models', 'work/llm', 'src/bench', 'exp/attn', 'repo/examples']
SOURCE_FILES = ['model.py', 'mlp.py', 'attention.py', 'layers/ffn.py', 'run_inference.py',
                'compile_add.py', 'ops.py', 'granite/modeling.py', 'tests/test_ops.py']
MKDTEMP_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789_'

# ---------------------------------------------------------------------------------------------
# Template documents: built once per process from a fixed seed, then filled per file.

FILE_MIN = 15 * 1024           # what every written SDSC file satisfies (checked when written)
FILE_MAX = 47 * 1000
HANDLE_MAX = 2400              # longest handle member make_handle produces is about 2.1 KB
_KEY_SENTINEL = '@@K@@'
_SLOT_RE = re.compile(r'"@@S(\d+)@@"')


class Template:
    """One SDSC document with its per-core addresses left as slots.

    body_fmt is the json.dumps(indent=2) text after the op object's opening line, with
    braces doubled and every address slot replaced by {} (str.format fields, in order).
    slots[i] = (tensor index, core index) of field i.
    """

    def __init__(self, opfunc, shape, body_fmt, slots, min_size, max_size):
        self.opfunc = opfunc
        self.shape = shape
        self.body_fmt = body_fmt
        self.slots = slots
        self.min_size = min_size      # bounds of the rendered size without a handle
        self.max_size = max_size

    def fits(self):
        return self.min_size >= FILE_MIN and self.max_size + HANDLE_MAX <= FILE_MAX


def _folds_for_dim(size, slices, is_stick):
    per_core = max(1, size // slices)
    funcs = [{"Affine": {"alpha_": per_core, "beta_": 0}},
             {"Affine": {"alpha_": 0, "beta_": 0}},
             {"Affine": {"alpha_": 0, "beta_": 0}}]
    attrs = [{"factor_": slices, "label_": "core_fold"},
             {"factor_": 1, "label_": "corelet_fold"},
             {"factor_": 1, "label_": "row_fold"}]
    if is_stick and per_core >= 64:
        funcs += [{"Affine": {"alpha_": 64, "beta_": 0}}, {"Affine": {"alpha_": 1, "beta_": 0}}]
        attrs += [{"factor_": per_core // 64, "label_": "elem_arr_1"},
                  {"factor_": 64, "label_": "elem_arr_0"}]
    else:
        funcs += [{"Affine": {"alpha_": 1, "beta_": 0}}]
        attrs += [{"factor_": per_core, "label_": "elem_arr_0"}]
    return {"dim_prop_func": funcs, "dim_prop_attr": attrs}


def _core_slices(cores, dims, wk):
    """coreIdToWkSlice_: core id -> slice index per dim (first dim varies fastest)."""
    result = {}
    for c in range(cores):
        rest, entry = c, {}
        for d in dims:
            entry[d] = rest % wk[d]
            rest //= wk[d]
        result[str(c)] = entry
    return result


def _random_shape(rng, opfunc):
    cores = rng.choice([32, 32, 32, 16, 16, 8])
    if opfunc == 'batchmatmul':
        dims = ['mb', 'in', 'out']
    elif rng.random() < 0.25:
        dims = ['mb', 'x', 'out']
    else:
        dims = ['mb', 'out']
    sizes = {d: rng.choice([64, 128, 256, 512, 1024, 2048, 4096]) for d in dims}
    sizes['mb'] = rng.choice([64, 128, 256, 512, 1024])
    if 'in' in sizes:
        sizes['in'] = rng.choice([1024, 2048, 4096, 12800])
    if 'out' in sizes and rng.random() < 0.3:
        sizes['out'] = rng.choice([12800, 25600, 3200])
    # spread the cores over the dims as powers of two
    wk = {d: 1 for d in dims}
    left = cores
    split_dims = [d for d in dims if d != 'in'] or dims
    while left > 1:
        d = rng.choice(split_dims)
        wk[d] *= 2
        left //= 2
    for d in dims:
        sizes[d] = max(sizes[d], wk[d] * 64)
    n_in = 2 if opfunc in BINARY_OPFUNCS else 1
    tensors = []
    for i in range(n_in + 1 + rng.choice([0, 0, 0, 1, 1, 2])):
        if opfunc == 'batchmatmul' and i < 3:
            ds_type = ['INPUT', 'KERNEL', 'OUTPUT'][i]
        elif opfunc.startswith('ReStickify') and i == 1:
            ds_type = 'KERNEL'
        else:
            ds_type = 'OUTPUT'
        component = 'lx' if (i > n_in or rng.random() < 0.2 or opfunc.endswith('Lx')) else 'hbm'
        order = list(dims)
        if rng.random() < 0.5:
            order.reverse()
        tensors.append({"component": component, "ds_type": ds_type, "order": order,
                        "stick": order[0] if rng.random() < 0.5 else order[-1],
                        "hbm_cycle": rng.choice([1, 2, 4, 8, cores]),
                        "stride": rng.choice([1 << 20, 1 << 21, 4 << 20, 1 << 16])})
    return {"cores": cores, "dims": dims, "sizes": sizes, "wk": wk, "tensors": tensors,
            "n_inputs": n_in, "sched_len": rng.choice([1, 1, 1, 2, 3]),
            "time_folds": rng.choice([1, 1, 1, 2, 4]), "dsp_extras": rng.random() < 0.5,
            "with_lx_mirror": rng.random() < 0.3, "symbolic": False}


def _build_doc(opfunc, shape):
    """The op object of one SDSC document, with slot sentinels for per-core addresses."""
    cores, dims, sizes, wk = shape['cores'], shape['dims'], shape['sizes'], shape['wk']
    slot_list = []

    def addr_slot(tensor, core):
        slot_list.append((tensor, core))
        return '@@S%d@@' % (len(slot_list) - 1)

    def ss_block():
        block = {"name_": "core"}
        for d in dims:
            block[d + '_'] = max(1, sizes[d] // wk[d])
        if shape['dsp_extras']:
            for k in ("symbolicDimInfo_", "maxSymbolicVolume_", "coreletSplit_", "rowSplit_",
                      "peSfpSplit_", "paddingSizes_"):
                block[k] = {}
        return block

    nodes, lds = [], []
    for i, t in enumerate(shape['tensors']):
        node = {"nodeType_": "allocate", "name_": "allocate-Tensor%d_%s" % (i, t['component']),
                "prev_": "", "ldsIdx_": i, "component_": t['component']}
        if shape['symbolic'] and i == 0:
            node["isStartAddrSymbolic_"] = 1
        node["layoutDimOrder_"] = list(t['order'])
        node["maxDimSizes_"] = [-1] * len(dims)
        node["indirectAllocType_"] = "no_indirection"
        node["startAddressCoreCorelet_"] = {
            "dim_prop_func": [{"Map": {}}, {"Const": {}}, {"Const": {}}],
            "dim_prop_attr": [{"factor_": cores, "label_": "core"},
                              {"factor_": 1, "label_": "corelet"},
                              {"factor_": 1, "label_": "time"}],
            "data_": {"[%d, 0, 0]" % c: addr_slot(i, c) for c in range(cores)}}
        node["coordinates_"] = {
            "coordInfo": {d: {"spatial": 3, "temporal": 0, "elemArr": k + 1, "padding": "nopad",
                              "folds": _folds_for_dim(sizes[d], wk[d], d == t['stick'])}
                          for k, d in enumerate(t['order'])},
            "coreIdToWkSlice_": {}}
        nodes.append(node)
        mem = {t['component']: {"isPresent": 1}}
        if shape['with_lx_mirror'] and t['component'] == 'hbm':
            mem["lx"] = {"isPresent": 1}
        lds.append({"ldsIdx_": i, "dsName_": "Tensor%d" % i, "dsType_": t['ds_type'],
                    "scale_": [1] * len(dims), "wordLength": 2, "dataFormat_": "SEN169_FP16",
                    "memOrg_": mem})

    primary = {}
    for t in shape['tensors']:
        if t['ds_type'] not in primary:
            primary[t['ds_type']] = {"layoutDimOrder_": list(t['order']),
                                     "stickDimOrder_": [t['stick']], "stickSize_": [64]}
    n_in = shape['n_inputs']
    n_t = len(shape['tensors'])
    compute = [{"exUnit": "pt" if opfunc == 'batchmatmul' else "sfp",
                "opFuncName": opfunc,
                "attributes_": {"dataFormat_": "SEN169_FP16", "fidelity_": "regular"},
                "location": "Inner",
                "inputLabeledDs": ["Tensor%d-idx%d" % (i, i) for i in range(n_in)],
                "outputLabeledDs": ["Tensor%d-idx%d" % (n_t - 1, n_t - 1)]}]
    n_shape = {"name_": "n"}
    for d in dims:
        n_shape[d + '_'] = sizes[d]
    dsc = {
        "numCoresUsed_": cores, "numCoreletsUsed_": 1, "coreIdsUsed_": list(range(cores)),
        "N_": n_shape, "coordinateMasking_": {}, "maskingConstId_": -1,
        "dataStageParam_": {"0": {"ss_": ss_block(), "el_": ss_block()}},
        "primaryDsInfo_": primary, "scheduleTree_": nodes, "labeledDs_": lds,
        "constantInfo_": "{}", "computeOp_": compute}
    tf = shape['time_folds']
    schedule = {}
    for c in range(cores):
        schedule[str(c)] = [[-1, 0, 0, 0] if k == 0 else [k - 1, 0, k, 0]
                            for k in range(shape['sched_len'])]
    op = {
        "sdscFoldProps_": [{"factor_": tf, "label_": "time"}],
        "sdscFolds_": {"dim_prop_func": [{"Affine": {"alpha_": 1, "beta_": 0}}],
                       "dim_prop_attr": [{"factor_": tf, "label_": "time"}],
                       "data_": {"[%d]" % k: str(k) for k in range(tf)}},
        "coreFoldProp_": {"factor_": cores, "label_": "core"},
        "coreletFoldProp_": {"factor_": 1, "label_": "corelet"},
        "numCoresUsed_": cores,
        "coreIdToDsc_": {str(c): 0 for c in range(cores)},
        "numWkSlicesPerDim_": {d: wk[d] for d in dims},
        "coreIdToWkSlice_": _core_slices(cores, dims, wk),
        "coreIdToDscSchedule": schedule,
        "dscs_": [{opfunc: dsc}],
    }
    return op, slot_list


_OP_PREFIX = '{\n  "%s": {\n' % _KEY_SENTINEL


def _make_template(opfunc, shape):
    op, slots = _build_doc(opfunc, shape)
    text = json.dumps({_KEY_SENTINEL: op}, indent=2)
    assert text.startswith(_OP_PREFIX)
    body = text[len(_OP_PREFIX):]
    # Slot sentinels appear in creation order; check it so field i is slots[i].
    found = [int(m) for m in _SLOT_RE.findall(body)]
    assert found == list(range(len(slots)))
    body_fmt = _SLOT_RE.sub('\x00', body.replace('{', '{{').replace('}', '}}')).replace('\x00', '{}')
    # size bounds: addresses are 1 to 11 digits (or a short negative id), keys "<N>_<opfunc>"
    # with N below 100
    head = len('{\n  "": {\n') + len(opfunc)
    min_size = head + 2 + len(_SLOT_RE.sub('"0"', body))
    max_size = head + 3 + len(_SLOT_RE.sub('"12345678901"', body))
    return Template(opfunc, shape, body_fmt, slots, min_size, max_size)


class TemplateSet:
    """A handful of templates per opfunc, deterministic for a given seed."""

    def __init__(self, seed, per_opfunc=6):
        rng = random.Random('templates:%d' % seed)
        self.by_opfunc = {}
        for opfunc in OPFUNCS + [RARE_OPFUNC]:
            chosen = []
            # plain templates, plus a few whose tensor 0 has symbolic (bundle argument)
            # addresses for the current era
            for symbolic, wanted in ((False, per_opfunc), (True, per_opfunc // 2)):
                if symbolic and opfunc not in SYMBOLIC_OPFUNCS:
                    continue
                found, attempts = 0, 0
                while found < wanted and attempts < 400:
                    attempts += 1
                    shape = _random_shape(rng, opfunc)
                    shape['symbolic'] = symbolic
                    t = _make_template(opfunc, shape)
                    if t.fits():
                        chosen.append(t)
                        found += 1
                assert found, (opfunc, symbolic)
            chosen.sort(key=lambda t: t.max_size)
            self.by_opfunc[opfunc] = chosen

    def pick(self, rng, opfunc, symbolic):
        """A template; symbolic ones only when asked and the opfunc has them."""
        cands = [t for t in self.by_opfunc[opfunc] if t.shape['symbolic'] == symbolic]
        return rng.choice(cands or [t for t in self.by_opfunc[opfunc] if not t.shape['symbolic']])


# ---------------------------------------------------------------------------------------------
# Origins (docs/formats.md, docs/origins-map.md): the FX nodes and OpSpecs of one kernel directory,
# and the handle torch-spyre derives from them. Every populated handle the generator writes is
# derived here from the same data --origins-map writes, so `sdscprov annotate` can re-derive it.

def _origin_name(rng, base):
    return base if rng.random() < 0.4 else '%s_%d' % (base, rng.randint(1, 60))


NO_ORIGIN_RATE = 1 / 20        # ops with "origins": [] (compiler-generated)
GENERATED_FORMS = ['sourceless-handle', 'restickify', 'no-origins']
# torch-spyre's passes whose new buffers have no model source (docs/formats.md)
SOURCELESS_PASSES = ['insert_restickify', 'insert_post_mutation_restickify', 'insert_bmm_padding']
NOT_IN_MAP_RATE = 1 / 15       # kernel directories the origins map leaves out
ORIGIN_NODE_RATE = 0.85        # ops whose buffer has an origin_node
# Frames inside torch: a source comes from one only when the trace has no frame outside torch.
TORCH_FRAMES = [
    ('/usr/lib/python3/dist-packages/torch/nn/modules/module.py', 1751, '_call_impl',
     'return forward_call(*args, **kwargs)'),
    ('/usr/lib/python3/dist-packages/torch/nn/modules/module.py', 1740, '_wrapped_call_impl',
     'return self._call_impl(*args, **kwargs)'),
    ('/opt/conda/lib/python3.12/site-packages/torch/nn/modules/linear.py', 125, 'forward',
     'return F.linear(input, self.weight, self.bias)'),
    ('/opt/conda/lib/python3.12/site-packages/torch/nn/functional.py', 2104, 'softmax',
     'ret = input.softmax(dim)'),
    ('/home/dev/pytorch/torch/_decomp/decompositions.py', 1460, 'addmm',
     'out = alpha * torch.mm(mat1, mat2)'),
    ('/usr/lib/python3/dist-packages/torch/_refs/__init__.py', 2210, '_reduction',
     'result = prim(a, dims)'),
]
USER_CODE = ['x = self.fc1(x)', 'return x + y', 'h = torch.relu(h)', 'out = model(x)',
             'attn = q @ k.transpose(-2, -1)', 'y = self.act(self.up(x)) * self.gate(x)',
             'return torch.softmax(scores, dim=-1)', 'x = x.view(b, s, self.n_heads, -1)']
# user paths that mention torch without being inside it (their frames are not skipped)
TORCHISH_USER_FILES = ['torchbench/run.py', 'torch_models/mlp.py', 'src/torch.py']


def _frame_text(path, line, func, code):
    return '  File "%s", line %d, in %s\n    %s\n' % (path, line, func, code)


def _agreed(values):
    """The one distinct non-null value, else None (nulls do not disagree)."""
    found = None
    for v in values:
        if v is None:
            continue
        if found is not None and v != found:
            return None
        found = v
    return found


class OriginsModel:
    """The FX nodes and OpSpecs of one kernel directory, drawn from their own random stream.

    nodes: FX node name -> {"original_aten", "stack_trace"} (origins map "nodes" entries);
    sources: node name -> the source its stack trace gives (docs/formats.md) or None. Names carry the
    directory's prefix, so they are unique across the whole map.
    """

    def __init__(self, rng, prefix, pool):
        self.rng = rng
        self.prefix = prefix
        self.pool = pool
        self.nodes = {}
        self.sources = {}

    def _stack_trace(self):
        """(stack_trace, source) of a new node: a user frame with torch frames around it, only
        torch frames (the source is then the last frame), or no trace at all."""
        rng = self.rng
        roll = rng.random()
        if roll < 0.4:
            return None, None
        if roll < 0.45:
            frames = [rng.choice(TORCH_FRAMES) for _ in range(rng.randint(1, 3))]
            path, line = frames[-1][0], frames[-1][1]
            return ''.join(_frame_text(*f) for f in frames), _source(path, line)
        path, line = rng.choice(self.pool)
        if rng.random() < 0.03:
            path = path.rsplit('/', 1)[0] + '/' + rng.choice(TORCHISH_USER_FILES)
        frames = []
        if rng.random() < 0.4:                      # the caller's frame, outermost
            p, l = rng.choice(self.pool)
            frames.append((p, l + 3, '<module>', 'out = model(x)'))
        if rng.random() < 0.5:                      # nn.Module call machinery
            frames.append(TORCH_FRAMES[rng.randint(0, 1)])
        frames.append((path, line, 'forward', rng.choice(USER_CODE)))
        for _ in range(rng.choice([0, 0, 1, 1, 2])):  # inside torch, innermost: skipped
            frames.append(rng.choice(TORCH_FRAMES[2:]))
        return ''.join(_frame_text(*f) for f in frames), _source(path, line)

    def node(self, base, aten):
        """The name of an FX node drawn from base; an existing node of that name is reused."""
        name = self.prefix + _origin_name(self.rng, base)
        if name not in self.nodes:
            trace, source = self._stack_trace()
            if self.rng.random() < 0.04:
                aten = None
            self.nodes[name] = {"original_aten": aten, "stack_trace": trace}
            self.sources[name] = source
        return name

    def op(self, opfunc, buffer, no_origin):
        """One OpSpec of the origins map."""
        rng = self.rng
        if no_origin:
            history = []
            if opfunc.startswith('ReStickify') and rng.random() < 0.5:
                history.append({"kind": "rewrite", "pass_name": "insert_restickify",
                                "reason": None})
            return {"opfunc": opfunc, "buffer": buffer, "origins": [], "origin_node": None,
                    "transform_history": history}
        n_origins = rng.choices([1, 2, 3], weights=[70, 25, 5])[0]
        base, aten = rng.choice(OPFUNC_ORIGINS[opfunc])
        names = [self.node(base, aten)]
        for _ in range(n_origins - 1):
            b, a = rng.choice(SECONDARY_ORIGINS)
            name = self.node(b, a)
            if name not in names:
                names.append(name)
        history = []
        if opfunc.startswith('ReStickify') or opfunc == RARE_OPFUNC or rng.random() < 0.03:
            history.append({"kind": "rewrite", "pass_name": "insert_restickify",
                            "reason": rng.choice(RESTICKIFY_REASONS)})
        # origins in the map's order: primary first, so often not sorted
        return {"opfunc": opfunc, "buffer": buffer, "origins": names,
                "origin_node": names[0] if rng.random() < ORIGIN_NODE_RATE else None,
                "transform_history": history}

    def handle(self, op):
        """The debug_handle_ torch-spyre derives for op (docs/formats.md), or None without origins."""
        names = sorted(set(op['origins']))
        if not names:
            return None
        atens = [self.nodes[n]['original_aten'] for n in names]
        sources = [self.sources[n] for n in names]
        primary = op['origin_node']
        if primary is not None:
            aten_op = self.nodes[primary]['original_aten']
            source = self.sources[primary] or _agreed(sources)
        else:
            aten_op = _agreed(atens)
            source = _agreed(sources)
        children = []
        if len(names) >= 2:
            for name, a, s in zip(names, atens, sources):
                children.append({"id": handle_id_v2(a, [], [name], s), "source": s, "aten_op": a,
                                 "ir_chain": [name], "fused_from": [], "transform_history": []})
        ir_chain = names + [op['buffer']]
        return {"id": handle_id_v2(aten_op, [c['id'] for c in children], ir_chain, source),
                "source": source, "aten_op": aten_op, "ir_chain": ir_chain, "fused_from": children,
                "transform_history": [dict(h) for h in op['transform_history']]}


_FRAME_RE = re.compile(r'File "([^"]+)", line (\d+)')


def source_of_stack_trace(trace):
    """docs/formats.md: the innermost frame outside /torch/, else the last frame (for the self-test)."""
    frames = [(p, int(l)) for p, l in _FRAME_RE.findall(trace or '')]
    user = [f for f in frames if '/torch/' not in f[0]]
    chosen = user[-1] if user else (frames[-1] if frames else None)
    return _source(*chosen) if chosen else None


def make_handle(rng, opfunc, buf_index, source_pool):
    """A populated debug_handle_ of a one-op model (self-test helper)."""
    model = OriginsModel(rng, 'self_test_', source_pool)
    return model.handle(model.op(opfunc, 'buf%d' % buf_index, False))


def handle_member(kind, handle=None):
    """The debug_handle_ member line(s) as they appear first in the op object (indent 4)."""
    if kind == 'absent':
        return ''
    if kind == 'null':
        return '    "debug_handle_": null,\n'
    return '    "debug_handle_": ' + json.dumps(handle, indent=2).replace('\n', '\n    ') + ',\n'


_HANDLE_KEY = '"debug_handle_": '
_DECODER = json.JSONDecoder()


def strip_handle_text(text, to):
    """text with its populated debug_handle_ replaced by null (to='null') or removed with the
    ",\n    " after it (to='absent'): the bytes json.dump(indent=2) gives for the object
    without provenance. The member is the op object's first (docs/formats.md)."""
    head = text.index('\n', text.index('\n') + 1) + 1 + 4   # after '{\n  "<key>": {\n    '
    if not text.startswith(_HANDLE_KEY, head):
        raise ValueError('debug_handle_ is not the first member')
    value = head + len(_HANDLE_KEY)
    _, end = _DECODER.raw_decode(text, value)
    if to == 'null':
        return text[:value] + 'null' + text[end:]
    if not text.startswith(',\n    ', end):
        raise ValueError('debug_handle_ is the last member')
    return text[:head] + text[end + len(',\n    '):]


def render_sdsc(template, key, handle_text, addresses):
    """One SDSC file's text; addresses[t] is the list of per-core values of tensor t."""
    fields = ['"%s"' % addresses[t][c] for t, c in template.slots]
    return '{\n  ' + json_string_ascii(key) + ': {\n' + handle_text + template.body_fmt.format(*fields)


def tensor_addresses(rng, template, symbol_base=None):
    """Per-core decimal-string addresses for every tensor; symbolic ids (negative) for tensor 0
    when symbol_base is given."""
    shape = template.shape
    cores = shape['cores']
    result = []
    for i, t in enumerate(shape['tensors']):
        if symbol_base is not None and i == 0:
            result.append([str(-(symbol_base + c)) for c in range(cores)])
        elif t['component'] == 'lx':
            base = rng.randrange(0, 1 << 20, 2048)
            result.append([str(base)] * cores)
        else:
            base = (1 << 35) + rng.randrange(0, 1 << 34, 1 << 20)
            cycle, stride = t['hbm_cycle'], t['stride']
            result.append([str(base + (c % cycle) * stride) for c in range(cores)])
    return result


# ---------------------------------------------------------------------------------------------
# Backend sidecars (not SDSC files) and bundle.mlir

def pagi_text(rng, name):
    addr_map = ''
    if rng.random() < 0.3:
        addr_map = ''.join('    "%d" : "%d",\n' % (k, (1 << 35) + rng.randrange(0, 1 << 30, 4096))
                           for k in range(rng.randint(1, 3)))
        addr_map = addr_map[:-2] + '\n'
    return ('{\n  "dsName_" : "%s",\n  "isMarker_" : 0,\n  "defaultAddr_" : "%d",\n'
            '  "addrMap_" : [\n%s  ],\n  "addrMapTag_" : [\n  ],\n  "inputSym_" : [],\n'
            '  "addrIdxSym_" : [],\n  "variableDefs_" : {\n  }\n}' % (
                name, (7 << 34) + rng.randrange(0, 1 << 24, 4096), addr_map))


def segment_size_text(rng):
    names = ['output', 'input', 'model', 'stack', 'heap', 'reserve1', 'reserve2', 'const']
    rows = ['    "%d" : { "name" : "%s", "size" : %d }' % (
        i, n, rng.choice([4096, 8192, 16384]) if n != 'const' else rng.randint(64, 4000))
        for i, n in enumerate(names)]
    return '{\n  "memReqPerSegment" : {\n' + ',\n'.join(rows) + '\n  }\n}\n'


def execute_dsg_text(name):
    return ('N 0 SenPreparedOp %s\nE 0 1\nN 1 SenProgAddrGenerate %s\n' % (name, name))


def bundle_text(lines, args):
    """bundle.mlir: args = [(arg index, cores, stride)] for symbolic inputs; lines are the
    sdsc_execute lines (without indentation), one per OpSpec."""
    sig = ', '.join('%%arg_%d_base_addr: !sdscbundle.input_arg<index>' % a for a, _, _ in args)
    out = ['module {', '\tfunc.func @sdsc_bundle(%s) {' % sig]
    for a, _, _ in args:
        out.append('\t\t%%arg_%d = sdscbundle.input_arg_extract value from %%arg_%d_base_addr : '
                   '!sdscbundle.input_arg<index> -> index' % (a, a))
    for a, cores, stride in args:
        for c in range(1, cores):
            off = c * stride
            out.append('\t\t%%arg_%d_core_offset_%d = arith.constant %d : index' % (a, off, off))
            out.append('\t\t%%arg_%d_core_%d = arith.addi %%arg_%d, %%arg_%d_core_offset_%d : index'
                       % (a, off, a, a, off))
    out += ['\t\t' + line for line in lines]
    out += ['\t\treturn', '\t}', '}']
    return '\n'.join(out) + '\n'


# ---------------------------------------------------------------------------------------------
# Planning (main process): directories, eras, file counts, handle kinds

def _rand_chars(rng, n, alphabet):
    return ''.join(rng.choice(alphabet) for _ in range(n))


def _kernel_name(rng, state):
    if state['names'] and rng.random() < 0.25:      # a recompile of a kernel seen before
        return rng.choice(state['names'])
    if rng.random() < 0.1:
        state['counter'] = 0                          # a new compile restarts the counter
    counter = state['counter']
    state['counter'] += 1
    roll = rng.random()
    if roll < 0.05:
        aten = []
    elif roll < 0.06:                                 # a few names over 200 characters
        aten, pool = [], list(ATEN_NAMES)
        rng.shuffle(pool)
        for a in pool:                                # fill up to 236 (dir names stay < 256)
            if len('sdsc_fused_%s_%d' % ('_'.join(sorted(aten + [a])), counter)) <= 236:
                aten.append(a)
    else:
        aten = rng.sample(COMMON_ATEN, rng.choices([1, 2, 3, 4, 5], weights=[30, 30, 20, 12, 8])[0])
    if aten:
        name = 'sdsc_fused_%s_%d' % ('_'.join(sorted(set(aten))), counter)
    else:
        name = 'sdsc_fused_%d' % counter
    state['names'].append(name)
    state['aten'][name] = sorted(set(aten))
    return name


def _opfuncs_for(rng, aten, n):
    pool = []
    for a in aten:
        pool += ATEN_TO_OPFUNCS.get(a, [])
    if not pool:
        pool = OPFUNCS
    ops = []
    for _ in range(n):
        r = rng.random()
        if r < 0.12:
            ops.append('ReStickifyOpHBM')
        elif r < 0.125:
            ops.append(RARE_OPFUNC)
        elif r < 0.2:
            ops.append(rng.choice(OPFUNCS))
        else:
            ops.append(rng.choice(pool))
    return ops


def plan_cache(n_files, seed, eras, handle_kinds, layout, incomplete):
    """Everything counted in the manifest, decided up front; contents are drawn per directory
    from dir_seed by the writer."""
    rng = random.Random('plan:%d' % seed)
    state = {'counter': 0, 'names': [], 'aten': {}}
    dirs, used_names, total = [], set(), 0
    while total < n_files:
        era = rng.choice(eras)
        if era == 'execute':
            count = 1
        elif rng.random() < 0.04:
            count = rng.randint(13, 68)
        else:
            count = rng.choices(range(1, 13), weights=[14, 12, 11, 10, 9, 8, 7, 6, 6, 5, 4, 4])[0]
        count = min(count, n_files - total)
        use_cache = layout == 'kernel-cache' or (layout == 'mixed' and rng.random() < 0.5)
        while True:
            if use_cache:
                kernel = None
                name = '%064x' % rng.getrandbits(256)
                rel = 'inductor-spyre-cache/' + name
                aten = rng.sample(COMMON_ATEN, rng.randint(1, 3))
            else:
                kernel = _kernel_name(rng, state)
                prefix = '%08x_' % rng.getrandbits(32) if rng.random() < 0.5 else ''
                name = prefix + kernel + '_' + _rand_chars(rng, 8, MKDTEMP_CHARS)
                rel = 'inductor-spyre/' + name
                aten = state['aten'][kernel]
            if rel not in used_names:
                used_names.add(rel)
                break
        files = []
        for opfunc in _opfuncs_for(rng, aten, count):
            files.append((opfunc, rng.choice(handle_kinds)))
        dirs.append({"rel": rel, "name": name, "kernel": kernel, "era": era, "files": files,
                     "seed": rng.getrandbits(64), "pagi": rng.random() < 0.6,
                     "segment": rng.random() < 0.8, "dsg": rng.random() < 0.8,
                     "dedup": era == 'current' and count >= 2 and rng.random() < 0.3})
        total += count
    incomplete_dirs = []
    if incomplete:
        for k in range(max(2, len(dirs) // 25)):
            key = '%064x' % rng.getrandbits(256)
            u = rng.getrandbits(128)
            uuid = '%08x-%04x-4%03x-%04x-%012x' % (u >> 96, (u >> 80) & 0xFFFF, (u >> 68) & 0xFFF,
                                                 0x8000 | ((u >> 52) & 0x3FFF), u & (2**48 - 1))
            where = 'inductor-spyre-cache/' + ('failed/' if k % 2 else '')
            n = rng.choice([1, 1, 1, 2, 3])
            files = [(rng.choice(OPFUNCS), rng.choice(handle_kinds)) for _ in range(n)]
            incomplete_dirs.append({"rel": where + key + '.tmp.' + uuid, "name": key,
                                    "kernel": None, "era": 'current', "files": files,
                                    "seed": rng.getrandbits(64), "pagi": False, "segment": False,
                                    "dsg": False, "dedup": False})
    return dirs, incomplete_dirs


def plan_compiles(dirs, compiles, forms):
    """--compiles and --compiler-generated, after plan_origins: each directory's compile (only
    compile 0's are in the origins map), and the form each op without FX origins is written in
    (d['generated'], per file: None or a form; its opfunc and handle state changed to match)."""
    for i, d in enumerate(dirs):
        d['compile'] = i % compiles
        if d['compile'] != 0:
            d['in_map'] = False
    turn = 0
    for d in dirs:
        d['generated'] = [None] * len(d['files'])
        if not forms:
            continue
        for j, (opfunc, kind) in enumerate(d['files']):
            if not d['no_origin'][j]:
                continue
            form = forms[turn % len(forms)]
            turn += 1
            d['generated'][j] = form
            if form == 'sourceless-handle':
                d['files'][j] = ('ReStickifyOpHBM', 'populated')
            elif form == 'restickify':
                d['files'][j] = ('ReStickifyOpHBM', kind)


def sourceless_handle(buffer, turn):
    """The handle torch-spyre writes for a buffer a source-less creation pass made: no origins, so
    no source and no ATen op; the pass in its transform_history."""
    history = [{"kind": "rewrite", "pass_name": SOURCELESS_PASSES[turn % len(SOURCELESS_PASSES)],
                "reason": None}]
    return {"id": handle_id_v2(None, [], [buffer], None), "source": None, "aten_op": None,
            "ir_chain": [buffer], "fused_from": [], "transform_history": history}


def plan_origins(dirs, incomplete_dirs, handle_kinds, strip_to):
    """Adds to every planned directory what the origins map and --strip-to decide, from streams of
    their own (the rest of the plan is unchanged): index and node-name prefix, whether the map
    lists the directory, which files' ops have no FX origins (never a populated file), the kernel
    name the map gives, and the handle state each file is written with ('final')."""
    non_populated = sum(1 for k in handle_kinds if k != 'populated')
    # no-origin ops are drawn among files written without a handle, at a rate that makes about
    # NO_ORIGIN_RATE of all ops (none when every file is to be populated)
    p_no = min(1.0, NO_ORIGIN_RATE * len(handle_kinds) / non_populated) if non_populated else 0.0
    rolls = []
    for i, d in enumerate(dirs):
        rng = random.Random('origins-plan:%d' % d['seed'])
        d['index'] = i
        d['prefix'] = 'k%d_' % i
        rolls.append(rng.random())
        d['in_map'] = rolls[-1] >= NOT_IN_MAP_RATE
        d['no_origin'] = [kind != 'populated' and rng.random() < p_no for _, kind in d['files']]
        if d['kernel'] is not None:
            d['map_name'] = d['kernel']
        else:                       # kernel-cache directory: the name is not in the path
            aten = sorted(rng.sample(COMMON_ATEN, rng.randint(1, 3)))
            d['map_name'] = 'sdsc_fused_%s_%d' % ('_'.join(aten), rng.randint(0, 40))
    if len(dirs) >= 15 and all(d['in_map'] for d in dirs):
        dirs[rolls.index(min(rolls))]['in_map'] = False
    for i, d in enumerate(incomplete_dirs):
        d.update(index=None, prefix='x%d_' % i, in_map=False, map_name=None,
                 no_origin=[False] * len(d['files']))
    # --strip-to: the handle state each populated file is written with; 'mixed' alternates over
    # the populated files in plan order (null first). Incomplete entries are never stripped.
    populated = 0
    for d in dirs + incomplete_dirs:
        final = []
        for _, kind in d['files']:
            if kind == 'populated' and strip_to and d['index'] is not None:
                kind = strip_to if strip_to != 'mixed' else ('null', 'absent')[populated % 2]
                populated += 1
            final.append(kind)
        d['final'] = final


# ---------------------------------------------------------------------------------------------
# The compiler's ideal cycles (docs/ideal-cycles.md): perf/ideal_cycles.json in a kernel
# directory, a JSON array of entries {"op_category", "ideal_cycles", other members}, with or
# without an aggregate "TOTAL" entry. Drawn from a stream of its own per directory: the rest of
# the cache is the same with and without --ideal-cycles.

IDEAL_FILE = os.path.join('perf', 'ideal_cycles.json')
DEFAULT_CORE_MHZ = 1100
OPFUNC_CATEGORY = {
    'batchmatmul': 'matmul', 'add': 'elementwise', 'sub': 'elementwise', 'mul': 'elementwise',
    'realdiv': 'elementwise', 'relufwd': 'activation', 'exp': 'activation', 'neg': 'activation',
    'max': 'reduction', 'sum': 'reduction', 'identity': 'data_movement',
    'ReStickifyOpHBM': 'data_movement', 'ReStickifyOpLx': 'data_movement',
    'shuffle': 'data_movement', RARE_OPFUNC: 'data_movement',
}
# Typical cycles of one op, by category (synthetic magnitudes).
CATEGORY_CYCLES = {'matmul': [40000, 300000, 2000000], 'elementwise': [1500, 9000, 60000],
                   'activation': [1500, 9000, 60000], 'reduction': [3000, 20000, 120000],
                   'data_movement': [2000, 15000, 150000]}
# The ways a file is unusable, each with where sdscprov reports it: drawn in turn.
IDEAL_MALFORMED = ['truncated', 'negative', 'fraction', 'string', 'missing_category',
                   'duplicate_total', 'not_array', 'empty_array', 'over_64_bits']


def ideal_ns(cycles, core_mhz=DEFAULT_CORE_MHZ):
    """A kernel's ideal time in ns, as sdscprov computes it: cycles x 1000 / MHz, rounded half up
    (exact integers)."""
    return (2000 * cycles + core_mhz) // (2 * core_mhz)


def ideal_of_entries(entries):
    """The rules (docs/ideal-cycles.md) on a list of entries read by json: the kernel's
    (cycles, rule, category), or None when the rules refuse them."""
    if not isinstance(entries, list) or not entries:
        return None
    totals, total, cycles_sum, category, largest = 0, 0, 0, None, 0
    for e in entries:
        if not isinstance(e, dict):
            return None
        c, cat = e.get('ideal_cycles'), e.get('op_category')
        if type(c) is not int or not 0 <= c < 2**64 or not isinstance(cat, str):
            return None
        if cat == 'TOTAL':
            totals, total = totals + 1, c
            continue
        cycles_sum += c
        if category is None or c > largest:
            category, largest = cat, c
    if totals > 1 or (totals == 0 and cycles_sum >= 2**64):
        return None
    return (total, 'total', category) if totals else (cycles_sum, 'sum', category)


def _line_col(text, offset):
    """1-based line and column of an offset of an ASCII text (sdscprov's path:line:col)."""
    return text.count('\n', 0, offset) + 1, offset - (text.rfind('\n', 0, offset) + 1) + 1


def _entry_starts(text):
    """Offsets of the top-level array's objects (no string of ours holds a bracket)."""
    starts, depth = [], 0
    for i, ch in enumerate(text):
        if ch in '[{':
            if ch == '{' and depth == 1:
                starts.append(i)
            depth += 1
        elif ch in ']}':
            depth -= 1
    return starts


def _ideal_entries(rng, d):
    """One entry per SDSC op of the directory, in file order."""
    entries = []
    for index, (opfunc, _) in enumerate(d['files']):
        category = OPFUNC_CATEGORY[opfunc]
        entry = {"op_category": category,
                 "ideal_cycles": int(rng.choice(CATEGORY_CYCLES[category]) *
                                     rng.uniform(0.5, 1.5)),
                 "op_name": '%d_%s' % (index, opfunc)}
        if rng.random() < 0.3:
            entry["cores"] = rng.choice([8, 16, 32])
        entries.append(entry)
    return entries


_BAD = '"@@BAD@@"'


def _dump_ideal(entries, compact):
    if compact:
        return json.dumps(entries)
    return json.dumps(entries, indent=2) + '\n'


def _malformed_ideal(rng, entries, kind, compact):
    """(text, offset of the place sdscprov reports) of an unusable file of the given kind."""
    if kind == 'not_array':
        return _dump_ideal({"op_category": "TOTAL", "ideal_cycles": 1000}, compact), 0
    if kind == 'empty_array':
        return '[]\n', 0
    entries = [dict(e) for e in entries]
    k = rng.randrange(len(entries))
    if kind == 'truncated':
        text = _dump_ideal(entries + [{"op_category": "TOTAL", "ideal_cycles": 1}], compact)
        cut = text.rindex(',', 0, _entry_starts(text)[-1]) + 1   # the comma before the last entry
        return text[:cut], cut
    if kind == 'missing_category':
        del entries[k]['op_category']
        text = _dump_ideal(entries, compact)
        return text, _entry_starts(text)[k]
    if kind == 'duplicate_total':
        total = sum(e['ideal_cycles'] for e in entries)
        entries += [{"op_category": "TOTAL", "ideal_cycles": total}] * 2
        text = _dump_ideal(entries, compact)
        return text, _entry_starts(text)[-1]
    literal = {'negative': '-%d' % entries[k]['ideal_cycles'],
               'fraction': '%d.5' % entries[k]['ideal_cycles'],
               'string': '"%d"' % entries[k]['ideal_cycles'],
               'over_64_bits': str(2**64 + entries[k]['ideal_cycles'])}[kind]
    entries[k]['ideal_cycles'] = _BAD[1:-1]
    text = _dump_ideal(entries, compact)
    at = text.index(_BAD)
    return text.replace(_BAD, literal), at


def plan_ideal(dirs, share, total_share, malformed_share):
    """Adds d['ideal'] to every planned directory: the text of its perf/ideal_cycles.json (None:
    no file; empty_perf: an empty perf/ directory instead) and what sdscprov must read from it."""
    malformed = 0
    for d in dirs:
        rng = random.Random('ideal:%d' % d['seed'])
        if rng.random() >= share:
            d['ideal'] = {"text": None, "empty_perf": rng.random() < 0.25,
                          "expect": {"state": "absent"}}
            continue
        entries = _ideal_entries(rng, d)
        compact = rng.random() < 0.3
        if rng.random() < malformed_share:
            kind = IDEAL_MALFORMED[malformed % len(IDEAL_MALFORMED)]
            malformed += 1
            text, offset = _malformed_ideal(rng, entries, kind, compact)
            line, col = _line_col(text, offset)
            d['ideal'] = {"text": text, "empty_perf": False,
                          "expect": {"state": "malformed", "kind": kind, "line": line,
                                     "col": col}}
            continue
        if rng.random() < total_share:
            # TOTAL is what the compiler counts for the whole kernel: ops overlap, so it is at
            # most their sum; now and then it is the only entry.
            total = int(sum(e['ideal_cycles'] for e in entries) * rng.uniform(0.55, 1.0))
            if rng.random() < 0.1:
                entries = []
            entries.insert(rng.choice([0, len(entries)]) if entries else 0,
                           {"op_category": "TOTAL", "ideal_cycles": total})
        cycles, rule, category = ideal_of_entries(entries)
        others = []
        for e in entries:
            others += [k for k in e if k not in ('ideal_cycles', 'op_category', *others)]
        d['ideal'] = {"text": _dump_ideal(entries, compact), "empty_perf": False,
                      "expect": {"state": "ok", "cycles": cycles, "rule": rule,
                                 "category": category, "entries": len(entries),
                                 "other_members": others}}


# ---------------------------------------------------------------------------------------------
# Writing (any process)

_TEMPLATES = None
_TEMPLATE_SEED = None


def _templates(seed):
    global _TEMPLATES, _TEMPLATE_SEED
    if _TEMPLATES is None or _TEMPLATE_SEED != seed:
        _TEMPLATES = TemplateSet(seed)
        _TEMPLATE_SEED = seed
    return _TEMPLATES


def _write(path, text):
    with open(path, 'wb') as f:
        f.write(text.encode('ascii'))


def _source_pool(rng):
    user = rng.choice(USERS)
    project = rng.choice(PROJECTS)
    files = rng.sample(SOURCE_FILES, 2)
    return [('/home/%s/%s/%s' % (user, project, f), rng.randint(5, 420))
            for f in files for _ in range(3)]


def write_kernel_dir(out_dir, d, template_seed, keep_dir=None, want_map=False):
    """Write one kernel directory of the plan. Returns the sizes of its SDSC files and, when
    want_map and the map lists the directory, its piece of the origins map (write_origins_map).
    keep_dir: also write every file as it is before --strip-to, at the same relative path."""
    templates = _templates(template_seed)
    rng = random.Random(d['seed'])
    era, files = d['era'], d['files']
    pool = _source_pool(rng)
    model = OriginsModel(random.Random('origins:%d' % d['seed']), d['prefix'], pool)
    buf_base = rng.randint(0, 40)
    sizes = []
    roots = [out_dir] + ([keep_dir] if keep_dir else [])
    kdirs = [os.path.join(r, d['rel']) for r in roots]
    exec_rel = os.path.join('execute', d['name'])
    for k in kdirs:
        os.makedirs(k, exist_ok=True)
        if era == 'execute' or d['pagi']:
            os.makedirs(os.path.join(k, exec_rel), exist_ok=True)

    def put(rel, text, original=None):
        _write(os.path.join(kdirs[0], rel), text)
        for k in kdirs[1:]:
            _write(os.path.join(k, rel), text if original is None else original)

    file_ops = []
    bundle_lines, line_files, bundle_args, next_symbol = [], [], [], 1
    for index, (opfunc, kind) in enumerate(files):
        symbolic = era == 'current' and rng.random() < 0.3
        template = templates.pick(rng, opfunc, symbolic)
        symbol_base = None
        if era == 'current' and template.shape['symbolic']:
            symbol_base = next_symbol
            next_symbol += template.shape['cores']
        op = model.op(opfunc, 'buf%d' % (buf_base + index), d['no_origin'][index])
        file_ops.append(op)
        if d.get('generated') and d['generated'][index] == 'sourceless-handle':
            handle = sourceless_handle(op['buffer'], index)
        else:
            handle = model.handle(op) if kind == 'populated' else None
        if kind == 'populated' and handle is None:
            raise AssertionError('a populated file needs an op with origins')
        key = '%d_%s' % (index, opfunc)
        text = render_sdsc(template, key, handle_member(kind, handle),
                           tensor_addresses(rng, template, symbol_base))
        final = d['final'][index]
        written = text if final == kind else strip_handle_text(text, final)
        if era == 'current':
            fname = 'sdsc_%d.json' % index
            rel = fname
        elif era == 'may2026':
            fname = 'sdsc_%d_%s.json' % (index, opfunc)
            rel = fname
        else:
            fname = 'sdsc.json'
            rel = os.path.join(exec_rel, fname)
        put(rel, written, text)
        sizes.append(len(written))
        if era == 'current':
            cores = template.shape['cores']
            if symbol_base is not None:
                arg = len(bundle_args)
                stride = rng.choice([1024, 2048, 4096])
                bundle_args.append((arg, cores, stride))
                operands = ['%%arg_%d' % arg] + ['%%arg_%d_core_%d' % (arg, c * stride)
                                                 for c in range(1, cores)]
                ids = ', '.join(str(-(symbol_base + c)) for c in range(cores))
                line = 'sdscbundle.sdsc_execute (%s) {sdsc_filename="%s", "symbol_ids"=[%s]}' % (
                    ', '.join(operands), fname, ids)
            else:
                line = 'sdscbundle.sdsc_execute () {sdsc_filename="%s", "symbol_ids"=[]}' % fname
            bundle_lines.append(line)
            line_files.append(index)
        elif era == 'may2026':
            bundle_lines.append('sdscbundle.sdsc_execute () {sdsc_filename="%s"}' % fname)
            line_files.append(index)

    if bundle_lines:
        if d['dedup']:
            # De-duplicated ops run an earlier file again: the line repeats after its original.
            for _ in range(rng.randint(1, len(bundle_lines))):
                j = rng.randrange(len(files))
                first = line_files.index(j)
                at = rng.randint(first + 1, len(bundle_lines))
                bundle_lines.insert(at, bundle_lines[first])
                line_files.insert(at, j)
        put('bundle.mlir', bundle_text(bundle_lines, bundle_args))
    if d['pagi']:
        put(os.path.join(exec_rel, 'pagi.json'), pagi_text(rng, d['name']))
    if d['segment']:
        put('segment_size.json', segment_size_text(rng))
    if d['dsg']:
        put('execute_dsg.txt', execute_dsg_text(d['name']))
    ideal = d.get('ideal')
    if ideal and (ideal['text'] is not None or ideal['empty_perf']):
        for k in kdirs:
            os.makedirs(os.path.join(k, 'perf'), exist_ok=True)
        if ideal['text'] is not None:
            put(IDEAL_FILE, ideal['text'])

    # The OpSpecs in bundle.mlir order (one per file without it). An op whose SDSC equals an
    # earlier one's runs that file again: it is an op of its own (own buffer and origins), and the
    # file keeps the first op's handle.
    ops, seen = [], set()
    extra = 0
    for j in (line_files or range(len(files))):
        if j not in seen:
            seen.add(j)
            ops.append(file_ops[j])
        else:
            ops.append(model.op(files[j][0], 'buf%d' % (buf_base + len(files) + extra),
                                model.rng.random() < NO_ORIGIN_RATE))
            extra += 1
    if not (want_map and d['in_map']):
        return sizes, None
    # serialised here, in the worker: one line per kernel entry and per node (see
    # write_origins_map)
    entry = {"name": d['map_name'], "dir": d['name'], "ops": ops}
    node_lines = ['\n  %s: %s' % (json.dumps(name), json.dumps(node))
                  for name, node in model.nodes.items()]
    return sizes, (d['index'], '\n  ' + json.dumps(entry), list(model.nodes), node_lines)


def _write_batch(args):
    out_dir, batch, template_seed, keep_dir, want_map = args
    sizes, pieces = [], []
    for d in batch:
        s, piece = write_kernel_dir(out_dir, d, template_seed, keep_dir, want_map)
        sizes += s
        if piece is not None:
            pieces.append(piece)
    return sizes, pieces


def manifest_for(dirs, incomplete_dirs, with_origins=False, strip_to=None):
    """The manifest: counts as the files are on disk (after --strip-to). with_origins adds what
    `sdscprov annotate --origins MAP` should leave (and in_map per kernel directory). Directories
    planned by plan_ideal add what their ideal-cycles file gives ("ideal" per kernel_dirs entry,
    "ideal_cycles" counts)."""
    def kinds(d):
        return d.get('final') or [kind for _, kind in d['files']]

    entries = []
    totals = {'populated': 0, 'null': 0, 'absent': 0}
    after = {'populated': 0, 'null': 0, 'absent': 0}
    in_map = no_origin = stripped = 0
    for d in dirs:
        counts = {'populated': 0, 'null': 0, 'absent': 0}
        for i, kind in enumerate(kinds(d)):
            counts[kind] += 1
            totals[kind] += 1
            stripped += kind != d['files'][i][1]
            if with_origins:
                if d['in_map'] and d['no_origin'][i]:
                    no_origin += 1
                after['populated' if d['in_map'] and not d['no_origin'][i] else kind] += 1
        entry = {"dir": d['rel'], "kernel": d['kernel'], "files": len(d['files']),
                 "populated": counts['populated'], "null": counts['null'],
                 "absent": counts['absent']}
        if with_origins:
            entry['in_map'] = d['in_map']
            in_map += d['in_map']
        if 'ideal' in d:
            entry['ideal'] = d['ideal']['expect']
        if 'compile' in d:
            entry['compile'] = d['compile']
            entry['compiler_generated'] = sum(g is not None for g in d['generated'])
        entries.append(entry)
    entries.sort(key=lambda e: e['dir'])
    manifest = {"kernels": len(dirs), "files": sum(len(d['files']) for d in dirs),
                "handles_populated": totals['populated'], "handles_null": totals['null'],
                "handles_absent": totals['absent'], "handles_malformed": 0,
                "incomplete_files": sum(len(d['files']) for d in incomplete_dirs),
                "kernel_dirs": entries,
                "stripped": bool(strip_to)}
    if strip_to:
        manifest['strip_to'] = strip_to
        manifest['stripped_files'] = stripped
    if with_origins:
        manifest['origins'] = {"kernels_in_map": in_map, "kernels_not_in_map": len(dirs) - in_map,
                               "no_origin_files": no_origin, "expected_after_annotate": after}
    if dirs and 'compile' in dirs[0]:
        manifest['compiles'] = max(d['compile'] for d in dirs) + 1
        manifest['compiler_generated'] = {
            form: sum(g == form for d in dirs for g in d['generated']) for form in GENERATED_FORMS}
    if any('ideal' in d for d in dirs):
        states = [d['ideal']['expect'] for d in dirs]
        manifest['ideal_cycles'] = {
            "file": IDEAL_FILE, "default_core_mhz": DEFAULT_CORE_MHZ,
            "total": sum(e.get('rule') == 'total' for e in states),
            "sum": sum(e.get('rule') == 'sum' for e in states),
            "malformed": sum(e['state'] == 'malformed' for e in states),
            "absent": sum(e['state'] == 'absent' for e in states)}
    return manifest


def write_origins_map(path, pieces):
    """The origins map (version 1) of the generated compile, written atomically. pieces: per
    mapped kernel directory (index, its "kernels" entry line, its node names, its "nodes" lines),
    as write_kernel_dir serialised them: one line per node and per kernel entry, with json's C
    encoder (indent= would be several times slower)."""
    pieces = sorted(pieces, key=lambda p: p[0])
    names = set()
    for piece in pieces:
        names.update(piece[2])
    if len(names) != sum(len(piece[2]) for piece in pieces):
        raise AssertionError('a node name is used by two kernel directories')
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix='.' + os.path.basename(path) + '.',
                               suffix='.tmp')
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)          # as open() would create it, not mkstemp's 0600
        with os.fdopen(fd, 'w') as f:
            f.write('{\n "sdscprov_origins": 1,\n "nodes": {')
            f.write(','.join(line for piece in pieces for line in piece[3]))
            f.write('\n },\n "kernels": [')
            f.write(','.join(piece[1] for piece in pieces))
            f.write('\n ]\n}\n')
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return len(names), len(pieces)


def generate(out_dir, n_files, seed, eras, handle_kinds, layout, incomplete, jobs,
             origins_map=None, strip_to=None, keep_dir=None, ideal=None, compiles=None,
             generated_forms=None):
    """ideal: None, or (share, total_share, malformed_share) of --ideal-cycles, --ideal-total
    and --ideal-malformed. compiles, generated_forms: --compiles and --compiler-generated (None:
    neither given, the cache as before)."""
    dirs, incomplete_dirs = plan_cache(n_files, seed, eras, handle_kinds, layout, incomplete)
    plan_origins(dirs, incomplete_dirs, handle_kinds, strip_to)
    if compiles is not None or generated_forms:
        plan_compiles(dirs, compiles or 1, generated_forms or [])
        # --strip-to decided the written states before the forms changed some: again.
        for d in dirs:
            d['final'] = [kind if not (strip_to and kind == 'populated') else d['final'][j]
                          for j, (_, kind) in enumerate(d['files'])]
    if ideal is not None:
        plan_ideal(dirs, *ideal)
    everything = dirs + incomplete_dirs
    want_map = origins_map is not None
    if jobs <= 1 or n_files < 2000:
        sizes, pieces = _write_batch((out_dir, everything, seed, keep_dir, want_map))
    else:
        _templates(seed)                     # build once, inherited by the forked workers
        batches = [everything[i:i + 64] for i in range(0, len(everything), 64)]
        ctx = multiprocessing.get_context('fork')
        sizes, pieces = [], []
        with ctx.Pool(jobs) as pool:
            for s, p in pool.imap_unordered(_write_batch, [(out_dir, b, seed, keep_dir, want_map)
                                                           for b in batches]):
                sizes += s
                pieces += p
    bad = [s for s in sizes if not FILE_MIN <= s <= FILE_MAX]
    if bad:
        raise SystemExit('gen_cache: internal error: %d files outside %d-%d bytes (e.g. %d)'
                         % (len(bad), FILE_MIN, FILE_MAX, bad[0]))
    if want_map:
        write_origins_map(origins_map, pieces)
    return manifest_for(dirs, incomplete_dirs, want_map, strip_to), sizes


# ---------------------------------------------------------------------------------------------
# --simplemlp: the SimpleMLP demo compile (no handles: it predates them)

SIMPLEMLP_KERNELS = [
    # (kernel name, fixed mkdtemp-style suffix, [(opfunc, symbolic input)])
    ('sdsc_fused_addmm_linear_relu_0', 'q7k2m_x4',
     [('batchmatmul', True), ('add', False), ('relufwd', False), ('batchmatmul', False)]),
    ('sdsc_fused_addmm_1', 'b9d3wz0e', [('add', False)]),
]
# The compiler's ideal cycles of each kernel's ops, in its OpSpec order (perf/ideal_cycles.json,
# no TOTAL entry: the kernel's ideal is their sum): about half the demo trace's mean time of each
# kernel at the default core clock (its events vary tenfold, so some run faster than the ideal).
SIMPLEMLP_IDEAL_CYCLES = {
    'sdsc_fused_addmm_linear_relu_0': [260000, 15000, 15000, 260000],
    'sdsc_fused_addmm_1': [16000],
}


def _simplemlp_shape(opfunc, symbolic, n_tensors):
    dims = ['mb', 'in', 'out'] if opfunc == 'batchmatmul' else ['mb', 'out']
    sizes = {'mb': 512, 'in': 1024, 'out': 1024}
    wk = {'mb': 2, 'in': 1, 'out': 16} if opfunc == 'batchmatmul' else {'mb': 4, 'out': 8}
    types = ['INPUT', 'KERNEL', 'OUTPUT'] if opfunc == 'batchmatmul' else ['OUTPUT'] * n_tensors
    tensors = []
    for i in range(n_tensors):
        order = ['in', 'mb'] if (opfunc == 'batchmatmul' and i == 0) else (
            ['in', 'out'] if opfunc == 'batchmatmul' and i == 1 else ['out', 'mb'])
        tensors.append({"component": 'hbm', "ds_type": types[i], "order": order,
                        "stick": order[0], "hbm_cycle": 4, "stride": 1 << 20})
    return {"cores": 32, "dims": dims, "sizes": {d: sizes[d] for d in dims}, "wk": wk,
            "tensors": tensors, "n_inputs": n_tensors - 1, "sched_len": 1, "time_folds": 1,
            "dsp_extras": True, "with_lx_mirror": False, "symbolic": symbolic}


def generate_simplemlp(out_dir):
    rng = random.Random('simplemlp')
    dirs, sizes = [], []
    for kernel, suffix, ops in SIMPLEMLP_KERNELS:
        name = kernel + '_' + suffix
        rel = 'inductor-spyre/' + name
        kdir = os.path.join(out_dir, rel)
        os.makedirs(os.path.join(kdir, 'execute', name), exist_ok=True)
        lines, args, next_symbol = [], [], 1
        for index, (opfunc, symbolic) in enumerate(ops):
            n_t = 3 if opfunc in ('batchmatmul', 'add') else 2
            template = _make_template(opfunc, _simplemlp_shape(opfunc, symbolic, n_t))
            symbol_base = next_symbol if symbolic else None
            text = render_sdsc(template, '%d_%s' % (index, opfunc), '',
                               tensor_addresses(rng, template, symbol_base))
            fname = 'sdsc_%d.json' % index
            _write(os.path.join(kdir, fname), text)
            sizes.append(len(text))
            if symbolic:
                args.append((len(args), 32, 2048))
                operands = ['%arg_0'] + ['%%arg_0_core_%d' % (c * 2048) for c in range(1, 32)]
                ids = ', '.join(str(-(next_symbol + c)) for c in range(32))
                next_symbol += 32
                lines.append('sdscbundle.sdsc_execute (%s) {sdsc_filename="%s", "symbol_ids"=[%s]}'
                             % (', '.join(operands), fname, ids))
            else:
                lines.append('sdscbundle.sdsc_execute () {sdsc_filename="%s", "symbol_ids"=[]}'
                             % fname)
        _write(os.path.join(kdir, 'bundle.mlir'), bundle_text(lines, args))
        _write(os.path.join(kdir, 'execute', name, 'pagi.json'), pagi_text(rng, name))
        _write(os.path.join(kdir, 'segment_size.json'), segment_size_text(rng))
        _write(os.path.join(kdir, 'execute_dsg.txt'), execute_dsg_text(name))
        os.makedirs(os.path.join(kdir, 'perf'), exist_ok=True)
        _write(os.path.join(kdir, IDEAL_FILE), _dump_ideal(
            [{"op_category": OPFUNC_CATEGORY[opfunc], "ideal_cycles": cycles,
              "op_name": '%d_%s' % (index, opfunc)}
             for index, ((opfunc, _), cycles) in enumerate(zip(ops, SIMPLEMLP_IDEAL_CYCLES[kernel]))],
            False))
        dirs.append({"rel": rel, "name": name, "kernel": kernel, "files":
                     [(op, 'absent') for op, _ in ops]})
    return manifest_for(dirs, []), sizes


# ---------------------------------------------------------------------------------------------
# --self-test

def _addresses_of(obj, template):
    """The per-tensor, per-core addresses of a rendered document (to render it again)."""
    values = iter(re.findall(r'"\[\d+, 0, 0\]": "(-?\d+)"', json.dumps(obj)))
    result = [[None] * template.shape['cores'] for _ in template.shape['tensors']]
    for t, c in template.slots:
        result[t][c] = next(values)
    return result


def _self_test_ideal():
    """The ideal-cycles files: a usable one reads (json, then the rules) as the manifest says,
    an unusable one does not, and the place of each warning is where its fault is."""
    ok = True
    dirs, _ = plan_cache(3000, 5, ['current', 'may2026', 'execute'], ['populated'], 'mixed', False)
    plan_ideal(dirs, 0.8, 0.5, 0.2)
    seen = set()
    for d in dirs:
        text, want = d['ideal']['text'], d['ideal']['expect']
        seen.add(want.get('kind', want.get('rule', want['state'])))
        if text is None:
            continue
        try:
            entries = json.loads(text)
        except ValueError:
            entries = ValueError
        if want['state'] == 'ok':
            if entries is ValueError or ideal_of_entries(entries) != (
                    want['cycles'], want['rule'], want['category']):
                print('FAIL ideal of %s' % d['rel'])
                ok = False
            continue
        if entries is not ValueError and ideal_of_entries(entries) is not None:
            print('FAIL malformed ideal %s reads' % want['kind'])
            ok = False
        lines = text.split('\n')
        rest = (lines[want['line'] - 1] + '\n')[want['col'] - 1:] if want['line'] <= len(lines) else ''
        at = {'truncated': rest == '\n' and want['line'] == len(lines),
              'negative': re.match(r'-\d+[,\n}]', rest),
              'fraction': re.match(r'\d+\.5[,\n}]', rest),
              'string': re.match(r'"\d+"', rest),
              'over_64_bits': re.match(r'\d{20}', rest) and int(re.match(r'\d+', rest).group()) >= 2**64,
              'missing_category': rest.startswith('{'), 'duplicate_total': rest.startswith('{'),
              'not_array': (want['line'], want['col']) == (1, 1),
              'empty_array': (want['line'], want['col']) == (1, 1)}[want['kind']]
        if not at:
            print('FAIL malformed ideal %s: nothing at %d:%d' % (want['kind'], want['line'],
                                                                 want['col']))
            ok = False
    missing = set(IDEAL_MALFORMED + ['total', 'sum', 'absent']) - seen
    if missing:
        print('FAIL ideal kinds never drawn: %s' % ', '.join(sorted(missing)))
        ok = False
    if [ideal_ns(c, m) for c, m in [(1100, 1100), (1, 2000), (1, 2001), (6, 1100)]] != [1000, 1, 0, 5]:
        print('FAIL ideal_ns')
        ok = False
    return ok


def self_test():
    ok = True
    for aten, fused, chain, src, want in ID_TEST_VECTORS:
        got = handle_id_v2(aten, fused, chain, src)
        if got != want:
            print('FAIL id %s: got %s want %s' % (chain, got, want))
            ok = False
        # the hand-written canonical text equals Python's own compact, key-sorted dump
        ref = json.dumps({"aten_op": aten, "fused_from": fused, "ir_chain": chain, "source": src,
                          "version": 2}, sort_keys=True, separators=(',', ':'), ensure_ascii=True)
        if ref != handle_id_text_v2(aten, fused, chain, src):
            print('FAIL canonical text %s' % chain)
            ok = False
    a, f, c, s, _ = ID_TEST_VECTORS[0]
    if hashlib.sha256(handle_id_text_v2(a, f, c, s).encode()).hexdigest() != FIRST_VECTOR_SHA256:
        print('FAIL sha256 of the first vector')
        ok = False
    for s in ['plain', 'q"b\\s/\b\f\n\r\t', '\x00\x1f\x7f', 'caf\u00e9', '\U0001F600', '\u2028']:
        if json_string_ascii(s) != json.dumps(s, ensure_ascii=True):
            print('FAIL escape %r' % s)
            ok = False
    # rendered documents are byte-identical to json.dumps(indent=2) of themselves
    templates = _templates(0)
    rng = random.Random(1)
    pool = _source_pool(rng)
    for opfunc, temps in templates.by_opfunc.items():
        for t in temps:
            for kind in ('populated', 'null', 'absent'):
                handle = make_handle(rng, opfunc, 3, pool) if kind == 'populated' else None
                text = render_sdsc(t, '7_' + opfunc, handle_member(kind, handle),
                                   tensor_addresses(rng, t, 5 if t.shape['symbolic'] else None))
                obj = json.loads(text)
                if json.dumps(obj, indent=2) != text:
                    print('FAIL re-dump %s %s' % (opfunc, kind))
                    ok = False
                op = obj['7_' + opfunc]
                if kind != 'absent' and next(iter(op)) != 'debug_handle_':
                    print('FAIL handle not first %s' % opfunc)
                    ok = False
                if handle is not None:
                    h = op['debug_handle_']
                    if h['id'] != handle_id_v2(h['aten_op'], [x['id'] for x in h['fused_from']],
                                               h['ir_chain'], h['source']):
                        print('FAIL handle id %s' % opfunc)
                        ok = False
                if not FILE_MIN <= len(text) <= FILE_MAX:
                    print('FAIL size %d %s' % (len(text), opfunc))
                    ok = False
                if handle is not None:
                    # --strip-to: the bytes json.dump gives without provenance
                    for to in ('null', 'absent'):
                        want = dict(op)
                        if to == 'null':
                            want['debug_handle_'] = None
                        else:
                            del want['debug_handle_']
                        want = json.dumps({'7_' + opfunc: want}, indent=2)
                        if strip_handle_text(text, to) != want or want != render_sdsc(
                                t, '7_' + opfunc, handle_member(to), _addresses_of(obj, t)):
                            print('FAIL strip to %s %s' % (to, opfunc))
                            ok = False
    # the nodes' stack traces give the sources the handles use; handles fit HANDLE_MAX
    longest = 0
    for k in range(3000):
        rng = random.Random('self-test-model:%d' % k)
        model = OriginsModel(rng, 'k%d_' % (k * 7), _source_pool(rng))
        for opfunc in OPFUNCS + [RARE_OPFUNC]:
            h = model.handle(model.op(opfunc, 'buf%d' % rng.randint(0, 200), False))
            longest = max(longest, len(handle_member('populated', h)))
        for name, node in model.nodes.items():
            if source_of_stack_trace(node['stack_trace']) != model.sources[name]:
                print('FAIL stack trace source %s' % name)
                ok = False
    if longest > HANDLE_MAX:
        print('FAIL handle member of %d bytes > HANDLE_MAX %d' % (longest, HANDLE_MAX))
        ok = False
    ok = _self_test_ideal() and ok
    print('self-test: %s' % ('ok' if ok else 'FAILED'))
    return ok


# ---------------------------------------------------------------------------------------------

def _csv(allowed):
    def parse(value):
        items = [v.strip() for v in value.split(',') if v.strip()]
        bad = [v for v in items if v not in allowed]
        if bad or not items:
            raise argparse.ArgumentTypeError('choose from %s' % ','.join(allowed))
        return items
    return parse


def _share(value):
    try:
        share = float(value)
    except ValueError:
        share = -1.0
    if not 0.0 <= share <= 1.0:
        raise argparse.ArgumentTypeError('a share from 0 to 1 is needed, not %r' % value)
    return share


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('out_dir', nargs='?', help='directory to create the cache in')
    p.add_argument('--files', type=int, help='number of SDSC files a scanner should count')
    p.add_argument('--seed', type=int, default=0)
    p.add_argument('--eras', type=_csv(['current', 'may2026', 'execute']),
                   default=['current', 'may2026', 'execute'])
    p.add_argument('--handles', type=_csv(['populated', 'null', 'absent']),
                   default=['populated', 'null', 'absent'])
    p.add_argument('--layout', choices=['inductor-spyre', 'kernel-cache', 'mixed'],
                   default='inductor-spyre')
    p.add_argument('--manifest', help='write a JSON summary of what was generated here')
    p.add_argument('--incomplete', action='store_true',
                   help='also write <key>.tmp.<uuid>/ and failed/ entries (not counted)')
    p.add_argument('--simplemlp', action='store_true',
                   help='write the SimpleMLP demo compile (testdata/demo) instead')
    p.add_argument('--origins-map', metavar='PATH',
                   help='also write the origins map (version 1) of the generated compile, from '
                        'which `sdscprov annotate --origins PATH` re-derives every handle')
    p.add_argument('--strip-to', choices=['null', 'absent', 'mixed'],
                   help='write every populated handle as null / without the member (mixed: '
                        'alternating), as torch-spyre without provenance would')
    p.add_argument('--keep-originals', metavar='DIR',
                   help='also write the cache as it is before --strip-to under DIR '
                        '(same relative paths)')
    p.add_argument('--ideal-cycles', type=_share, metavar='SHARE',
                   help="also write perf/ideal_cycles.json (the compiler's ideal cycles) in this "
                        'share of the kernel directories (0 to 1; the others have none, a '
                        'quarter of them an empty perf/); the manifest gains each kernel\'s '
                        'expected ideal')
    p.add_argument('--ideal-total', type=_share, default=0.5, metavar='SHARE',
                   help='share of those files with a "TOTAL" entry (default 0.5; the others are '
                        'summed)')
    p.add_argument('--ideal-malformed', type=_share, default=0.0, metavar='SHARE',
                   help='share of those files that cannot be used (default 0): truncated, '
                        'negative, fractional or string cycles, a missing op_category, two '
                        'TOTAL entries, not an array, an empty array, cycles past 2^64, in turn')
    p.add_argument('--compiles', type=int, metavar='N',
                   help="a build server's cache: N compiles, the origins map compile 0's")
    p.add_argument('--compiler-generated', type=_csv(GENERATED_FORMS), metavar='FORMS',
                   help='write the ops without FX origins in these forms, in turn (%s)'
                   % ','.join(GENERATED_FORMS))
    p.add_argument('--jobs', type=int, default=os.cpu_count() or 1)
    p.add_argument('--self-test', action='store_true', help='check the id test vectors and exit')
    a = p.parse_args(argv)

    if a.self_test:
        return 0 if self_test() else 1
    if not a.out_dir:
        p.error('OUT_DIR is required')
    if not a.simplemlp and (a.files is None or a.files < 1):
        p.error('--files N (N >= 1) is required')
    if a.simplemlp and (a.origins_map or a.strip_to or a.keep_originals):
        p.error('--origins-map, --strip-to and --keep-originals apply to generated caches, '
                'not --simplemlp (its map is testdata/demo/origins.json)')
    if a.ideal_cycles is None and (a.ideal_total != 0.5 or a.ideal_malformed != 0.0):
        p.error('--ideal-total and --ideal-malformed need --ideal-cycles SHARE')
    if a.simplemlp and a.ideal_cycles is not None:
        p.error('--ideal-cycles applies to generated caches, not --simplemlp')
    roots = [a.out_dir] + ([a.keep_originals] if a.keep_originals else [])
    if a.keep_originals:
        out_real, keep_real = os.path.realpath(a.out_dir), os.path.realpath(a.keep_originals)
        if os.path.commonpath([out_real, keep_real]) in (out_real, keep_real):
            p.error('--keep-originals must be outside OUT_DIR (and OUT_DIR outside it)')
    for root in roots:
        for sub in ('inductor-spyre', 'inductor-spyre-cache'):
            if os.path.exists(os.path.join(root, sub)):
                print('gen_cache: %s already exists; remove it first'
                      % os.path.join(root, sub), file=sys.stderr)
                return 2
    for root in roots:
        os.makedirs(root, exist_ok=True)
    if a.simplemlp:
        manifest, sizes = generate_simplemlp(a.out_dir)
    else:
        ideal = None
        if a.ideal_cycles is not None:
            ideal = (a.ideal_cycles, a.ideal_total, a.ideal_malformed)
        if a.compiles is not None and a.compiles < 1:
            p.error('--compiles N needs N >= 1')
        manifest, sizes = generate(a.out_dir, a.files, a.seed, a.eras, a.handles, a.layout,
                                   a.incomplete, a.jobs, a.origins_map, a.strip_to,
                                   a.keep_originals, ideal, a.compiles, a.compiler_generated)
    if a.manifest:
        with open(a.manifest, 'w') as f:
            json.dump(manifest, f, indent=2)
            f.write('\n')
    print('gen_cache: %d kernel dirs, %d SDSC files (%.1f MB), %d incomplete files in %s' % (
        manifest['kernels'], manifest['files'], sum(sizes) / 1e6, manifest['incomplete_files'],
        a.out_dir), file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
