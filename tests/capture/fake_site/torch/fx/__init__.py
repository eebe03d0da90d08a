from .node import Node  # noqa: F401
