"""The session's selected device, of either vendor: NVIDIA's profiles are looked up first, AMD's after (read on
first need), as ``occupancy calc --device`` does; the choice says whose inputs and answers apply.

Pure Python (no Qt).  Asking an NVIDIA figure of an AMD choice (or the reverse) raises :class:`NotForVendor`
rather than answering with the last device of the other vendor: nothing stale can be shown by mistake.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .fields import AMD, NVIDIA
from .profiles import DeviceProfile

if TYPE_CHECKING:
    from collections.abc import Callable

    from .engine import DeviceProperties
    from .profiles import AmdCatalog, AmdProfile, Catalog


class NotForVendor(RuntimeError):
    """An NVIDIA figure asked while an AMD device is selected (or an AMD one of an NVIDIA device): a caller that
    shows a vendor's figures checks the vendor first."""


def find_profile(
    name: str, catalog: Catalog, amd: Callable[[], AmdCatalog] | None = None
) -> DeviceProfile | AmdProfile:
    """The profile called ``name``: NVIDIA's first, then AMD's (``amd()``, the bundled ones by default, read only
    then); ``KeyError`` (one line, the closest names of both vendors) if neither has it."""
    try:
        return catalog.get(name)
    except KeyError:
        pass
    from .amd_question import bundled_catalog, find_device  # noqa: PLC0415 - lazy: an NVIDIA name needs no AMD

    return find_device(name, catalog, amd or bundled_catalog)


def amd_of(profile: DeviceProfile | AmdProfile) -> AmdProfile | None:
    """``profile`` where it is AMD's, else ``None``."""
    return None if isinstance(profile, DeviceProfile) else profile


class DeviceChoice:
    """The selected profile and the catalogs it is chosen from."""

    def __init__(self, catalog: Catalog, amd_catalog: AmdCatalog | None = None) -> None:
        self.catalog = catalog
        self._amd_catalog = amd_catalog
        self.name = ""
        self._profile: DeviceProfile | None = None
        self._device: DeviceProperties | None = None
        self._amd_profile: AmdProfile | None = None

    @property
    def amd_catalog(self) -> AmdCatalog:
        """The AMD profiles (the bundled ones are read on first need)."""
        if self._amd_catalog is None:
            from .amd_question import bundled_catalog  # noqa: PLC0415 - lazy: an NVIDIA session never reads them

            self._amd_catalog = bundled_catalog()
        return self._amd_catalog

    def _amd_catalog_now(self) -> AmdCatalog:
        return self.amd_catalog

    def find(self, name: str) -> DeviceProfile | AmdProfile:
        """The profile called ``name``: NVIDIA's first, then AMD's; ``KeyError`` (one line) if neither has it."""
        return find_profile(name, self.catalog, self._amd_catalog_now)

    def knows(self, name: str) -> bool:
        try:
            self.find(name)
        except KeyError:
            return False
        return True

    def select(self, profile: DeviceProfile | AmdProfile) -> None:
        self.name = profile.name
        if isinstance(profile, DeviceProfile):
            self._profile, self._device, self._amd_profile = profile, profile.device_properties(), None
        else:
            self._profile, self._device, self._amd_profile = None, None, profile

    @property
    def vendor(self) -> str:
        """``"nvidia"`` or ``"amd"``."""
        return NVIDIA if self._amd_profile is None else AMD

    @property
    def is_amd(self) -> bool:
        return self._amd_profile is not None

    @property
    def profile(self) -> DeviceProfile:
        """The selected NVIDIA profile; :class:`NotForVendor` while an AMD device is selected."""
        if self._profile is None:
            raise NotForVendor(f"{self.name} is an AMD device: it has no NVIDIA profile")
        return self._profile

    @property
    def device(self) -> DeviceProperties:
        """The selected NVIDIA device's properties; :class:`NotForVendor` while an AMD device is selected."""
        if self._device is None:
            raise NotForVendor(f"{self.name} is an AMD device: it has no NVIDIA device properties")
        return self._device

    @property
    def amd_profile(self) -> AmdProfile:
        """The selected AMD profile; :class:`NotForVendor` while an NVIDIA device is selected."""
        if self._amd_profile is None:
            raise NotForVendor(f"{self.name} is an NVIDIA device: it has no AMD profile")
        return self._amd_profile

    def amd_or_none(self) -> AmdProfile | None:
        return self._amd_profile
