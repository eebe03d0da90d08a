"""Fake `torch` for the capture tests: only the names torch-spyre's hook points touch.

Nothing here computes; it gives the fake compile (tests/capture/fake_simplemlp_compile.py) objects
shaped like the real ones: FX nodes, OpOverloads, ComputedBuffers, the Inductor graph and `V`.
"""
