"""Safe YAML reading with line numbers: compose to nodes, never construct arbitrary objects.

Profiles come from users' config directories, so they are read with the hardened reader of
``safe_yaml`` (no anchors or aliases, bounded depth and size, no duplicate keys, one document); this
module adds what profiles refuse on top (custom tags) and the node helpers the loader judges with.
Working on composed nodes rather than ``safe_load`` output is what lets every error name its line.
"""

from __future__ import annotations

from typing import Any

import yaml

from . import safe_yaml
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


def line_of(node: yaml.Node) -> int:
    """1-based line where ``node`` starts."""
    return int(node.start_mark.line) + 1


def compose(text: str, source: str) -> yaml.MappingNode:
    """Compose ``text`` with the hardened reader into the top-level mapping node, or raise a
    ProfileError with the line (and the field, where the reader knows it)."""
    try:
        root = safe_yaml.compose(text)
    except safe_yaml.YamlRefused as exc:
        message = exc.message
        if message.startswith("YAML anchors"):
            message += " in device profiles"
        raise ProfileError(source, exc.line, exc.field, message) from None
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
        return f"{safe_yaml.shown(node.value)} (a string)"
    if tag == _BOOL:
        return f"{node.value} (a boolean)"
    if tag == _NULL:
        return "nothing (null)"
    if tag == _FLOAT:
        return f"{safe_yaml.cut(node.value)} (a decimal number)"
    return safe_yaml.cut(str(node.value))


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
    """Keys of a mapping node to ``(key_node, value_node)``; rejects non-string keys (the reader has
    already refused duplicates)."""
    if not isinstance(node, yaml.MappingNode):
        raise ProfileError(source, line_of(node), field or None, f"expected a mapping, got {describe(node)}")
    check_tag(node, source, field)
    out: dict[str, tuple[yaml.Node, yaml.Node]] = {}
    for key_node, value_node in node.value:
        where = f"{field}.{key_node.value}" if field else str(key_node.value)
        if not is_str(key_node):
            raise ProfileError(
                source, line_of(key_node), field or None, f"keys must be plain words, got {describe(key_node)}"
            )
        check_tag(value_node, source, where)
        out[key_node.value] = (key_node, value_node)
    return out
