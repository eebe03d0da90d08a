"""Fake `torch_spyre` for the capture tests.

The modules, classes and functions the capture hooks have the names, places and signatures of
torch-spyre's (docs/capture.md lists the versions read). FAKE_TORCH_SPYRE_LAYOUT picks the
kernel-directory layout: "mid-2026" (default: `<kernel>_<random>`) or "late-2026"
(`<8 hex>_<kernel>_<random>`, and the persistent kernel cache when SPYRE_KERNEL_CACHE=1).
FAKE_SPYRE_OUTPUT_DIRS (JSON: kernel name -> list of directory names) makes get_output_dir hand
out given names, in order, instead of random ones, so a test can make the compile "produce" the
directories of testdata/demo. TORCH_SPYRE_KTIR=1 compiles every kernel to KTIR, as torch-spyre
does (kernels named ktir_..., a <kernel>.ktir file and no SDSC file in their directories).
"""
