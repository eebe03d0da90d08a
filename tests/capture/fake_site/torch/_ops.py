class OpOverload:
    """Stands in for torch._ops.OpOverload: str() gives "aten.mm.default"."""

    def __init__(self, qualified_name):
        self._name = qualified_name

    def __str__(self):
        return self._name

    __repr__ = __str__
