"""Spark Connect's generated message classes, without importing PySpark.

``from pyspark.sql.connect import proto`` executes ``pyspark/__init__`` (pyspark.sql, py4j's
Python package) and ``pyspark/sql/connect/__init__``, whose dependency check imports pandas,
numpy, pyarrow and grpc: most of a cold start (docs/performance.md, "Cold start"). Translating a
plan needs none of that, only the ``*_pb2.py`` files of ``pyspark/sql/connect/proto``.

This module runs those same files under private module names (``connect_plan.spark_proto.*``),
found with ``importlib.util.find_spec("pyspark")`` (which does not execute the package), with
their ``from pyspark.sql.connect.proto import x_pb2`` lines pointed at the private copies by a
module-local ``__import__``. Nothing of PySpark's is executed or changed.

The classes are PySpark's own: each file registers the same serialized descriptor in
protobuf's default pool (re-adding an identical file is a no-op) and protobuf keeps one message
class per descriptor, so ``connect_plan.spark_proto.pb.Plan is pyspark.sql.connect.proto.Plan``
whichever is imported first (tests/unit/test_spark_proto.py proves it in fresh processes), and a
plan built here goes to PySpark's client unchanged. ``base_pb2_grpc`` (the service stubs, which
import grpc) is loaded only when :func:`service_stub` is first called, the same way.

When ``pyspark.sql.connect.proto`` is already imported, ``pb`` is simply that module.
"""

from __future__ import annotations

import builtins
import importlib.machinery
import importlib.util
import os
import re
import sys
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

__all__ = ["pb", "pyspark_version", "service_stub", "types_pb2", "variant_utils"]

_REAL = "pyspark.sql.connect.proto"
# the files PySpark's proto package star-imports, in its order (it differs between versions)
_STAR_IMPORT = re.compile(r"^from pyspark\.sql\.connect\.proto\.(\w+) import \*", re.MULTILINE)
_STUBS = "base_pb2_grpc"


def _proto_files() -> tuple[str, tuple[str, ...]] | None:
    """The proto folder of the installed PySpark and its message files, or None."""
    spec = importlib.util.find_spec("pyspark")
    if spec is None or spec.origin is None:
        return None
    folder = os.path.join(os.path.dirname(spec.origin), "sql", "connect", "proto")
    try:
        with open(os.path.join(folder, "__init__.py"), encoding="utf-8") as f:
            names = tuple(n for n in _STAR_IMPORT.findall(f.read()) if n != _STUBS)
    except OSError:
        return None
    if "base_pb2" not in names or not all(os.path.isfile(os.path.join(folder, f"{n}.py")) for n in names):
        return None
    return folder, names


def _exec_private(
    full: str,
    path: str,
    module_builtins: dict[str, Any],
    register: Callable[[str, types.ModuleType], object] | None = None,
    key: str = "",
) -> types.ModuleType:
    """Run the Python file ``path`` as a module named ``full`` (not put in ``sys.modules``),
    its imports made through ``module_builtins``' ``__import__``; ``register(key, module)``
    is called before it runs (files that import each other find it)."""
    loader = importlib.machinery.SourceFileLoader(full, path)
    spec = importlib.util.spec_from_file_location(full, path, loader=loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    module.__dict__["__builtins__"] = module_builtins
    if register is not None:
        register(key, module)
    loader.exec_module(module)
    return module


def _builtins_importing_through(redirect: Callable[[str, tuple[str, ...]], Any]) -> dict[str, Any]:
    """The builtins of a privately run file whose absolute imports ask ``redirect(name,
    fromlist)`` first: the module to use, or None for the real import."""
    real_import = builtins.__import__

    def redirected_import(
        name: str,
        globals: dict[str, Any] | None = None,
        locals: dict[str, Any] | None = None,
        fromlist: tuple[str, ...] | list[str] | None = (),
        level: int = 0,
    ) -> Any:
        if level == 0:
            found = redirect(name, tuple(fromlist or ()))
            if found is not None:
                return found
        return real_import(name, globals, locals, fromlist or (), level)

    module_builtins = dict(builtins.__dict__)
    module_builtins["__import__"] = redirected_import
    return module_builtins


def _load_private(folder: str, files: tuple[str, ...]) -> types.ModuleType:
    package = types.ModuleType(__name__, "Spark Connect's message classes (see connect_plan.spark_proto).")

    def redirect(name: str, fromlist: tuple[str, ...]) -> Any:
        if name != _REAL:
            return None
        for short in fromlist:
            load(short)
        return package

    module_builtins = _builtins_importing_through(redirect)
    loaded: dict[str, types.ModuleType] = {}

    def load(short: str) -> types.ModuleType:
        if short in loaded:
            return loaded[short]
        module = _exec_private(
            f"{__name__}._{short}", os.path.join(folder, f"{short}.py"), module_builtins, loaded.__setitem__, short
        )
        setattr(package, short, module)
        return module

    for short in files:
        module = load(short)
        for key, value in vars(module).items():
            if not key.startswith("_"):
                setattr(package, key, value)
    package._load_file = load  # type: ignore[attr-defined]  # the stubs, on first use
    return package


def _load() -> Any:
    if _REAL not in sys.modules:
        found = _proto_files()
        if found is not None:
            return _load_private(*found)
    # already imported, or a layout this loader does not know: PySpark's own import
    from . import _pyspark_import  # noqa: F401  (before PySpark: its import-time check of __main__)

    # isort: split
    from pyspark.sql.connect import proto

    return proto


if TYPE_CHECKING:
    from pyspark.sql.connect import proto as pb
    from pyspark.sql.connect.proto import types_pb2
else:
    pb = _load()
    types_pb2 = pb.types_pb2


_STUB_CLASS: Any = None


def service_stub(channel: Any) -> Any:
    """PySpark's generated ``SparkConnectServiceStub`` over ``channel`` (its
    ``base_pb2_grpc``, loaded like the messages: without importing PySpark)."""
    global _STUB_CLASS
    if _STUB_CLASS is None:
        loader = getattr(pb, "_load_file", None)
        if loader is not None:
            _STUB_CLASS = loader(_STUBS).SparkConnectServiceStub
        else:
            from pyspark.sql.connect.proto import base_pb2_grpc

            _STUB_CLASS = base_pb2_grpc.SparkConnectServiceStub
    return _STUB_CLASS(channel)


_VERSION: str | None = None


def pyspark_version() -> str:
    """The installed PySpark's version (its ``pyspark/version.py``, read, not imported)."""
    global _VERSION
    if _VERSION is None:
        version = "unknown"
        spec = importlib.util.find_spec("pyspark")
        if spec is not None and spec.origin is not None:
            try:
                with open(os.path.join(os.path.dirname(spec.origin), "version.py"), encoding="utf-8") as f:
                    found = re.search(r"""__version__[^=]*=\s*["']([^"']+)["']""", f.read())
                version = found.group(1) if found else version
            except OSError:
                pass
        _VERSION = version
    return _VERSION


_VARIANT_UTILS: Any = None
_VARIANT_MODULE = "pyspark.sql.variant_utils"


def variant_utils() -> Any:
    """PySpark's ``VariantUtils`` (``pyspark/sql/variant_utils.py``: a variant's binary form
    to JSON and back), loaded like the messages, without importing PySpark: its package's
    ``__init__`` imports py4j and most of PySpark (~125 ms and ~90 modules), and a command
    that shows a variant column needs none of it. The file's one import of PySpark,
    ``from pyspark.errors import PySparkValueError``, gets a function that imports PySpark's
    own class and returns its instance, so an error raised by the decoder is PySpark's, with
    PySpark's message; only then is PySpark imported. A file that imports anything else of
    PySpark, or a layout this loader does not know: PySpark's own import."""
    global _VARIANT_UTILS
    if _VARIANT_UTILS is None:
        _VARIANT_UTILS = _load_variant_utils()
    return _VARIANT_UTILS


def _pyspark_value_error(*args: Any, **kwargs: Any) -> BaseException:
    from pyspark.errors import PySparkValueError

    return PySparkValueError(*args, **kwargs)


def _load_variant_utils() -> Any:
    spec = importlib.util.find_spec("pyspark")
    path = (
        None
        if spec is None or spec.origin is None
        else os.path.join(os.path.dirname(spec.origin), "sql", "variant_utils.py")
    )
    if _VARIANT_MODULE not in sys.modules and path is not None and os.path.isfile(path):
        errors = types.ModuleType(f"{__name__}._errors", "PySparkValueError, imported when first raised")
        errors.PySparkValueError = _pyspark_value_error  # type: ignore[attr-defined]

        def redirect(name: str, fromlist: tuple[str, ...]) -> Any:
            if name.split(".")[0] != "pyspark":
                return None
            if name == "pyspark.errors" and set(fromlist) <= {"PySparkValueError"}:
                return errors
            raise ImportError(f"{name} is not loaded privately")

        module_builtins = _builtins_importing_through(redirect)
        try:
            return _exec_private(f"{__name__}._variant_utils", path, module_builtins).VariantUtils
        except (ImportError, AttributeError):
            pass  # a newer file importing more of PySpark: PySpark's own import below
    from . import _pyspark_import  # noqa: F401  (before PySpark: its import-time check of __main__)

    # isort: split
    from pyspark.sql.variant_utils import VariantUtils

    return VariantUtils
