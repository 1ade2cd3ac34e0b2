"""A worker process of ``occupancy batch --jobs N`` (see ``batch_parallel``): ``python -m
occupancy_gui.cli.batch_worker READ_FD WRITE_FD``.

It is sent the source's name and the format, then blocks: each is eight bytes of the number of lines
before it and the block's bytes; it answers each with the one-process batch's own code, a slice of
answers per message, and an empty message when the block is done.  An empty block, or the end of
its pipe, ends it.
"""

from __future__ import annotations

import io
import sys
from multiprocessing.connection import Connection

from .batch import BatchAnswerer, answer_stream
from .batch_input import CHUNK_LINES
from .devices import load_catalog


def serve(read_fd: int, write_fd: int) -> None:
    """Answer the blocks sent on ``read_fd`` on ``write_fd`` until there are no more."""
    inbox, outbox = Connection(read_fd, writable=False), Connection(write_fd, readable=False)
    try:
        source, fmt = inbox.recv()
        answerer = BatchAnswerer(load_catalog(), source)

        def send(text: str) -> None:
            outbox.send_bytes(text.encode())

        while message := inbox.recv_bytes():
            first_number = int.from_bytes(message[:8], "little")
            answer_stream(
                io.BytesIO(memoryview(message)[8:]),
                answerer,
                fmt,
                send,
                first_number=first_number,
                first_chunk_lines=CHUNK_LINES,
            )
            outbox.send_bytes(b"")
    except (EOFError, OSError):
        return  # the parent is gone


if __name__ == "__main__":
    serve(int(sys.argv[1]), int(sys.argv[2]))
