"""Safe YAML reading with line numbers: compose to nodes, never construct arbitrary objects.

Profiles come from users' config directories, so the reader refuses everything a plain data file
does not need: anchors and aliases (the "billion laughs" bomb is built from them), custom tags,
duplicate keys, more than one document.  Working on composed nodes rather than ``safe_load`` output
is what lets every error name the line it is about.
"""

from __future__ import annotations

from typing import Any

import yaml

from .errors import ProfileError

_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"
_SCALAR_TAGS = frozenset({_STR, _INT, _FLOAT, _BOOL, _NULL})
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"

_CONSTRUCTOR = yaml.constructor.SafeConstructor()


class _AnchorUsed(Exception):
    def __init__(self, mark: yaml.Mark) -> None:
        super().__init__("anchor")
        self.mark = mark


MAX_DEPTH = 32
"""Deepest nesting of mappings and lists a profile may use (it needs 3); deeper input would make the
recursive composer exhaust Python's stack."""


MAX_NODES = 5000
"""Most keys and values a profile may hold (one holds about 150): PyYAML composes in pure Python, so a
file of a million tiny entries would take seconds before validation could refuse it."""


class _TooDeep(Exception):
    def __init__(self, mark: yaml.Mark, reason: str) -> None:
        super().__init__(reason)
        self.mark = mark
        self.reason = reason


class _NoAnchorLoader(yaml.SafeLoader):
    """SafeLoader that stops at the first anchor or alias, before any node is shared or expanded,
    and at nesting deeper than ``MAX_DEPTH``."""

    _depth = 0
    _nodes = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node:
        event = self.peek_event()  # type: ignore[no-untyped-call]  # types-PyYAML leaves Parser.peek_event bare
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise _AnchorUsed(event.start_mark)
        if self._depth >= MAX_DEPTH:
            raise _TooDeep(event.start_mark, f"mappings and lists nested more than {MAX_DEPTH} deep")
        self._nodes += 1
        if self._nodes > MAX_NODES:
            raise _TooDeep(event.start_mark, f"more than {MAX_NODES} keys and values; a profile needs "
                                             "a few hundred at most")
        self._depth += 1
        try:
            return super().compose_node(parent, index)  # type: ignore[return-value]  # always a node here; stubs say | None
        finally:
            self._depth -= 1


def line_of(node: yaml.Node) -> int:
    """1-based line where ``node`` starts."""
    return int(node.start_mark.line) + 1


def compose(text: str, source: str) -> yaml.MappingNode:
    """Compose ``text`` into the top-level mapping node, or raise a ProfileError with the line."""
    try:
        root = yaml.compose(text, Loader=_NoAnchorLoader)
    except _AnchorUsed as exc:
        raise ProfileError(
            source,
            int(exc.mark.line) + 1,
            None,
            "YAML anchors and aliases (&name / *name) are not allowed in device profiles",
        ) from None
    except _TooDeep as exc:
        raise ProfileError(source, int(exc.mark.line) + 1, None, exc.reason) from None
    except RecursionError:  # pragma: no cover - the depth limit comes first
        raise ProfileError(source, None, None, "nesting too deep to read") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = int(mark.line) + 1 if mark is not None else None
        problem = exc.problem or exc.context or "invalid YAML"
        raise ProfileError(source, line, None, f"YAML syntax error: {problem}") from None
    except yaml.YAMLError as exc:
        raise ProfileError(source, None, None, f"YAML syntax error: {exc}") from None
    if root is None:
        raise ProfileError(source, 1, None, "top level must be a mapping, got an empty document")
    if not isinstance(root, yaml.MappingNode):
        raise ProfileError(source, line_of(root), None, f"top level must be a mapping, got {describe(root)}")
    return root


def describe(node: yaml.Node) -> str:
    """How an offending node is shown in a message: the value, and its YAML type where it misleads."""
    if isinstance(node, yaml.MappingNode):
        return "a mapping"
    if isinstance(node, yaml.SequenceNode):
        return "a list"
    tag = node.tag
    if tag == _STR:
        return f"{node.value!r} (a string)"
    if tag == _BOOL:
        return f"{node.value} (a boolean)"
    if tag == _NULL:
        return "nothing (null)"
    if tag == _FLOAT:
        return f"{node.value} (a decimal number)"
    return str(node.value)


def check_tag(node: yaml.Node, source: str, field: str) -> None:
    """Refuse explicit custom tags (``!foo``, ``!!python/...``): a profile is plain data."""
    allowed = _SCALAR_TAGS if isinstance(node, yaml.ScalarNode) else {_MAP, _SEQ}
    if node.tag not in allowed:
        raise ProfileError(source, line_of(node), field, f"unsupported YAML tag {node.tag!r}")


def scalar(node: yaml.Node) -> Any:
    """The Python value of a scalar node (int, float, bool, None or str), built by PyYAML's safe rules."""
    if node.tag == _STR:
        return node.value
    return _CONSTRUCTOR.yaml_constructors[node.tag](_CONSTRUCTOR, node)


def is_int(node: yaml.Node) -> bool:
    """True for a YAML integer; booleans are a separate tag, so ``true`` is never an int here."""
    return isinstance(node, yaml.ScalarNode) and node.tag == _INT


def is_number(node: yaml.Node) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.tag in (_INT, _FLOAT)


def is_str(node: yaml.Node) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.tag == _STR


def mapping(node: yaml.Node, source: str, field: str) -> dict[str, tuple[yaml.Node, yaml.Node]]:
    """Keys of a mapping node to ``(key_node, value_node)``; rejects non-string and duplicate keys."""
    if not isinstance(node, yaml.MappingNode):
        raise ProfileError(source, line_of(node), field or None, f"expected a mapping, got {describe(node)}")
    check_tag(node, source, field)
    out: dict[str, tuple[yaml.Node, yaml.Node]] = {}
    for key_node, value_node in node.value:
        where = f"{field}.{key_node.value}" if field else str(key_node.value)
        if not is_str(key_node):
            raise ProfileError(source, line_of(key_node), field or None, f"keys must be plain words, got {describe(key_node)}")
        if key_node.value in out:
            raise ProfileError(source, line_of(key_node), where, "duplicate key")
        check_tag(value_node, source, where)
        out[key_node.value] = (key_node, value_node)
    return out
