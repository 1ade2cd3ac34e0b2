"""Helpers shared by the tests: the pinned toolchain wheels fetched into the test cache (toolchains), fake
CUDA drivers (fake_cuda), fatbin and offload-binary writers, frozen-bundle stand-ins and random records."""
