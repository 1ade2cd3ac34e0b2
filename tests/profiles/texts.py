"""Tiny valid profiles that the validation tests break one field at a time."""

from __future__ import annotations

CC_TEMPLATE = """\
schema: 1
name: sm_80
kind: compute_capability
title: Compute capability 8.0
compute_capability: "8.0"
architecture: Ampere
limits:
  warp_size:                      {value: 32, source: "guide"}
  max_threads_per_block:          {value: 1024, source: "guide"}
  max_threads_per_multiprocessor: {value: 2048, source: "guide"}
  regs_per_block:                 {value: 65536, source: "guide"}
  regs_per_multiprocessor:        {value: 65536, source: "guide"}
  shared_mem_per_block:           {value: 49152, source: "guide"}
  shared_mem_per_multiprocessor:  {value: 167936, source: "guide"}
  shared_mem_per_block_optin:     {value: 166912, source: "guide"}
  reserved_shared_mem_per_block:  {value: 1024, source: "guide"}
"""

GPU_TEMPLATE = """\
schema: 1
name: Test GPU
kind: gpu
inherits: sm_80
aliases: [TGPU]
architecture: Ampere
segment: datacenter
sm_count: {value: 10, source: "spec sheet"}
limits: {}
"""
