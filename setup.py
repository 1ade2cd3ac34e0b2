"""Copy the mandated top-level data folders into the wheel as ``occupancy_gui/_data/``.

``resources/`` and ``device_profiles/`` live at the top of the repository (a project rule), outside
the package; ``occupancy_gui.paths.data_dir`` finds them there in a checkout or editable install, and
under ``_data`` in an installed wheel.  Everything else is in pyproject.toml.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

DATA_DIRS = ("resources", "device_profiles")


class BuildPyWithData(build_py):
    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        root = Path(__file__).resolve().parent
        for name in DATA_DIRS:
            target = Path(self.build_lib) / "occupancy_gui" / "_data" / name
            if target.exists():
                shutil.rmtree(target)
            shutil.copytree(root / name, target, ignore=shutil.ignore_patterns("*.pyc", "__pycache__"))


setup(cmdclass={"build_py": BuildPyWithData})
