"""The kernel caches JIT compilers leave on disk: Triton's (and torch inductor's, which holds Triton's), and
CuPy's (``triton_cache``)."""
