"""Reading one AMD profile file strictly: every problem names the file, the line and the field.

Uses the same hardened YAML reader as the NVIDIA profiles (``_yaml``: no anchors, no custom tags, no
duplicate keys, bounded size) and the same one-line ``ProfileError``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from . import _yaml as Y
from . import amd_schema as S
from .errors import ProfileError
from .loader import Sourced


@dataclass(frozen=True)
class RawAmdProfile:
    """One AMD file after validation: a target (``limits``) or a product (``target`` and its CU counts)."""

    path: str
    kind: str
    name: str
    title: str | None = None
    architecture: str | None = None
    target: str | None = None
    aliases: tuple[str, ...] = ()
    segment: str | None = None
    notes: str | None = None
    compute_units: Sourced | None = None
    hip_multiprocessor_count: Sourced | None = None
    limits: dict[str, Sourced] = field(default_factory=dict, hash=False)
    lines: dict[str, int] = field(default_factory=dict, hash=False, compare=False)


def load_amd_profile(path: str | Path) -> RawAmdProfile:
    """Read and validate one AMD profile; files above 1 MiB are refused unread."""
    path = Path(path)
    try:
        with path.open("rb") as handle:
            data = handle.read(S.MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ProfileError(str(path), None, None, f"cannot read file: {exc.strerror or exc}") from None
    return parse_amd_profile(data, str(path))


def parse_amd_profile(text: str | bytes, source: str) -> RawAmdProfile:
    """Validate AMD profile ``text`` (bytes must be UTF-8); ``source`` names it in every error."""
    if len(text) > S.MAX_FILE_BYTES:
        raise ProfileError(
            source, None, None, f"file is larger than the 1 MiB limit for profiles ({len(text)} bytes read)"
        )
    if isinstance(text, bytes):
        data = text
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            raise ProfileError(source, line, None, f"file is not valid UTF-8 at byte offset {exc.start}") from None
    return _Builder(source).build(Y.compose(text.removeprefix("\ufeff"), source))


class _Builder:
    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, node: yaml.Node | int | None, where: str | None, message: str) -> ProfileError:
        line = Y.line_of(node) if isinstance(node, yaml.Node) else node
        return ProfileError(self.source, line, where, message)

    def build(self, root: yaml.MappingNode) -> RawAmdProfile:
        top = Y.mapping(root, self.source, "")
        lines = {key: Y.line_of(k) for key, (k, _v) in top.items()}
        if "kind" not in top:
            raise self.fail(root, "kind", f"missing required key ({' or '.join(S.KINDS)})")
        kind = self.choice(top["kind"][1], "kind", S.KINDS)
        allowed = S.allowed_keys(kind)
        for key, (key_node, _v) in top.items():
            if key not in allowed:
                raise self.fail(
                    key_node, key, f"unknown key for an {kind} profile; allowed: {', '.join(sorted(allowed))}"
                )
        for key in S.KEY_ORDER:
            if key in S.required_keys(kind) and key not in top:
                raise self.fail(root, key, f"missing required key for an {kind} profile")
        schema = top["schema"][1]
        if not Y.is_int(schema) or Y.scalar(schema) != S.SCHEMA_VERSION:
            raise self.fail(
                schema, "schema", f"unsupported schema version {Y.describe(schema)}; expected {S.SCHEMA_VERSION}"
            )
        name = self.text(top["name"][1], "name", S.MAX_NAME_LENGTH)
        raw: dict[str, Any] = {"path": self.source, "kind": kind, "name": name, "lines": lines}
        for key in ("title", "notes", "architecture"):
            if key in top:
                raw[key] = self.text(
                    top[key][1], key, S.MAX_NAME_LENGTH if key == "architecture" else S.MAX_TEXT_LENGTH
                )
        if "aliases" in top:
            raw["aliases"] = self.aliases(top["aliases"][1], lines)
        if kind == "amd_target":
            if not S.TARGET_NAME.match(name):
                raise self.fail(
                    top["name"][1], "name", f"an amd_target is named by its gfx target (gfx942, gfx1100), got {name!r}"
                )
            raw["limits"] = self.limits(top["limits"][1])
        else:
            target = self.text(top["target"][1], "target", S.MAX_NAME_LENGTH)
            if not S.TARGET_NAME.match(target):
                raise self.fail(top["target"][1], "target", f"expected a gfx target such as gfx942, got {target!r}")
            raw["target"] = target
            raw["segment"] = self.choice(top["segment"][1], "segment", S.SEGMENTS)
            for key in ("compute_units", "hip_multiprocessor_count"):
                raw[key] = self.sourced(top[key][1], key, lambda n, f: self.int_value(n, f, 1, S.MAX_COMPUTE_UNITS))
        return RawAmdProfile(**raw)

    def text(self, node: yaml.Node, where: str, max_len: int) -> str:
        if not Y.is_str(node):
            raise self.fail(node, where, f"expected text, got {Y.describe(node)}")
        value = str(node.value)
        if not value.strip():
            raise self.fail(node, where, "must not be empty")
        if max_len == S.MAX_NAME_LENGTH and (value != value.strip() or "\n" in value):
            raise self.fail(node, where, "must be one line without leading or trailing spaces")
        if len(value) > max_len:
            raise self.fail(node, where, f"longer than {max_len} characters")
        return value

    def choice(self, node: yaml.Node, where: str, options: tuple[str, ...]) -> str:
        if not Y.is_str(node) or node.value not in options:
            raise self.fail(node, where, f"expected one of {', '.join(options)}; got {Y.describe(node)}")
        return str(node.value)

    def aliases(self, node: yaml.Node, lines: dict[str, int]) -> tuple[str, ...]:
        if not isinstance(node, yaml.SequenceNode):
            raise self.fail(node, "aliases", f"expected a list of names, got {Y.describe(node)}")
        out: list[str] = []
        for index, item in enumerate(node.value):
            where = f"aliases[{index}]"
            Y.check_tag(item, self.source, where)
            alias = self.text(item, where, S.MAX_NAME_LENGTH)
            if alias.casefold() in (a.casefold() for a in out):
                raise self.fail(item, where, f"duplicate alias {alias!r}")
            lines[f"aliases.{index}"] = Y.line_of(item)
            out.append(alias)
        return tuple(out)

    def int_value(self, node: yaml.Node, where: str, minimum: int, maximum: int) -> int:
        value = Y.scalar(node) if Y.is_int(node) else None
        if value is None or value < minimum:
            raise self.fail(node, where, f"expected an integer >= {minimum}, got {Y.describe(node)}")
        if value > maximum:
            raise self.fail(node, where, f"expected at most {maximum}, got {value}")
        return int(value)

    def sourced(self, node: yaml.Node, where: str, check: Any) -> Sourced:
        entry = Y.mapping(node, self.source, where)
        for key, (key_node, _v) in entry.items():
            if key not in S.SOURCED_KEYS:
                raise self.fail(
                    key_node, f"{where}.{key}", "unknown key; a value entry holds exactly `value` and `source`"
                )
        if "value" not in entry:
            raise self.fail(node, where, "missing `value`")
        if "source" not in entry:
            raise self.fail(
                node, f"{where}.source", "source missing: every value must name the public document it comes from"
            )
        source_node = entry["source"][1]
        if not Y.is_str(source_node) or not str(source_node.value).strip():
            raise self.fail(
                source_node, f"{where}.source", f"source must be non-empty text, got {Y.describe(source_node)}"
            )
        value_node = entry["value"][1]
        return Sourced(check(value_node, where), " ".join(str(source_node.value).split()), Y.line_of(value_node))

    def limit_value(self, spec: S.AmdField) -> Any:
        def check(node: yaml.Node, where: str) -> Any:
            if (
                spec.nullable
                and isinstance(node, yaml.ScalarNode)
                and Y.scalar(node) is None
                and node.tag.endswith("null")
            ):
                return None
            if spec.type is bool:
                if not (isinstance(node, yaml.ScalarNode) and node.tag.endswith(":bool")):
                    raise self.fail(node, where, f"expected true or false, got {Y.describe(node)}")
                return bool(Y.scalar(node))
            if spec.type is str:
                return self.choice(node, where, spec.choices)
            nullable = " or null" if spec.nullable else ""
            if not Y.is_int(node):
                raise self.fail(node, where, f"expected a positive integer{nullable}, got {Y.describe(node)}")
            return self.int_value(node, where, spec.minimum, 2**31 - 1)

        return check

    def limits(self, node: yaml.Node) -> dict[str, Sourced]:
        entries = Y.mapping(node, self.source, "limits")
        out: dict[str, Sourced] = {}
        for key, (key_node, value_node) in entries.items():
            spec = S.TARGET_FIELDS_BY_NAME.get(key)
            if spec is None:
                raise self.fail(key_node, f"limits.{key}", f"unknown limit; allowed: {', '.join(S.TARGET_FIELD_NAMES)}")
            out[key] = self.sourced(value_node, f"limits.{key}", self.limit_value(spec))
        for name in S.TARGET_FIELD_NAMES:
            if name not in out:
                raise self.fail(node, f"limits.{name}", "missing required limit for an amd_target profile")
        for where, message in S.target_relation_errors({k: s.value for k, s in out.items()}):
            raise self.fail(out[where].line, f"limits.{where}", message)
        return out
