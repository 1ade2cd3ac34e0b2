"""occupancy_gui: an exact CUDA occupancy calculator (GUI and CLI)."""

__version__ = "0.1.0"

REFERENCE_HEADER = "cuda_occupancy.h from nvidia-cuda-runtime 13.5.37 (CUDA 13.5)"
"""The NVIDIA header whose answers the engine reproduces bit for bit."""
