"""Where the tests find the command and the bundled data: PERFMODEL_CLI (the
perfmodel executable the package must agree with) and PERFMODEL_SOURCE (the
source tree; default: two folders up)."""
import os
import pathlib

import pytest

SOURCE = pathlib.Path(os.environ.get("PERFMODEL_SOURCE",
                                     pathlib.Path(__file__).resolve().parents[2]))


@pytest.fixture(scope="session")
def source():
    return SOURCE


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("PERFMODEL_CLI", str(SOURCE / "build" / "cli" / "perfmodel"))
    if not os.access(path, os.X_OK):
        pytest.fail(f"no perfmodel command at {path}: set PERFMODEL_CLI")
    return path


@pytest.fixture(scope="session")
def gemm(source):
    return str(source / "data" / "gemm_cpu.csv"), str(source / "models" / "gemm.json")
