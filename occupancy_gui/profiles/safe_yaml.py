"""The one hardened YAML reader of files from strangers: device profiles and session files.

Both are plain data that users swap by mail and bug report, so the reader refuses what such a file
never needs and what turns a small file into a large cost: anchors and aliases (the "billion laughs"
bomb is built from them), nesting deeper than :data:`MAX_DEPTH` (the composer recurses, and libyaml's
own composer crashes the process at depth 100,000), more than :data:`MAX_NODES` keys and values,
keys that are not scalars, duplicate keys (PyYAML silently keeps the last one) and integers too long
to convert (CPython refuses more than 4,300 digits with a ``ValueError``).

libyaml's C parser produces the events and PyYAML's small Python composer builds the nodes from
them, so the checks run on every event before anything is built: the 84 bundled profiles compose
9 to 25 times faster than with the pure-Python parser (13 ms against 340 ms on a quiet 2-core
machine; ``tests/benchmarks/bench_yaml.py``).  Without libyaml the pure-Python parser is used, with
the same checks.
Working on nodes rather than ``safe_load`` output lets every error name its line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import yaml
from yaml.composer import Composer
from yaml.resolver import Resolver


class PurePythonParser(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser):
    """PyYAML's pure-Python reader, scanner and parser: the same events as libyaml's, about 25 times slower."""

    def __init__(self, stream: str) -> None:
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)


try:
    from yaml._yaml import CParser as _Parser

    HAVE_LIBYAML = True
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    _Parser = PurePythonParser  # type: ignore[misc, assignment]  # the fallback stands in for CParser's class
    HAVE_LIBYAML = False

MAX_DEPTH = 32
"""Deepest nesting of mappings and lists (a profile needs 3, a session 3)."""

MAX_NODES = 5000
"""Most keys and values in one file (a profile holds about 150, a session about 30)."""

MAX_INT_CHARS = 64
"""Longest integer scalar: far past any figure these files hold (2^64 has 20 digits), far below
CPython's 4,300-digit conversion limit."""

_INT = "tag:yaml.org,2002:int"
_SHOWN = 40
"""Characters of a key or value an error message shows at most."""


class YamlRefused(Exception):
    """A document the reader will not build; ``line`` is 1-based and ``field`` the dotted key path
    (``limits.max_threads``), each ``None`` where unknown."""

    def __init__(self, line: int | None, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.line = line
        self.message = message
        self.field = field


def cut(text: str, limit: int = _SHOWN) -> str:
    """``text`` shortened to ``limit`` characters for a message (a file's value may be a megabyte)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def shown(value: Any, limit: int = _SHOWN) -> str:
    """``repr(value)`` for a message, cut; never formats more than ``limit`` characters of a big value."""
    if isinstance(value, (dict, list, tuple, set)):
        return f"a {'mapping' if isinstance(value, dict) else 'list'} of {len(value)} entries"
    if isinstance(value, str) and len(value) > 4 * limit:
        value = value[: 4 * limit]
    return cut(repr(value), limit)


def _line(mark: Any) -> int | None:
    return int(mark.line) + 1 if mark is not None else None


class _Checks(Composer, Resolver):
    """PyYAML's Python composer with the checks of the module docstring on each event; a subclass
    puts a parser (libyaml's or the pure-Python one) first in its bases."""

    def __init__(self) -> None:
        Composer.__init__(self)
        Resolver.__init__(self)
        self._depth = 0
        self._nodes = 0
        self._keys: list[str] = []  # the keys leading to the node being composed (a field's dotted name)

    if TYPE_CHECKING:  # the parser's side, which a subclass brings

        def peek_event(self) -> Any: ...
        def get_event(self) -> Any: ...
        def check_event(self, *choices: type) -> bool: ...

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise YamlRefused(
                _line(event.start_mark), "YAML anchors and aliases (&name / *name) are not allowed", self._field()
            )
        if self._depth >= MAX_DEPTH:
            raise YamlRefused(_line(event.start_mark), f"mappings and lists nested more than {MAX_DEPTH} deep")
        self._nodes += 1
        if self._nodes > MAX_NODES:
            raise YamlRefused(_line(event.start_mark), f"more than {MAX_NODES} keys and values")
        self._depth += 1
        try:
            node = cast(yaml.Node, Composer.compose_node(self, parent, index))
        finally:
            self._depth -= 1
        if isinstance(node, yaml.ScalarNode) and node.tag == _INT and len(node.value) > MAX_INT_CHARS:
            raise YamlRefused(
                _line(node.start_mark), f"a number of {len(node.value)} characters is too long", self._field()
            )
        return node

    def compose_mapping_node(self, anchor: Any) -> yaml.MappingNode:
        """PyYAML's ``Composer.compose_mapping_node``, refusing non-scalar and duplicate keys as they come."""
        start = self.get_event()
        tag = start.tag
        if tag is None or tag == "!":
            tag = self.resolve(yaml.MappingNode, None, start.implicit)  # type: ignore[no-untyped-call]  # types-PyYAML leaves resolve bare
        node = yaml.MappingNode(tag, [], start.start_mark, None, flow_style=start.flow_style)
        seen: dict[str, int | None] = {}
        while not self.check_event(yaml.MappingEndEvent):
            key = self.compose_node(node, None)
            if not isinstance(key, yaml.ScalarNode):
                raise YamlRefused(
                    _line(key.start_mark), "keys must be plain words, not mappings or lists", self._field()
                )
            if key.value in seen:
                first = seen[key.value]
                raise YamlRefused(
                    _line(key.start_mark),
                    "duplicate key" + (f" (first on line {first})" if first else ""),
                    self._field(key.value),
                )
            seen[key.value] = _line(key.start_mark)
            self._keys.append(key.value)
            try:
                value = self.compose_node(node, key)
            finally:
                self._keys.pop()
            node.value.append((key, value))
        node.end_mark = self.get_event().end_mark
        return node

    def _field(self, key: str | None = None) -> str | None:
        parts = [*self._keys, key] if key is not None else self._keys
        return cut(".".join(parts), 120) if parts else None


class _HardenedLoader(_Parser, _Checks):
    """libyaml's events (where PyYAML has libyaml) through the checked Python composer."""

    def __init__(self, text: str) -> None:
        _Parser.__init__(self, text)
        _Checks.__init__(self)

    # CParser defines its own (unchecked, recursive) composer; these are the checked Python ones.
    check_node = Composer.check_node
    get_node = Composer.get_node
    get_single_node = Composer.get_single_node
    compose_document = Composer.compose_document


class PurePythonLoader(PurePythonParser, _Checks):
    """The same checks on PyYAML's pure-Python events (a PyYAML without libyaml; tests compare the two)."""

    def __init__(self, text: str) -> None:
        PurePythonParser.__init__(self, text)
        _Checks.__init__(self)


def compose(text: str, loader_class: type | None = None) -> yaml.Node | None:
    """The node tree of the single document in ``text`` (``None`` for an empty one).

    Raises :class:`YamlRefused` for everything this module refuses and for YAML syntax errors,
    always with a one-line message and the line where known.
    """
    try:
        loader = (loader_class or _HardenedLoader)(text)
    except UnicodeError as exc:
        raise YamlRefused(None, f"not valid text: {cut(str(exc), 120)}") from None
    try:
        return loader.get_single_node()  # type: ignore[no-any-return]  # Composer's method, untyped in the stubs
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        raise YamlRefused(_line(mark), f"YAML syntax error: {cut(problem, 120)}") from None
    except yaml.YAMLError as exc:
        raise YamlRefused(None, f"YAML syntax error: {cut(' '.join(str(exc).split()), 120)}") from None
    except UnicodeError as exc:
        raise YamlRefused(None, f"not valid text: {cut(str(exc), 120)}") from None
    except RecursionError:  # pragma: no cover - the depth limit comes first
        raise YamlRefused(None, "nesting too deep to read") from None
    finally:
        loader.dispose()


_CONSTRUCTOR = yaml.constructor.SafeConstructor


def construct(node: yaml.Node) -> Any:
    """Plain Python data (dict, list, str, int, float, bool, None, dates) of a composed node.

    Refused input never gets here, so this cannot expand an alias or meet a too-long number.
    """
    try:
        return _CONSTRUCTOR().construct_document(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise YamlRefused(_line(mark), cut(" ".join(str(exc.problem or exc).split()), 120)) from None
    except (ValueError, TypeError, OverflowError) as exc:  # a scalar SafeConstructor cannot convert
        raise YamlRefused(_line(node.start_mark), cut(" ".join(str(exc).split()), 120)) from None
