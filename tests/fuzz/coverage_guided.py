"""Coverage-guided fuzzing of every reader with atheris (libFuzzer for Python), from the structure of our fixtures.

    python -m tests.fuzz.coverage_guided TARGET [LIBFUZZER_FLAGS ...] [CORPUS_DIR ...]

``TARGET`` is one of :data:`TARGETS` (``harness.TARGETS``: the ptxas log, cuobjdump text, ncu CSV, cubin,
fatbin, host binary and static library readers and the profile loader, plus the LLVM offload binary).  Every
input goes through ``harness.run_one``: it must end in records (every field read) or the reader's own
one-line error naming the file; anything else -- another exception, more than ``harness.MAX_SECONDS`` -- is a
crash, as is passing libFuzzer's ``-rss_limit_mb`` (the runner sets 2048) or ``-timeout``.

What makes it find what random bytes miss:

* **coverage**: the importers are instrumented (``atheris.instrument_imports``), so libFuzzer keeps every
  input that reaches new code and mutates those;
* **structure-aware seeds**: the corpus starts from our own fixtures (``harness.seeds``: compiler-made logs,
  cubins, fatbins in all three compressions, a host object, a static library; never bytes of a vendor's
  library) plus the committed corpus (``corpus/TARGET.tar.zst``: inputs that reached code the seeds do not,
  and every crash ever found, minimised; mutated fixtures, so a tar compresses them 30-150 times);
* **structure-aware mutations**: half the mutations are ``harness.mutate``'s (an interesting integer laid
  over a header field, a splice from another fixture, a ptxas/cuobjdump token, a truncation at any byte),
  the other half libFuzzer's own.

CI replays the committed corpus and runs each target for a fixed number of inputs with a fixed seed
(``test_coverage_guided.py``).  The long run is ``long_run_guided.py``, which minimises what it finds into the
corpus.
"""

from __future__ import annotations

import os
import random
import shlex
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CORPUS = HERE / "corpus"
TARGETS = (
    "ptxas_log",
    "cuobjdump_text",
    "ncu_csv",
    "cubin",
    "fatbin",
    "host_binary",
    "ar_archive",
    "offload_binary",
    "profile",
)
_EXTENSIONS = {
    "ptxas_log": ".log",
    "cuobjdump_text": ".txt",
    "ncu_csv": ".csv",
    "cubin": ".cubin",
    "fatbin": ".fatbin",
    "host_binary": ".o",
    "ar_archive": ".a",
    "offload_binary": ".bin",
    "profile": ".yaml",
}
_TEXT = frozenset(("ptxas_log", "cuobjdump_text", "ncu_csv", "profile"))


def corpus_inputs(target: str) -> list[tuple[str, bytes]]:
    """(name, bytes) of the committed corpus of ``target``."""
    import tarfile

    import zstandard

    archive = CORPUS / f"{target}.tar.zst"
    if not archive.exists():
        return []
    with (
        zstandard.ZstdDecompressor().stream_reader(archive.open("rb")) as raw,
        tarfile.open(fileobj=raw, mode="r|") as tar,
    ):
        # (extractfile gives a regular member's stream, never None: the filter asks isfile first)
        return [(member.name, tar.extractfile(member).read()) for member in tar if member.isfile()]  # type: ignore[union-attr]  # see above


def unpack_corpus(target: str, folder: Path) -> Path:
    """The committed corpus of ``target`` as files in ``folder`` (made), for libFuzzer."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in corpus_inputs(target):
        (folder / Path(name).name).write_bytes(data)
    return folder


def pack_corpus(target: str, folder: Path) -> int:
    """Write the files of ``folder`` as the committed corpus of ``target`` (names sorted, times 0: the same
    inputs make the same archive); returns its size in bytes."""
    import io
    import tarfile

    import zstandard

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for path in sorted(p for p in folder.iterdir() if p.is_file()):
            info = tarfile.TarInfo(path.name)
            info.size = path.stat().st_size
            tar.addfile(info, io.BytesIO(path.read_bytes()))
    packed = zstandard.ZstdCompressor(level=19).compress(buf.getvalue())
    (CORPUS / f"{target}.tar.zst").write_bytes(packed)
    return len(packed)


def seed_inputs(target: str) -> list[bytes]:
    """The fixtures a target starts from (``harness.seeds``; the offload binaries of clang's objects)."""
    from occupancy_gui.importers.binary.blob import Blob
    from occupancy_gui.importers.binary.elf import Elf
    from tests.fuzz.harness import DATA, seeds

    if target != "offload_binary":
        return seeds(target)
    out = []
    for path in sorted((DATA / "clang").glob("*.o")):  # the .llvm.offloading sections of clang's objects
        data = path.read_bytes()
        out += [
            data[s.offset : s.offset + s.size]
            for s in Elf(Blob(data, path.name)).sections
            if s.name == ".llvm.offloading"
        ]
    return out


def one_input(target: str, path: str):
    """The function libFuzzer calls with each input: ``harness.run_one`` (a ``Crash`` propagates)."""
    from tests.fuzz.harness import run_one

    def test_one_input(data: bytes) -> None:
        run_one(target, data, path)

    return test_one_input


def mutator(target: str, seeds: list[bytes]):
    """libFuzzer's custom mutator: ``harness.mutate``'s structure-aware edits or libFuzzer's own, in turn."""
    import atheris

    from tests.fuzz.harness import mutate

    text = target in _TEXT

    def custom(data: bytes, max_size: int, seed: int) -> bytes:
        rng = random.Random(seed)
        if rng.random() < 0.5:
            return atheris.Mutate(data, max_size)
        return mutate(rng, data, seeds, text)[:max_size]

    return custom


def main(argv: list[str]) -> None:
    if len(argv) < 2 or argv[1] not in TARGETS:
        sys.exit(f"usage: python -m tests.fuzz.coverage_guided {{{','.join(TARGETS)}}} [libFuzzer flags] [corpus ...]")
    target = argv[1]
    import atheris

    with atheris.instrument_imports(include=["occupancy_gui"]):
        import occupancy_gui.cli.import_command
        import occupancy_gui.importers.text.cuobjdump_text
        import occupancy_gui.importers.text.ncu_csv
        import occupancy_gui.importers.text.parallel
        import occupancy_gui.profiles  # noqa: F401
    seeds = seed_inputs(target)
    work = tempfile.mkdtemp(prefix=f"fuzz-{target}-")
    seed_dir = Path(work) / "seeds"
    seed_dir.mkdir()
    for i, data in enumerate(seeds):
        (seed_dir / f"seed{i}").write_bytes(data)
    flags = [a for a in argv[2:] if a.startswith("-")]
    dirs = [a for a in argv[2:] if not a.startswith("-")] or [str(unpack_corpus(target, Path(work) / "corpus"))]
    flags = [
        *flags,
        *(
            f
            for f in ("-rss_limit_mb=2048", "-timeout=10", "-max_len=1048576")
            if not any(a.startswith(f.split("=")[0] + "=") for a in flags)
        ),
    ]
    path = os.path.join(work, "input" + _EXTENSIONS[target])
    # libFuzzer's -fork and -merge run argv[0] again: a script that starts this module on this target.
    again = Path(work) / "again"
    again.write_text(
        f"#!/bin/sh\ncd {shlex.quote(str(ROOT))} && exec {shlex.quote(sys.executable)} -m "
        f'tests.fuzz.coverage_guided {target} "$@"\n'
    )
    again.chmod(0o755)
    atheris.Setup(
        [str(again), *flags, *dirs, str(seed_dir)], one_input(target, path), custom_mutator=mutator(target, seeds)
    )
    atheris.Fuzz()


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main(sys.argv)
