"""Kernel names demangled as ``c++filt --no-recurse-limit`` (GNU binutils) prints them.

One demangler: libiberty's ``cp-demangle.c``, the code c++filt runs, called through ctypes, from the first
of these a system has:

* **binutils' own** (``libbfd``, which exports libiberty's ``cplus_demangle``; Debian's ``libbinutils``,
  installed with ``binutils``), called with c++filt's options (``DMGL_PARAMS | DMGL_ANSI | DMGL_VERBOSE``)
  and ``DMGL_NO_RECURSE_LIMIT``, as ``--no-recurse-limit`` sets it: c++filt itself, name for name, with no
  length limit.  Measured on the 21,573 distinct ``_Z`` names of every library the suite reads (the five
  NVIDIA libraries in two releases, bitsandbytes' seven builds, flashinfer-cubin's 15,970 cubins): equal to
  ``c++filt --no-recurse-limit`` 2.40 on all of them, in 0.15 s (7 us a name; the c++filt process over a
  pipe took 0.37 s, libstdc++ and the fallback below 0.74 s).  A subprocess of c++filt was not taken:
  the window demangles lazily, a name at a time, and a pipe round trip per name costs more than the call.
* otherwise the C++ runtime's ``__cxa_demangle`` (libstdc++: an older libiberty, every system the app runs
  on has it), with the two differences below handled; and the pure-Python :mod:`.demangle_fallback` where
  it cannot answer.  On the same 21,573 names this path also equals c++filt (438 of them longer than 1,024
  characters, through the fallback); the tests hold it to c++filt name for name as well.

The differences of ``__cxa_demangle``, measured on the 15,422 distinct ``_Z`` names of libcurand,
libcublas, libcublasLt, libcufft and libcusparse (``tests/importers/test_demangle.py``):

* Linux: libstdc++'s ``__cxa_demangle`` (``libstdc++.so.6`` is on every system the app runs on; the
  PyInstaller bundle takes it from the system too).  It is libiberty's ``cp-demangle.c``, the code
  c++filt runs, so the spelling is c++filt's, e.g. ``(anonymous namespace)``, ``> >``,
  ``(xmma::Fill_mode)0``.  Two differences remain, and are handled here:

  - Options.  ``__cxa_demangle`` passes ``DMGL_PARAMS | DMGL_TYPES``, c++filt ``DMGL_PARAMS |
    DMGL_ANSI | DMGL_VERBOSE``.  Only ``DMGL_VERBOSE`` changes cp-demangle's output: c++filt prints
    the standard substitutions ``Ss``, ``Si``, ``So``, ``Sd`` in full (``std::basic_string<char,
    std::char_traits<char>, std::allocator<char> >``), ``__cxa_demangle`` as ``std::string``,
    ``std::istream``, ``std::ostream``, ``std::iostream``.  Those four words are written out in full
    here when the mangled name holds one of the four codes (no library name does).
  - Length.  ``__cxa_demangle`` refuses (status -2) every name longer than 1024 bytes, however
    simple (``_Z1017aaa...av`` of 1024 is demangled, of 1025 not): libiberty sizes its component
    table at twice the name's length and gives up past its recursion limit, 2048, unless
    ``DMGL_NO_RECURSE_LIMIT`` is set, which c++filt's ``--no-recurse-limit`` does and
    ``__cxa_demangle`` cannot.  414 of the names are that long (102 of libcublasLt, 312
    of libcusparse, 1,349 to 2,489 characters); they go to the pure-Python demangler of
    :mod:`.demangle_fallback`, which prints all 414 exactly as c++filt does.

  With both, the output equals c++filt's on all 15,422 names (the hand-written demangler this
  module replaced left 2,783 of them mangled and printed 75 wrongly).
* macOS (no libstdc++): libc++abi's ``__cxa_demangle``, LLVM's demangler.  Its spelling is LLVM's,
  not c++filt's: measured with LLVM 14's libc++abi on Linux, 34 of the 15,422 names (all of them
  libcurand's, whose template arguments hold expressions) resolve a substitution differently, e.g.
  ``curandStateXORWOW**`` for ``curandStateXORWOW*``.  It demangles every name, so it is used
  rather than the fallback.
* Windows: the C runtime has no Itanium demangler (``UnDecorateSymbolName`` is for MSVC names), so
  every name goes to :mod:`.demangle_fallback`, which never prints a library name differently from
  c++filt but leaves 2,860 of them (about one in five) mangled.

The ``cxxfilt`` package of PyPI wraps the same ``__cxa_demangle`` with ctypes: it would add a
dependency and lift neither difference.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import ctypes

# Longer names than this are refused by libiberty's __cxa_demangle (its recursion limit).
_LIBIBERTY_MAX_LEN = 1024
# Longer names than this do not go to binutils' libiberty: without its recursion limit, a crafted name of
# 10^5 characters overflows the calling thread's stack in cp-demangle's recursion and variable-length arrays
# (a segmentation fault, measured; c++filt survives it on its own main thread's 8 MiB).  Real names stay far
# below (the longest of the suite's libraries: 2,489); longer ones go to the fallback, which stops cleanly.
_BINUTILS_MAX_LEN = 8192
# c++filt's options (binutils cxxfilt.c: DMGL_PARAMS | DMGL_ANSI | DMGL_VERBOSE) and --no-recurse-limit's.
_CXXFILT_OPTIONS = 1 | 2 | 8 | 1 << 18
# Where a system keeps binutils' libbfd (Debian's libbinutils: libbfd-2.40-system.so; others: libbfd-2.xx.so).
_BFD_DIRS = ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib")
# DMGL_VERBOSE: c++filt prints the standard substitutions in full.
_VERBOSE = {
    "string": "std::basic_string<char, std::char_traits<char>, std::allocator<char> >",
    "istream": "std::basic_istream<char, std::char_traits<char> >",
    "ostream": "std::basic_ostream<char, std::char_traits<char> >",
    "iostream": "std::basic_iostream<char, std::char_traits<char> >",
}
_ABBREVIATED = re.compile(r"(?<![\w:])std::(string|istream|ostream|iostream)(?!\w)")
_STD_SUB_CODE = re.compile(r"S[sido]")

_Demangler = Callable[[bytes], bytes | None]


def _bind(lib: ctypes.CDLL, free: Callable[[int], None]) -> _Demangler:
    import ctypes  # noqa: PLC0415 - lazy: ctypes loads with the first demangled name

    cxa = lib.__cxa_demangle
    cxa.restype = ctypes.c_void_p
    cxa.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]

    def call(mangled: bytes) -> bytes | None:
        status = ctypes.c_int(0)
        try:
            buf = cxa(mangled, None, None, ctypes.byref(status))  # malloc'd by the runtime
        except ctypes.ArgumentError:
            return None
        if not buf:
            return None
        try:
            return ctypes.string_at(buf)
        finally:
            free(buf)

    return call


def _bind_binutils(lib: ctypes.CDLL, free: Callable[[int], None]) -> _Demangler:
    import ctypes  # noqa: PLC0415 - lazy: as in _bind

    cplus = lib.cplus_demangle
    cplus.restype = ctypes.c_void_p
    cplus.argtypes = [ctypes.c_char_p, ctypes.c_int]

    def call(mangled: bytes) -> bytes | None:
        try:
            buf = cplus(mangled, _CXXFILT_OPTIONS)  # malloc'd by libiberty
        except ctypes.ArgumentError:
            return None
        if not buf:
            return None
        try:
            return ctypes.string_at(buf)
        finally:
            free(buf)

    return call


def _binutils_libraries() -> Iterator[str]:
    """binutils' libbfd where the system keeps it (a glob of a few folders; no subprocess)."""
    import glob  # noqa: PLC0415 - lazy: only the first demangled name looks

    for folder in _BFD_DIRS:
        yield from sorted(glob.glob(f"{folder}/libbfd*.so*"), reverse=True)


def _candidates() -> Iterator[tuple[str, str | None]]:
    """Where the C++ runtime may be: its usual names first (dlopen, no subprocess), then a search."""
    yield "libstdc++", "libstdc++.so.6"
    yield "libc++abi", "libc++abi.dylib"
    import ctypes.util  # noqa: PLC0415 - lazy: only when no usual soname loads

    yield "libstdc++", ctypes.util.find_library("stdc++")
    yield "libc++abi", ctypes.util.find_library("c++abi")


@functools.cache
def runtimes() -> tuple[tuple[str, _Demangler], ...]:
    """Every libiberty this system offers, the one :func:`runtime` takes first: ``("binutils", call)`` where
    binutils' libbfd loads, then ``("libstdc++" | "libc++abi", call)``, the C++ runtime's (none on Windows).
    The tests hold each to c++filt."""
    if sys.platform == "win32":
        return ()
    import ctypes  # noqa: PLC0415 - lazy: as in _bind

    try:
        libc_free = ctypes.CDLL(None).free
    except (OSError, AttributeError):
        return ()
    libc_free.restype = None
    libc_free.argtypes = [ctypes.c_void_p]
    found: list[tuple[str, _Demangler]] = []
    for path in _binutils_libraries():
        try:
            found.append(("binutils", _bind_binutils(ctypes.CDLL(path), libc_free)))
            break
        except (OSError, AttributeError):
            continue
    for kind, soname in _candidates():
        if not soname:
            continue
        try:
            found.append((kind, _bind(ctypes.CDLL(soname), libc_free)))
            break
        except (OSError, AttributeError):
            continue
    return tuple(found)


def runtime() -> tuple[str, _Demangler] | None:
    """``(kind, call)`` of the demangler :func:`demangle` uses (the first of :func:`runtimes`), or None."""
    found = runtimes()
    return found[0] if found else None


def is_slow(name: str) -> bool:
    """Whether :func:`demangle` would take the pure-Python fallback for ``name`` (about 1 ms a name of
    2,000 characters, against 5 us through the runtime): the worker processes that read a library
    demangle these themselves, in parallel, so the parent that lists libcusparse's 312 does not."""
    if not name.startswith("_Z"):
        return False
    found = runtime()
    return found is None or len(name) > (_LIBIBERTY_MAX_LEN if found[0] == "libstdc++" else _BINUTILS_MAX_LEN)


def _fallback(name: str) -> str:
    from .demangle_fallback import demangle as fallback  # noqa: PLC0415 - lazy: only without a C++ runtime

    return fallback(name)


@functools.lru_cache(maxsize=1 << 16)
def demangle(name: str) -> str:
    """``_ZN3occ9tiled_sumILi512EEEvPKfPfi`` -> ``void occ::tiled_sum<512>(float const*, float*, int)``.

    As ``c++filt --no-recurse-limit`` prints it.  Names that are not mangled (``extern "C"``
    kernels) and names that cannot be demangled come back unchanged; never raises.
    """
    if not name.startswith("_Z") or "\0" in name:
        return name
    found = runtime()
    if found is None:
        return _fallback(name)
    kind, call = found
    if kind == "binutils" and len(name) > _BINUTILS_MAX_LEN:
        return _fallback(name)
    try:
        raw = name.encode()
        out = call(raw)
    except (UnicodeError, OSError):
        return name
    if out is None:
        if kind == "libstdc++" and len(raw) > _LIBIBERTY_MAX_LEN:
            return _fallback(name)
        return name
    text = out.decode("utf-8", "replace")
    if kind == "libstdc++" and _STD_SUB_CODE.search(name):
        text = _ABBREVIATED.sub(lambda m: _VERBOSE[m[1]], text)
    return text
