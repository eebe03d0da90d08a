class Node:
    """Stands in for torch.fx.Node: a name, a target and the meta dict Dynamo/AOT fill."""

    def __init__(self, name, target, meta):
        self.name = name
        self.target = target
        self.meta = meta
        self.op = "call_function"

    def __repr__(self):
        return self.name
