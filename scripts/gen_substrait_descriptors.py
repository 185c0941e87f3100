"""Regenerate ``connect_plan/formats/substrait/descriptors.py``: the superset Substrait schema.

Why a superset: real producers write different spec versions (ibis-substrait 0.52, DuckDB 0.53,
Isthmus 0.5 none, DataFusion 0.85). The newest ``substrait-protobuf`` no longer has fields the
older producers still write (``Plan.extension_uris``, ``AggregateRel.Grouping.grouping_expressions``,
``FetchRel.count``/``offset``, ``VirtualTable.values``, ...): parsed with it alone, those become
unknown fields and a plan silently loses its GROUP BY keys and its LIMIT. So this script takes the
file descriptors of the newest release (``NEW``) and re-adds, under their old numbers, every field,
message, oneof and enum value of an older release (``OLD``, the last that has them all) that the
newest one dropped; nothing collides (checked here). The JoinType names of spec <=0.52
(``JOIN_TYPE_SEMI``/``ANTI``/``SINGLE``) are added as enum aliases so such JSON parses too.

The result is a serialized ``FileDescriptorSet`` that the front-end loads into a *private*
descriptor pool: it never touches the default pool, so it coexists with PySpark's protos and with
any ``substrait``/``substrait-protobuf`` package the user has imported.

Usage: ``python scripts/gen_substrait_descriptors.py`` (downloads the two wheels with pip into a
temporary folder; needs PyPI) — or pass two unpacked wheel folders: ``NEW_DIR OLD_DIR``.
"""

from __future__ import annotations

import ast
import base64
import re
import subprocess
import sys
import tempfile
import textwrap
import zipfile
from pathlib import Path

from google.protobuf import any_pb2, descriptor_pb2, empty_pb2

NEW = "0.108.0"
OLD = "0.83.0"
FILES = (
    "substrait/type.proto",
    "substrait/extensions/extensions.proto",
    "substrait/algebra.proto",
    "substrait/plan.proto",
)
OUT = Path(__file__).resolve().parent.parent / "connect_plan" / "formats" / "substrait" / "descriptors.py"
#: enum value names of spec <=0.52, renamed later with the same numbers
ALIASES = {"JoinRel.JoinType": {"JOIN_TYPE_SEMI": 5, "JOIN_TYPE_ANTI": 6, "JOIN_TYPE_SINGLE": 7}}


def _load(folder: Path) -> dict[str, descriptor_pb2.FileDescriptorProto]:
    out = {}
    for py in folder.rglob("*_pb2.py"):
        m = re.search(r"AddSerializedFile\((b'.*?')\)", py.read_text(), re.S)
        if m is None:
            continue
        fd = descriptor_pb2.FileDescriptorProto.FromString(ast.literal_eval(m.group(1)))
        out[fd.name] = fd
    return out


def _merge_enum(
    new: descriptor_pb2.EnumDescriptorProto, old: descriptor_pb2.EnumDescriptorProto, path: str, added: list[str]
) -> None:
    names = {v.name for v in new.value}
    for v in old.value:
        if v.name not in names:
            if any(x.number == v.number for x in new.value):
                new.options.allow_alias = True
            new.value.add().CopyFrom(v)
            added.append(f"{path}.{v.name} = {v.number}")


def _merge_message(
    new: descriptor_pb2.DescriptorProto, old: descriptor_pb2.DescriptorProto, path: str, added: list[str]
) -> None:
    by_number = {f.number: f for f in new.field}
    names = {f.name for f in new.field}
    for f in old.field:
        if f.number in by_number:
            if by_number[f.number].name != f.name:
                print(f"note: {path} field {f.number} renamed {f.name} -> {by_number[f.number].name}")
            continue
        if f.name in names:
            raise SystemExit(f"collision: {path}.{f.name} has a new number")
        g = new.field.add()
        g.CopyFrom(f)
        if f.HasField("oneof_index"):
            oneof = old.oneof_decl[f.oneof_index].name
            idx = next((i for i, o in enumerate(new.oneof_decl) if o.name == oneof), None)
            if idx is None:
                new.oneof_decl.add().name = oneof
                idx = len(new.oneof_decl) - 1
            g.oneof_index = idx
        # the removed fields were deprecated before they went: keep them readable, not flagged
        g.options.ClearField("deprecated")
        added.append(f"{path}.{f.name} = {f.number}")
    nested = {m.name: m for m in new.nested_type}
    for m in old.nested_type:
        if m.name in nested:
            _merge_message(nested[m.name], m, f"{path}.{m.name}", added)
        else:
            new.nested_type.add().CopyFrom(m)
            added.append(f"{path}.{m.name} (message)")
    enums = {e.name: e for e in new.enum_type}
    for e in old.enum_type:
        if e.name in enums:
            _merge_enum(enums[e.name], e, f"{path}.{e.name}", added)
        else:
            new.enum_type.add().CopyFrom(e)
            added.append(f"{path}.{e.name} (enum)")


def _find(fd: descriptor_pb2.FileDescriptorProto, dotted: str) -> descriptor_pb2.DescriptorProto:
    first, *rest = dotted.split(".")
    msg = next(m for m in fd.message_type if m.name == first)
    for part in rest[:-1]:
        msg = next(m for m in msg.nested_type if m.name == part)
    return msg


def merge(
    new: dict[str, descriptor_pb2.FileDescriptorProto], old: dict[str, descriptor_pb2.FileDescriptorProto]
) -> tuple[descriptor_pb2.FileDescriptorSet, list[str]]:
    added: list[str] = []
    out = descriptor_pb2.FileDescriptorSet()
    for dep in (any_pb2, empty_pb2):  # the well-known types Substrait imports
        dep_fd = descriptor_pb2.FileDescriptorProto()
        dep.DESCRIPTOR.CopyToProto(dep_fd)
        out.file.add().CopyFrom(dep_fd)
    for name in FILES:
        fd = descriptor_pb2.FileDescriptorProto()
        fd.CopyFrom(new[name])
        if name in old:
            o = old[name]
            msgs = {m.name: m for m in fd.message_type}
            for m in o.message_type:
                if m.name in msgs:
                    _merge_message(msgs[m.name], m, m.name, added)
                else:
                    fd.message_type.add().CopyFrom(m)
                    added.append(f"{m.name} (message)")
            enums = {e.name: e for e in fd.enum_type}
            for e in o.enum_type:
                if e.name in enums:
                    _merge_enum(enums[e.name], e, e.name, added)
        for dotted, values in ALIASES.items():
            if name == "substrait/algebra.proto":
                parent = _find(fd, dotted)
                enum = next(e for e in parent.enum_type if e.name == dotted.split(".")[-1])
                enum.options.allow_alias = True
                have = {v.name for v in enum.value}
                for vname, number in values.items():
                    if vname not in have:
                        v = enum.value.add()
                        v.name, v.number = vname, number
                        added.append(f"{dotted}.{vname} = {number} (alias, spec <=0.52)")
        fd.ClearField("source_code_info")
        out.file.add().CopyFrom(fd)
    return out, added


def _wheel(version: str, tmp: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(tmp), f"substrait-protobuf=={version}"],
        check=True,
    )
    whl = next(tmp.glob(f"substrait_protobuf-{version}-*.whl"))
    target = tmp / version
    zipfile.ZipFile(whl).extractall(target)
    return target


def main(argv: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        if len(argv) == 2:
            new_dir, old_dir = Path(argv[0]), Path(argv[1])
        else:
            new_dir, old_dir = _wheel(NEW, Path(tmp)), _wheel(OLD, Path(tmp))
        fds, added = merge(_load(new_dir), _load(old_dir))
    blob = base64.b64encode(fds.SerializeToString()).decode()
    lines = textwrap.wrap(blob, 100)
    body = "\n".join(f'    "{line}"' for line in lines)
    listed = "\n".join(f"#   {a}" for a in added)
    OUT.write_text(
        '"""The superset Substrait schema (generated by scripts/gen_substrait_descriptors.py; do not edit).\n\n'
        f"substrait-protobuf {NEW}'s file descriptors plus what {OLD} had and {NEW} dropped, so every\n"
        'field real producers write is known (see the script\'s docstring)."""\n\n'
        f"# re-added from {OLD} (and the spec <=0.52 enum names):\n{listed}\n\n"
        f'NEW_VERSION = "{NEW}"\nOLD_VERSION = "{OLD}"\n'
        f"ADDED: tuple[str, ...] = (\n" + "".join(f"    {a!r},\n" for a in added) + ")\n\n"
        "#: a serialized google.protobuf.FileDescriptorSet, base64\n"
        f"FILE_DESCRIPTOR_SET_B64 = (\n{body}\n)\n"
    )
    print(f"wrote {OUT} ({len(fds.SerializeToString())} bytes); re-added:")
    for a in added:
        print("  ", a)


if __name__ == "__main__":
    main(sys.argv[1:])
