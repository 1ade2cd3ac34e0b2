"""Process helpers of the package's own (private): worker processes (``child_process``), the one size cap of the
user cache folders (``cache_trim``) and the cyclic collector held off while 10^5 records are made
(``collector``).  Below every other layer but the engine; imported by module, so that a caller loads only what it
uses (starting a worker needs none of the others)."""
