"""``utils._optional.optional``, the lazy import of an optional dependency: the
extra to install where it is missing, what failed where it is installed but does not
import (it said "not installed"), and a Ctrl-C during the import kept a Ctrl-C."""

import sys

import pytest

from gpu_xorder.utils._optional import optional

MISSING = "needs the frobnicator: pip install 'gpu-xorder[frob]'"


@pytest.fixture
def package(tmp_path, monkeypatch):
    """Write a package ``name`` whose ``__init__`` is ``body`` on a path of its own."""
    monkeypatch.syspath_prepend(str(tmp_path))

    def write(name, body):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(body)
        monkeypatch.delitem(sys.modules, name, raising=False)
        return name

    return write


def test_a_missing_package_names_the_extra():
    with pytest.raises(ImportError) as exc:
        optional("gpu_xorder_no_such_package_anywhere", MISSING)
    assert str(exc.value) == MISSING and exc.value.__cause__ is None


def test_an_installed_package_whose_import_fails_says_so(package):
    name = package("gpu_xorder_broken_dep", "raise ImportError('libfrob.so: no such file')")
    with pytest.raises(ImportError) as exc:
        optional(name, MISSING)
    message = str(exc.value)
    assert message.startswith(f"{name} is installed but its import failed")
    assert "libfrob.so: no such file" in message and MISSING not in message
    assert isinstance(exc.value.__cause__, ImportError)


def test_an_interrupted_import_stays_a_ctrl_c(package):
    """Whether the interrupt comes through itself or as the cause of an
    ``ImportError`` (as an extension module's import may report it)."""
    direct = package("gpu_xorder_interrupted", "raise KeyboardInterrupt")
    with pytest.raises(KeyboardInterrupt):
        optional(direct, MISSING)
    wrapped = package("gpu_xorder_wrapped",
                      "try:\n    raise KeyboardInterrupt\n"
                      "except KeyboardInterrupt as e:\n    raise ImportError('init') from e\n")
    with pytest.raises(KeyboardInterrupt):
        optional(wrapped, MISSING)


def test_a_submodule_of_an_installed_package(package):
    """The top-level package decides whether it is installed."""
    name = package("gpu_xorder_parent_dep", "")
    with pytest.raises(ImportError, match="is installed but its import failed"):
        optional(f"{name}.missing_child", MISSING)
    assert optional(name, MISSING).__name__ == name
