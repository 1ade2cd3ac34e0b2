"""Reading one profile file into a validated ``RawProfile``.

Everything that can be judged from one file alone is judged here, with the file, line and field of
the problem: encoding, size, YAML syntax, shape, types and ranges.  What needs other files too
(inheritance, duplicate names, the resolved limits of a GPU) is the catalog's job.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from . import _yaml as Y
from . import schema as S
from .errors import ProfileError


@dataclass(frozen=True)
class Sourced:
    """One value, the public document it comes from, and the line it sits on."""

    value: Any
    source: str
    line: int


@dataclass(frozen=True)
class RawProfile:
    """One file's content after validation, before inheritance is resolved."""

    path: str
    kind: str
    name: str
    architecture: str
    title: str | None = None
    compute_capability: tuple[int, int] | None = None
    inherits: str | None = None
    aliases: tuple[str, ...] = ()
    segment: str | None = None
    notes: str | None = None
    sm_count: Sourced | None = None
    limits: dict[str, Sourced] = field(default_factory=dict, hash=False)
    info: dict[str, Sourced] = field(default_factory=dict, hash=False)
    lines: dict[str, int] = field(default_factory=dict, hash=False, compare=False)
    """Line of each top-level key and alias (``aliases.0``), for errors the catalog raises later."""


def load_profile(path: str | Path) -> RawProfile:
    """Read and validate one profile file; the size limit is enforced before the file is read whole."""
    path = Path(path)
    source = str(path)
    try:
        with path.open("rb") as handle:
            data = handle.read(S.MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ProfileError(source, None, None, f"cannot read file: {exc.strerror or exc}") from None
    return parse_profile(data, source)


def parse_profile(text: str | bytes, source: str) -> RawProfile:
    """Validate profile ``text`` (bytes must be UTF-8); ``source`` names it in every error."""
    size = len(text) if isinstance(text, bytes) else len(text.encode("utf-8", "surrogatepass"))
    if size > S.MAX_FILE_BYTES:
        raise ProfileError(source, None, None, f"file is larger than the 1 MiB limit for profiles ({size} bytes read)")
    decoded = _decode_utf8(text, source) if isinstance(text, bytes) else text
    return _Builder(source).build(Y.compose(decoded.removeprefix("\ufeff"), source))


def _decode_utf8(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ProfileError(
            source, line, None, f"file is not valid UTF-8: byte 0x{data[exc.start]:02x} at byte offset {exc.start}"
        ) from None


class _Builder:
    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, node: yaml.Node | int | None, field: str | None, message: str) -> ProfileError:
        line = Y.line_of(node) if isinstance(node, yaml.Node) else node
        return ProfileError(self.source, line, field, message)

    def build(self, root: yaml.MappingNode) -> RawProfile:
        top = Y.mapping(root, self.source, "")
        lines = {key: Y.line_of(k) for key, (k, _v) in top.items()}
        if "kind" not in top:
            raise self.fail(root, "kind", "missing required key (compute_capability or gpu)")
        kind = self.choice(top["kind"][1], "kind", S.KINDS)
        allowed = S.allowed_keys(kind)
        for key, (key_node, _v) in top.items():
            if key not in allowed:
                hint = "; the compute capability comes from `inherits`" if key == "compute_capability" else ""
                raise self.fail(
                    key_node, key, f"unknown key for a {kind} profile{hint}; allowed: {', '.join(sorted(allowed))}"
                )
        for key in S.KEY_ORDER:
            if key in S.required_keys(kind) and key not in top:
                raise self.fail(root, key, f"missing required key for a {kind} profile")
        if not Y.is_int(top["schema"][1]) or Y.scalar(top["schema"][1]) != S.SCHEMA_VERSION:
            raise self.fail(
                top["schema"][1],
                "schema",
                f"unsupported schema version {Y.describe(top['schema'][1])}; expected {S.SCHEMA_VERSION}",
            )

        def text(key: str, max_len: int = S.MAX_TEXT_LENGTH) -> str | None:
            return self.text(top[key][1], key, max_len) if key in top else None

        name = self.text(top["name"][1], "name", S.MAX_NAME_LENGTH)
        aliases = self.aliases(top["aliases"][1], lines) if "aliases" in top else ()
        raw: dict[str, Any] = dict(
            path=self.source,
            kind=kind,
            name=name,
            architecture=text("architecture", S.MAX_NAME_LENGTH),
            title=text("title"),
            notes=text("notes"),
            aliases=aliases,
            lines=lines,
        )
        if kind == "compute_capability":
            cc = self.compute_capability(top["compute_capability"][1])
            if name != S.cc_profile_name(cc):
                raise self.fail(
                    top["name"][1],
                    "name",
                    f"a compute_capability profile for {cc[0]}.{cc[1]} "
                    f"must be named {S.cc_profile_name(cc)!r}, got {name!r}",
                )
            raw["compute_capability"] = cc
        else:
            self.not_cc_spelling(top["name"][1], "name", name)
            raw["inherits"] = self.text(top["inherits"][1], "inherits", S.MAX_NAME_LENGTH)
            raw["segment"] = self.choice(top["segment"][1], "segment", S.SEGMENTS)
            raw["sm_count"] = self.sourced(top["sm_count"][1], "sm_count", self.int_check(1, S.MAX_SM_COUNT))
            if "info" in top:
                raw["info"] = self.info(top["info"][1])
        limits_node = top["limits"][1] if "limits" in top else None
        raw["limits"] = self.limits(limits_node, kind) if limits_node is not None else {}
        for fld, message in S.relation_errors({k: s.value for k, s in raw["limits"].items()}):
            raise self.fail(raw["limits"][fld].line, f"limits.{fld}", message)
        return RawProfile(**raw)

    def text(self, node: yaml.Node, field: str, max_len: int) -> str:
        if not Y.is_str(node):
            raise self.fail(node, field, f"expected text, got {Y.describe(node)}")
        value = str(node.value)
        if not value.strip():
            raise self.fail(node, field, "must not be empty")
        if max_len == S.MAX_NAME_LENGTH and (value != value.strip() or "\n" in value):
            raise self.fail(node, field, "must be one line without leading or trailing spaces")
        if len(value) > max_len:
            raise self.fail(node, field, f"longer than {max_len} characters")
        return value

    def choice(self, node: yaml.Node, field: str, options: tuple[str, ...]) -> str:
        if not Y.is_str(node) or node.value not in options:
            raise self.fail(node, field, f"expected one of {', '.join(options)}; got {Y.describe(node)}")
        return str(node.value)

    def compute_capability(self, node: yaml.Node) -> tuple[int, int]:
        field = "compute_capability"
        if Y.is_number(node):
            raise self.fail(
                node, field, f'expected a quoted string "MAJOR.MINOR" such as "8.0", got {Y.describe(node)}; quote it'
            )
        if not Y.is_str(node) or not (match := S.CC_STRING.match(node.value)):
            raise self.fail(
                node, field, f'expected a quoted string "MAJOR.MINOR" such as "8.0", got {Y.describe(node)}'
            )
        major, minor = int(match.group(1)), int(match.group(2))
        if major < 1:
            raise self.fail(node, field, f"major version must be at least 1, got {node.value!r}")
        return major, minor

    def not_cc_spelling(self, node: yaml.Node, field: str, value: str) -> None:
        if S.CC_LOOKUP.match(value.strip().casefold()):
            raise self.fail(node, field, f"{value!r} is reserved for compute-capability lookups (sm_90, 9.0, 90)")

    def aliases(self, node: yaml.Node, lines: dict[str, int]) -> tuple[str, ...]:
        if not isinstance(node, yaml.SequenceNode):
            raise self.fail(node, "aliases", f"expected a list of names, got {Y.describe(node)}")
        seen: set[str] = set()
        out: list[str] = []
        for index, item in enumerate(node.value):
            field = f"aliases[{index}]"
            Y.check_tag(item, self.source, field)
            alias = self.text(item, field, S.MAX_NAME_LENGTH)
            self.not_cc_spelling(item, field, alias)
            if alias.casefold() in seen:
                raise self.fail(item, field, f"duplicate alias {alias!r}")
            seen.add(alias.casefold())
            lines[f"aliases.{index}"] = Y.line_of(item)
            out.append(alias)
        return tuple(out)

    def int_check(self, minimum: int, maximum: int) -> Callable[[yaml.Node, str], int]:
        def check(node: yaml.Node, field: str) -> int:
            value = Y.scalar(node) if Y.is_int(node) else None
            if value is None or value < minimum:
                want = {1: "a positive integer", 0: "a non-negative integer"}.get(minimum, f"an integer >= {minimum}")
                raise self.fail(node, field, f"expected {want}, got {Y.describe(node)}")
            if value > maximum:
                raise self.fail(node, field, f"expected at most {maximum}, got {value}")
            return int(value)

        return check

    def sourced(self, node: yaml.Node, field: str, check: Callable[[yaml.Node, str], Any]) -> Sourced:
        entry = Y.mapping(node, self.source, field)
        for key, (key_node, _v) in entry.items():
            if key not in S.SOURCED_KEYS:
                raise self.fail(
                    key_node, f"{field}.{key}", "unknown key; a value entry holds exactly `value` and `source`"
                )
        if "value" not in entry:
            raise self.fail(node, field, "missing `value`")
        if "source" not in entry:
            raise self.fail(
                node, f"{field}.source", "source missing: every value must name the public document it comes from"
            )
        source_node = entry["source"][1]
        if not Y.is_str(source_node) or not str(source_node.value).strip():
            raise self.fail(
                source_node, f"{field}.source", f"source must be non-empty text, got {Y.describe(source_node)}"
            )
        value_node = entry["value"][1]
        return Sourced(check(value_node, field), " ".join(str(source_node.value).split()), Y.line_of(value_node))

    def limits(self, node: yaml.Node, kind: str) -> dict[str, Sourced]:
        entries = Y.mapping(node, self.source, "limits")
        out: dict[str, Sourced] = {}
        for key, (key_node, value_node) in entries.items():
            spec = S.LIMITS_BY_NAME.get(key)
            if spec is None:
                raise self.fail(key_node, f"limits.{key}", f"unknown limit; allowed: {', '.join(S.LIMIT_NAMES)}")
            out[key] = self.sourced(value_node, f"limits.{key}", self.int_check(spec.minimum, S.INT_MAX))
        if kind == "compute_capability":
            for name in S.LIMIT_NAMES:
                if name not in out:
                    raise self.fail(node, f"limits.{name}", "missing required limit for a compute_capability profile")
        return out

    def info(self, node: yaml.Node) -> dict[str, Sourced]:
        entries = Y.mapping(node, self.source, "info")
        out: dict[str, Sourced] = {}
        for key, (key_node, value_node) in entries.items():
            spec = S.INFO_BY_NAME.get(key)
            if spec is None:
                raise self.fail(key_node, f"info.{key}", f"unknown key; allowed: {', '.join(S.INFO_BY_NAME)}")
            out[key] = self.sourced(value_node, f"info.{key}", self.info_check(key))
        return out

    def info_check(self, key: str) -> Callable[[yaml.Node, str], Any]:
        if key == "chip":
            return lambda n, f: self.text(n, f, S.MAX_NAME_LENGTH)
        if key == "release_year":
            return self.int_check(*S.RELEASE_YEAR_RANGE)
        if key == "memory_gib":

            def number(node: yaml.Node, field: str) -> float:
                value = Y.scalar(node) if Y.is_number(node) else None
                if value is None or not (0 < value < 1e6):
                    raise self.fail(node, field, f"expected a positive number, got {Y.describe(node)}")
                return float(value)

            return number
        return self.int_check(1, S.INT_MAX)
