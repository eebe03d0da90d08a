"""Stand-in for torch-spyre's SDSC generator: one SDSC document per OpSpec, whose key is
"<index>_<opfunc>". The opfunc follows torch-spyre's naming rule (_get_op_func): a reduction is
named "<op>nonstick" unless it is a matmul or top-k, or it reduces along the stick, which shows
as a scale of -2 on the output's reduced dimension. The document's content is a placeholder."""

MATMUL_OPS = ("matmul", "batchmatmul", "batchmatmulfp8")
TOPK_OPS = ("topk",)


def _get_op_func(op, is_reduction, output_scales):
    if is_reduction and op not in MATMUL_OPS and op not in TOPK_OPS \
            and -2 not in output_scales.values():
        return op + "nonstick"
    return op


def _stick_symbol(arg):
    names = sorted(arg.device_coordinates[-1].free_symbols)
    return names[0] if names else None


def _output_scales(op_spec):
    """The output's scale per reduced dimension: -2 when the output has no stick of its own and
    the dimension is the input's stick, else -1 (what torch-spyre's layout code decides)."""
    if not op_spec.is_reduction or len(op_spec.args) < 2:
        return {}
    source, output = op_spec.args[0], op_spec.args[-1]
    kept = set().union(*(c.free_symbols for c in output.device_coordinates))
    reduced = sorted(set().union(*(c.free_symbols for c in source.device_coordinates)) - kept)
    stick, output_stick = _stick_symbol(source), _stick_symbol(output)
    return {dim: -2 if output_stick is None and dim == stick else -1 for dim in reduced}


def compile_op_spec(idx, op_spec, symbols, symbol_id_offset=0, use_symbols=False):
    opfunc = _get_op_func(op_spec.op, op_spec.is_reduction, _output_scales(op_spec))
    document = {f"{idx}_{opfunc}": {"sdscFoldProps_": [], "numCoresUsed_": 1,
                                    "dscs_": [{opfunc: {}}]}}
    return document, [], [], []
