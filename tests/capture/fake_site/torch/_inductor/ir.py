class ComputedBuffer:
    """Stands in for torch._inductor.ir.ComputedBuffer: the provenance fields torch-spyre reads."""

    def __init__(self, name, origins, origin_node=None):
        self.name = name
        self.origins = origins          # Inductor keeps an OrderedSet of FX nodes
        self.origin_node = origin_node

    def get_name(self):
        return self.name

    def get_operation_name(self):
        return self.name
