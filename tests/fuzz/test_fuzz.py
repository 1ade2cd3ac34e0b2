"""Property-based fuzzing of every importer and the profile loader (a short, deterministic run).

Mutations of the real fixtures (bit flips, overwritten fields with extreme integers, truncation,
splices between fixtures, inserted tokens and huge numbers, random bytes) and generated log lines;
every input must end in records or the module's own one-line error (see ``harness.run_one``).
Each example checks the edited fixture hypothesis drew plus ``DERIVED`` random mutations seeded by it
(``harness.mutate``): ``FUZZ_EXAMPLES`` (default 500) x 4 = 2000 inputs per target; all targets
take about 25 s on an idle 2-core machine (twice that when it is busy).  The long run is ``python tests/fuzz/long_run.py``.
"""

from __future__ import annotations

import os
import random

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from .harness import BINARY_TARGETS, INTERESTING, TARGETS, TEXT_TARGETS, TEXT_TOKENS, mutate, run_one, seeds  # noqa: E402

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "500"))
DERIVED = 3
SETTINGS = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
    print_blob=True,
)

_edit = st.tuples(
    st.sampled_from(("flip", "set", "truncate", "insert", "int", "delete", "dup", "splice")),
    st.integers(0, 1 << 32),
    st.one_of(st.binary(max_size=48), st.sampled_from(TEXT_TOKENS)),
    st.sampled_from(INTERESTING),
)
_SEEDS = {target: seeds(target) for target in TARGETS}


def apply_edits(data: bytes, edits, others: list[bytes]) -> bytes:
    buf = bytearray(data)
    for kind, where, blob, number in edits:
        n = len(buf)
        pos = where % (n + 1)
        if kind == "flip" and n:
            buf[min(pos, n - 1)] ^= 1 << (number % 8)
        elif kind == "set" and n:
            buf[min(pos, n - 1)] = number & 0xFF
        elif kind == "truncate":
            del buf[pos:]
        elif kind == "insert":
            buf[pos:pos] = blob
        elif kind == "int" and n >= 8:
            at = min(pos, n - 8)
            width = (2, 4, 8)[number % 3]
            buf[at : at + width] = (number & ((1 << 8 * width) - 1)).to_bytes(width, "little")
        elif kind == "delete":
            del buf[pos : pos + 1 + number % 512]
        elif kind == "dup" and n:
            buf[pos:pos] = buf[pos : pos + 1 + number % 2048]
        elif kind == "splice" and others:
            other = others[number % len(others)]
            at = where % (len(other) + 1)
            buf[pos : pos + len(blob)] = other[at : at + 1 + number % 700]
    return bytes(buf)


@pytest.mark.parametrize("target", TARGETS)
def test_mutated_fixtures(target, tmp_path):
    corpus = _SEEDS[target]
    others = [d for t in TARGETS for d in _SEEDS[t]] if target in BINARY_TARGETS else corpus
    path = str(tmp_path / f"input_{target}")

    @SETTINGS
    @given(index=st.integers(0, len(corpus) - 1), edits=st.lists(_edit, max_size=6), seed=st.integers(0, 1 << 32))
    def check(index, edits, seed):
        data = apply_edits(corpus[index], edits, others)
        run_one(target, data, path)
        rng = random.Random(seed)
        for _ in range(DERIVED):
            run_one(target, mutate(rng, data, others, target in TEXT_TARGETS), path)

    check()


_names = st.one_of(
    st.sampled_from(
        [
            "_Z6kernelPf",
            "_ZN3occ9tiled_sumILi512EEEvPKfPfi",
            "k",
            "_Z5heavyPKfi$1",
            "a b",
            "'q'",
            "x:",
            "_Z" + "N" * 300,
            "",
        ]
    ),
    st.text(max_size=40),
)
_num = st.one_of(st.integers(0, 1 << 16), st.sampled_from([0, 1 << 31, 1 << 64, 10**30]))
_arch = st.sampled_from(["sm_80", "sm_90a", "sm_120", "compute_75", "", "sm_", "x y"])


@st.composite
def ptxas_line(draw):
    tool = draw(st.sampled_from(["ptxas", "nvlink", "1>ptxas", "\x1b[01mptxas", "ptxas  "]))
    kind = draw(st.integers(0, 6))
    name, arch, a, b, c = draw(_names), draw(_arch), draw(_num), draw(_num), draw(_num)
    if kind == 0:
        return f"{tool} info    : Compiling entry function '{name}' for '{arch}'"
    if kind == 1:
        return f"{tool} info    : Function properties for {name}"
    if kind == 2:
        return f"    {a} bytes stack frame, {b} bytes spill stores, {c} bytes spill loads"
    if kind == 3:
        extra = draw(
            st.sampled_from(
                [
                    "",
                    f", {b} bytes cmem[{c % 20}]",
                    f", {a}+{b} bytes lmem",
                    f", {b} bytes cumulative stack size",
                    " (target: sm_90)",
                ]
            )
        )
        return f"{tool} info    : Used {a} registers, used {b} barriers, {c} bytes smem{extra}"
    if kind == 4:
        return f"{tool} info    : {a} bytes gmem"
    if kind == 5:
        return f"nvlink info    : Function properties for '{name}': (target: {arch})"
    return draw(st.text(max_size=80))


@SETTINGS
@given(
    lines=st.lists(ptxas_line(), max_size=40),
    crlf=st.booleans(),
    encoding=st.sampled_from(["utf-8", "utf-16-le", "latin-1"]),
)
def test_generated_ptxas_logs(lines, crlf, encoding, tmp_path_factory):
    text = ("\r\n" if crlf else "\n").join(lines)
    data = text.encode(encoding, "replace")
    if encoding == "utf-16-le":
        data = b"\xff\xfe" + data
    run_one("ptxas_log", data, str(tmp_path_factory.mktemp("gen") / "gen.log"))


_yaml_scalar = st.one_of(
    st.integers(-(1 << 70), 1 << 70),
    st.sampled_from(
        [
            "1e400",
            ".nan",
            "-.inf",
            "0x7fffffffffffffff",
            "true",
            "~",
            "'x'",
            '"\\ud800"',
            "&a 1",
            "*a",
            "!!python/object:os.system x",
            "[",
            "{",
            "|\n  text",
        ]
    ),
    st.text(max_size=20),
)


@st.composite
def profile_text(draw):
    depth = draw(st.integers(0, 3000))
    opener = draw(st.sampled_from(["[", "{a: ", "- "]))
    kind = draw(st.integers(0, 2))
    if kind == 0:
        return "schema: 1\nkind: gpu\nname: x\nlimits: " + opener * depth
    if kind == 1:
        scalar = draw(_yaml_scalar)
        key = draw(st.sampled_from(["schema", "sm_count", "limits", "name", "kind", "aliases", "x"]))
        return f"schema: 1\nkind: gpu\n{key}: {scalar}\n"
    return "".join(
        draw(
            st.lists(
                st.sampled_from(
                    [
                        "schema: 1\n",
                        "kind: gpu\n",
                        "kind: compute_capability\n",
                        "name: gpu-x\n",
                        "limits:\n",
                        "  max_threads_per_block:\n",
                        "    value: 1024\n",
                        "    source: doc\n",
                        "sm_count: {value: 132, source: doc}\n",
                        "inherits: sm_90\n",
                        "segment: datacenter\n",
                        "\t",
                        "  ",
                        "- ",
                        "? ",
                        "%YAML 1.1\n",
                        "---\n",
                        "...\n",
                        "\ufeff",
                        "\x00",
                    ]
                ),
                max_size=30,
            )
        )
    )


@SETTINGS
@given(text=profile_text(), as_bytes=st.booleans())
def test_generated_profiles(text, as_bytes):
    data = text.encode("utf-8", "surrogatepass") if as_bytes else text
    if isinstance(data, str):
        from occupancy_gui.profiles import ProfileError, parse_profile

        try:
            parse_profile(data, "gen.yaml")
        except ProfileError as exc:
            assert "\n" not in str(exc) and str(exc).startswith("gen.yaml")
    else:
        run_one("profile", data, "gen.yaml")
