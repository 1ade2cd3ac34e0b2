"""A small pure-Python Itanium C++ ABI demangler: the fallback of :mod:`.demangle`.

:mod:`.demangle` calls libiberty (binutils' libbfd, else the C++ runtime's ``__cxa_demangle``); this
module is used only where that cannot answer: on Windows (no Itanium demangler in the C runtime), for
names longer than 1024 characters where only libstdc++'s ``__cxa_demangle`` is there (its recursion
limit, which ``c++filt`` lifts with ``--no-recurse-limit``), and for names longer than binutils' safe
length (``demangle._BINUTILS_MAX_LEN``).

It covers what kernels are made of: namespaces and nested classes, templates with type, integer and
boolean arguments, template parameter references, substitutions, pointers, references, cv and
``__restrict`` qualifiers, function pointer parameters, lambdas' closure types (``{lambda(int)#2}``) and
``extern "C"`` names, in c++filt's spelling: ``DMGL_VERBOSE``'s ``std::basic_string<...>`` for ``Ss``, and
libiberty's ``>>`` after an empty trailing pack (``A<B<int>>``; "> >" elsewhere).  Anything beyond that
(expressions in template arguments, dependent names such as ``T_::value_type``, operator names, a
substitution whose meaning depends on where it is used) makes :func:`demangle` return its input
unchanged, never raise.  Measured on the 21,573 distinct ``_Z`` names of every library the suite reads
(see ``tests/importers/test_demangle.py``): it never prints a name differently from ``c++filt
--no-recurse-limit``, leaves 2,910 mangled (one in seven), and prints all 438 names longer than 1024
characters exactly.
"""

from __future__ import annotations

import functools
import re

_BUILTINS = {
    "v": "void",
    "w": "wchar_t",
    "b": "bool",
    "c": "char",
    "a": "signed char",
    "h": "unsigned char",
    "s": "short",
    "t": "unsigned short",
    "i": "int",
    "j": "unsigned int",
    "l": "long",
    "m": "unsigned long",
    "x": "long long",
    "y": "unsigned long long",
    "n": "__int128",
    "o": "unsigned __int128",
    "f": "float",
    "d": "double",
    "e": "long double",
    "g": "__float128",
    "z": "...",
}
_D_BUILTINS = {
    "h": "half",
    "f": "decimal32",
    "d": "decimal64",
    "e": "decimal128",
    "n": "decltype(nullptr)",
    "s": "char16_t",
    "i": "char32_t",
    "u": "char8_t",
    "a": "auto",
    "c": "decltype(auto)",
}
# c++filt's DMGL_VERBOSE spelling of the standard substitutions.
_STD_SUBS = {
    "t": "std",
    "a": "std::allocator",
    "b": "std::basic_string",
    "s": "std::basic_string<char, std::char_traits<char>, std::allocator<char> >",
    "i": "std::basic_istream<char, std::char_traits<char> >",
    "o": "std::basic_ostream<char, std::char_traits<char> >",
    "d": "std::basic_iostream<char, std::char_traits<char> >",
}
_CLONE_SUFFIX = re.compile(r"(?:\.[a-z0-9_][a-z0-9_]*)?(?:\.[0-9]+)*")
_LITERAL_SUFFIX = {"j": "u", "l": "l", "m": "ul", "x": "ll", "y": "ull"}


class _Fail(Exception):
    pass


class _Contextual:
    """A substitution whose meaning depends on where it is used (see ``_Parser.local_name``)."""

    def __init__(self, printed: object):
        self.printed = printed


_NESTING = re.compile(r"[<(]|[>)]|::")


def _last_component(printed: str) -> str:
    """``a::B<c::D>`` -> ``B``: the unqualified name a constructor of ``printed`` is named after.

    Only brackets and ``::`` are visited (a regex finds them): substitutions of library names run
    to kilobytes, and this is called for each (a character loop took 1.2 s of libcusparse)."""
    depth = start = 0
    for m in _NESTING.finditer(printed):
        token = m.group()
        if token in "<(":
            depth += 1
        elif token in ">)":
            depth -= 1
        elif depth == 0:
            start = m.end()
    return printed[start:].split("<", 1)[0]


class _Fn:
    """A function type: printed specially when a pointer or reference wraps it."""

    def __init__(self, ret: str, params: list[str]):
        self.ret = ret
        self.params = params

    def with_declarator(self, decl: str) -> str:
        return f"{self.ret} ({decl})({', '.join(self.params)})"

    def __str__(self) -> str:
        return f"{self.ret} ({', '.join(self.params)})"


class _Parser:
    def __init__(self, text: str):
        self.s = text
        self.i = 0
        self.subs: list[object] = []
        self.template_args: list[str] = []
        self.param_refs = 0  # template parameters read so far (see local_name)

    # -- helpers ---------------------------------------------------------------------------
    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.s[j] if j < len(self.s) else ""

    def take(self, expected: str | None = None) -> str:
        if self.i >= len(self.s):
            raise _Fail
        ch = self.s[self.i]
        if expected is not None and ch != expected:
            raise _Fail
        self.i += 1
        return ch

    def number(self) -> int:
        start = self.i
        while self.peek().isdigit():
            self.i += 1
        if start == self.i:
            raise _Fail
        return int(self.s[start : self.i])

    def seq_id(self) -> int:
        """The ``<seq-id>`` of ``S<seq-id>_`` / ``T<seq-id>_``: base 36, empty means 0."""
        if self.peek() == "_":
            self.i += 1
            return 0
        start = self.i
        while self.peek().isdigit() or self.peek().isupper():
            self.i += 1
        digits = self.s[start : self.i]
        self.take("_")
        if not digits:
            raise _Fail
        return int(digits, 36) + 1

    # -- grammar ---------------------------------------------------------------------------
    def encoding(self, top_level: bool = True) -> str:
        """A function or data name; a function's return type is printed at the top level only (c++filt names
        the function a local entity lives in without it: "f<int>(int)::{lambda()#1}")."""
        name, is_template, is_ctor = self.name()
        if self.i >= len(self.s) or self.peek() == "E":
            return name  # a data object, or a name without a signature
        ret = ""
        if is_template and not is_ctor:
            ret = str(self.type())
        params = self.bare_params()
        sig = f"{name}({params})"
        return f"{ret} {sig}" if ret and top_level else sig

    def bare_params(self) -> str:
        params = []
        while self.i < len(self.s) and self.peek() not in ("E", ".", "$"):
            params.append(str(self.type()))
        if not params:
            raise _Fail  # a function has at least one parameter type (``v``)
        if params == ["void"]:
            return ""
        return ", ".join(params)

    def name(self) -> tuple[str, bool, bool]:
        """Returns (printed name, whether it ends in template args, whether it is a ctor/dtor)."""
        ch = self.peek()
        if ch == "N":
            return self.nested_name()
        if ch == "Z":
            return self.local_name()
        if ch == "S" and self.peek(1) != "t":
            base = str(self.substitution())
            if self.peek() == "I":
                printed, args = self.template_args_()
                self.template_args = args
                return base + printed, True, False
            return base, False, False
        if ch == "S":
            self.i += 2
            unq, is_ctor = self.unqualified_name(None)
            base = "std::" + unq
        else:
            base, is_ctor = self.unqualified_name(None)
        if self.peek() == "I":
            self.subs.append(base)
            printed, args = self.template_args_()
            self.template_args = args
            return base + printed, True, is_ctor
        return base, False, is_ctor

    def local_name(self) -> tuple[str, bool, bool]:
        """``Z <function> E <entity>``: the function's own template arguments are its own, so the ones a later
        ``T_`` names are those in force before it (a lambda of ``f<int>`` inside a kernel's template argument)."""
        self.take("Z")
        enclosing_args = self.template_args
        first_sub, refs = len(self.subs), self.param_refs
        outer = self.encoding(top_level=False)
        if self.param_refs != refs:
            # libiberty keeps a substitution that holds a template parameter as the parameter, printed with
            # the arguments in force where it is used: one made in this function's signature means the
            # outer template's argument when a later S_ names it.  Printed text cannot: such a use gives up.
            self.subs[first_sub:] = map(_Contextual, self.subs[first_sub:])
        self.take("E")
        if self.peek() == "s":
            self.i += 1
            self.template_args = enclosing_args
            return outer + "::string literal", False, False
        inner, is_template, is_ctor = self.name()
        if self.peek() == "_":  # discriminator
            self.i += 1
            self.number()
        if not is_template:
            self.template_args = enclosing_args
        return f"{outer}::{inner}", is_template, is_ctor

    def nested_name(self) -> tuple[str, bool, bool]:
        self.take("N")
        quals = ""
        while self.peek() in ("r", "V", "K"):
            quals += {"r": " restrict", "V": " volatile", "K": " const"}[self.take()]
        if self.peek() in ("R", "O"):
            self.i += 1
        parts = ""
        last = ""
        is_template = False
        is_ctor = False
        while self.peek() != "E":
            if self.i >= len(self.s):
                raise _Fail
            from_sub = False
            ch = self.peek()
            if ch == "I":
                if not parts:
                    raise _Fail
                printed, args = self.template_args_()
                parts += printed
                self.template_args = args
                is_template = True
            elif ch == "S" and self.peek(1) == "t":
                self.i += 2
                unq, is_ctor = self.unqualified_name(last)
                parts = "std::" + unq
                last = unq
                is_template = False
            elif ch == "S":
                parts = str(self.substitution())
                last = _last_component(parts)
                from_sub = True
                is_template = False
            elif ch == "T":
                parts = str(self.template_param())
                last = _last_component(parts)
                is_template = False
            else:
                unq, is_ctor = self.unqualified_name(last)
                parts = f"{parts}::{unq}" if parts else unq
                last = unq.split("<", 1)[0]
                is_template = False
            if not from_sub and self.peek() != "E":
                self.subs.append(parts)
        self.take("E")
        return parts + quals, is_template, is_ctor

    def unqualified_name(self, enclosing: str | None) -> tuple[str, bool]:
        ch = self.peek()
        if ch.isdigit():
            return self.source_name(), False
        if ch == "C" and self.peek(1) in "12345":
            self.i += 2
            if not enclosing:
                raise _Fail
            return enclosing.split("<", 1)[0], True
        if ch == "D" and self.peek(1) in "0125":
            self.i += 2
            if not enclosing:
                raise _Fail
            return "~" + enclosing.split("<", 1)[0], True
        if ch == "L":  # internal linkage marker before a source name
            self.i += 1
            return self.source_name(), False
        if ch == "U" and self.peek(1) == "l":  # a lambda's closure type: {lambda(int, float)#2}
            self.i += 2
            params = []
            while self.peek() != "E":
                if self.i >= len(self.s):
                    raise _Fail
                params.append(str(self.type()))
            self.take("E")
            n = 1
            if self.peek() != "_":
                n = self.number() + 2
            self.take("_")
            return f"{{lambda({'' if params == ['void'] else ', '.join(params)})#{n}}}", False
        if ch == "U" and self.peek(1) == "t":  # unnamed type
            self.i += 2
            n = 1
            if self.peek() != "_":
                n = self.number() + 2
            self.take("_")
            return f"{{unnamed type#{n}}}", False
        raise _Fail

    def source_name(self) -> str:
        n = self.number()
        ident = self.s[self.i : self.i + n]
        if len(ident) != n:
            raise _Fail
        self.i += n
        if ident.startswith("_GLOBAL__N"):
            return "(anonymous namespace)"
        return ident

    def substitution(self) -> object:
        self.take("S")
        ch = self.peek()
        if ch in _STD_SUBS and ch != "t":
            self.i += 1
            return _STD_SUBS[ch]
        idx = self.seq_id()
        if idx >= len(self.subs) or isinstance(self.subs[idx], _Contextual):
            raise _Fail
        return self.subs[idx]

    def template_param(self) -> str:
        self.param_refs += 1
        self.take("T")
        idx = self.seq_id()
        if idx >= len(self.template_args):
            raise _Fail
        return self.template_args[idx]

    def template_args_(self) -> tuple[str, list[str]]:
        self.take("I")
        args: list[str] = []
        while self.peek() != "E":
            if self.i >= len(self.s):
                raise _Fail
            args.append(self.template_arg())
        self.take("E")
        inner = ", ".join(a for a in args if a != "")
        # libiberty writes ", " before each argument after the first and takes it back when the argument
        # prints nothing (an empty pack), but remembers the blank as the last character written: after a
        # trailing empty pack it sees no '>' and closes with ">>" ("A<B<int>>"), else with "> >".
        if inner.endswith(">") and not (len(args) > 1 and args[-1] == ""):
            inner += " "
        return f"<{inner}>", args

    def template_arg(self) -> str:
        ch = self.peek()
        if ch == "L":
            return self.literal()
        if ch == "J":  # argument pack
            self.i += 1
            items = []
            while self.peek() != "E":
                if self.i >= len(self.s):
                    raise _Fail
                items.append(self.template_arg())
            self.i += 1
            return ", ".join(items)
        if ch == "X":
            raise _Fail
        return str(self.type())

    def literal(self) -> str:
        self.take("L")
        if self.peek() == "_" and self.peek(1) == "Z":
            self.i += 2
            inner = self.encoding()
            self.take("E")
            return inner
        code = self.peek()
        if code in _BUILTINS and code not in ("v", "z"):
            self.i += 1
            neg, value = self._literal_value()
            if code == "b" and value in ("0", "1"):
                return "true" if value == "1" else "false"
            if code == "i":
                return neg + value
            if code in _LITERAL_SUFFIX:
                return neg + value + _LITERAL_SUFFIX[code]
            return f"({_BUILTINS[code]}){neg}{value}"
        typ = str(self.type())
        neg, value = self._literal_value()
        return f"({typ}){neg}{value}"

    def _literal_value(self) -> tuple[str, str]:
        """The ``[n]<digits>E`` of a literal: its sign ("-" or "") and digits."""
        neg = ""
        if self.peek() == "n":
            self.i += 1
            neg = "-"
        start = self.i
        while self.peek() not in ("E", ""):
            self.i += 1
        value = self.s[start : self.i]
        self.take("E")
        return neg, value

    def type(self) -> object:
        """A type.  Template arguments met inside it (``A<long, true>``) are the type's, not the function's:
        a later ``T_`` still names the function's (libiberty keeps them apart likewise)."""
        function_args = self.template_args
        try:
            return self._type()
        finally:
            self.template_args = function_args

    def _type(self) -> object:
        ch = self.peek()
        if ch in _BUILTINS:
            self.i += 1
            return _BUILTINS[ch]
        if ch == "u":
            self.i += 1
            return self.source_name()
        if ch == "D":
            nxt = self.peek(1)
            if nxt in _D_BUILTINS:
                self.i += 2
                return _D_BUILTINS[nxt]
            if nxt == "F":  # _FloatN
                self.i += 2
                n = self.number()
                self.take("_")
                return f"_Float{n}"
            raise _Fail
        if ch in ("P", "R", "O"):
            self.i += 1
            inner = self.type()
            sym = {"P": "*", "R": "&", "O": "&&"}[ch]
            out = inner.with_declarator(sym) if isinstance(inner, _Fn) else f"{inner}{sym}"
            self.subs.append(out)
            return out
        if ch in ("K", "V", "r"):
            quals = []
            while self.peek() in ("K", "V", "r"):
                quals.append({"K": "const", "V": "volatile", "r": "restrict"}[self.take()])
            inner = self.type()
            order = [q for q in ("restrict", "volatile", "const") if q in quals]
            out = f"{inner} {' '.join(reversed(order))}"
            self.subs.append(out)
            return out
        if ch == "F":
            self.i += 1
            if self.peek() == "Y":
                self.i += 1
            ret = str(self.type())
            params = []
            while self.peek() != "E":
                if self.i >= len(self.s):
                    raise _Fail
                params.append(str(self.type()))
            self.i += 1
            if params == ["void"]:
                params = []
            fn = _Fn(ret, params)
            self.subs.append(fn)
            return fn
        if ch == "A":
            self.i += 1
            n = self.number()
            self.take("_")
            inner = self.type()
            out = f"{inner} [{n}]"
            self.subs.append(out)
            return out
        if ch == "T":
            out = self.template_param()
            self.subs.append(out)
            if self.peek() == "I":
                printed, _ = self.template_args_()
                out = out + printed
                self.subs.append(out)
            return out
        if ch == "S" and self.peek(1) != "t":
            base = self.substitution()
            if self.peek() == "I":
                printed, _ = self.template_args_()
                out = f"{base}{printed}"
                self.subs.append(out)
                return out
            return base
        if ch == "N" or ch.isdigit() or ch == "Z" or (ch == "S" and self.peek(1) == "t"):
            saved = self.template_args
            name, _, _ = self.name_as_type()
            self.template_args = saved
            self.subs.append(name)
            return name
        raise _Fail

    def name_as_type(self) -> tuple[str, bool, bool]:
        if self.peek() == "N":
            return self.nested_name()
        if self.peek() == "Z":
            return self.local_name()
        prefix = ""
        if self.peek() == "S":
            self.i += 2
            prefix = "std::"
        base = prefix + self.source_name()
        if self.peek() == "I":
            self.subs.append(base)
            printed, _ = self.template_args_()
            return base + printed, True, False
        return base, False, False


@functools.lru_cache(maxsize=1 << 16)
def demangle(name: str) -> str:
    """``_ZN3occ9tiled_sumILi512EEEvPKfPfi`` -> ``void occ::tiled_sum<512>(float const*, float*, int)``.

    Names that are not mangled (``extern "C"`` kernels) and names this demangler does not cover
    come back unchanged.  Clone suffixes (``.cold``, ``.isra.0``) are printed as libiberty prints
    them, `` [clone .cold]`` each; a ``$`` suffix (``_Z5heavyPKfi$1``) is not demangled, as in c++filt.
    """
    if not name.startswith("_Z"):
        return name
    body = name[2:]
    try:
        parser = _Parser(body)
        out = parser.encoding()
        while parser.i < len(body):
            m = _CLONE_SUFFIX.match(body, parser.i)
            end = m.end() if m else parser.i
            if end == parser.i:
                return name
            out += f" [clone {body[parser.i : end]}]"
            parser.i = end
    except (_Fail, ValueError, IndexError, RecursionError):
        return name
    return out
