"""Text inputs: ``ptxas``/``nvlink`` build logs (``ptxas_log``, with what a log says beyond its records and how
people paste it: ``log_text``), ``cuobjdump --dump-resource-usage`` text (``cuobjdump_text``) and Nsight Compute
CSV (``ncu_csv``), fed in bounded memory whatever the encoding (``line_chunks``); a big log by two processes
(``parallel``, ``worker``)."""
