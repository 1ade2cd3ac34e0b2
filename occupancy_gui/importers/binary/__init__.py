"""Binary inputs, read without the CUDA toolkit: CUDA ELF images (``cubin``), fatbin containers (``fatbin``)
wherever a file keeps them (``host``: ELF and PE host binaries; ``embedded``: a library's own data sections;
``archive``: ``ar`` static libraries; ``offload``: clang's offload binaries), the inflation of compressed images
within one budget (``inflate``, ``budget``, ``decompress``), the bytes beneath (``blob``, ``elf``, ``pe``); one
import of any of them (``reader``), and of a big one by worker processes (``parallel``, ``worker``)."""
