import contextlib


class _Virtualized:
    """Stands in for torch._inductor.virtualized.V: the graph being compiled."""

    def __init__(self):
        self._graph = None

    @property
    def graph(self):
        return self._graph

    @contextlib.contextmanager
    def set_graph_handler(self, graph):
        previous, self._graph = self._graph, graph
        try:
            yield
        finally:
            self._graph = previous


V = _Virtualized()
