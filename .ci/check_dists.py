"""Audits the release wheels and the sdist that .ci/run built.

    python .ci/check_dists.py WHEEL_DIR SDIST_DIR

For every wheel: `auditwheel show` must find a policy no newer than
manylinux2014 (glibc 2.17) or musllinux_1_2, matching the file's tag;
`abi3audit --strict` must find no symbol beyond the abi3 (CPython 3.10) ABI;
the extension must be for the tag's architecture and stripped; and the wheel
must carry the real stub (`_core.pyi`, not a symlink), `py.typed`, the LICENSE
and no developer-only script. The sdist must carry the LICENSE, the lock file
and the stub too. Prints one row per file (name, size, policy, audits) and
exits non-zero on any failure.
"""

from __future__ import annotations

import io
import re
import stat
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

from elftools.elf.dynamic import DynamicSection
from elftools.elf.elffile import ELFFile  # auditwheel's ELF reader (pyelftools)

ROOT = Path(__file__).resolve().parent.parent
# Cargo.toml's [workspace.package] version (tomllib is 3.11+; this runs on 3.10 too).
_version = re.search(r'^version = "([^"]+)"', (ROOT / "Cargo.toml").read_text(), re.MULTILINE)
assert _version is not None
VERSION = _version[1]
# ELF e_machine names (pyelftools' spelling) for the wheel tags' architectures.
MACHINE = {"x86_64": "EM_X86_64", "aarch64": "EM_AARCH64"}
# Oldest-platform policies we promise, per libc: (major, minor) at most.
NEWEST_ALLOWED = {"manylinux": (2, 17), "musllinux": (1, 2)}
# Never in a wheel: scripts that only make the bundled data.
DEVELOPER_ONLY = ("make_cnn.py",)

failures: list[str] = []


def check(ok: bool, what: str) -> bool:
    if not ok:
        failures.append(what)
    return ok


def is_symlink(info: zipfile.ZipInfo) -> bool:
    return stat.S_ISLNK(info.external_attr >> 16)


def audit_wheel(wheel: Path) -> list[str]:
    name = wheel.name
    tag = re.fullmatch(r"opgraph-(?P<v>[^-]+)-cp310-abi3-(?P<plat>.+)\.whl", name)
    if not check(tag is not None, f"{name}: not an opgraph cp310-abi3 wheel"):
        return [name, "-", "-", "-", "-"]
    assert tag is not None
    check(tag["v"] == VERSION, f"{name}: version {tag['v']} is not Cargo's {VERSION}")
    # The PEP 600 tag of a (possibly compressed) tag set, e.g.
    # manylinux2014_x86_64.manylinux_2_17_x86_64 (the legacy alias is checked through it).
    plats = [
        re.fullmatch(r"(manylinux|musllinux)_(\d+)_(\d+)_(x86_64|aarch64)", p) for p in tag["plat"].split(".")
    ]
    plat = next((p for p in plats if p is not None), None)
    if not check(plat is not None, f"{name}: platform tag {tag['plat']} is not manylinux/musllinux"):
        return [name, "-", "-", "-", "-"]
    assert plat is not None
    libc, arch = plat[1], plat[4]
    check(
        (int(plat[2]), int(plat[3])) <= NEWEST_ALLOWED[libc],
        f"{name}: tag {plat[0]} is newer than {libc}_{'_'.join(map(str, NEWEST_ALLOWED[libc]))}",
    )

    # auditwheel: the policy the extension's symbol versions allow.
    if libc == "musllinux":
        policy_tag = audit_musl(wheel, arch)
        policy = None
    else:
        shown = subprocess.run(["auditwheel", "show", str(wheel)], capture_output=True, text=True)
        text = " ".join(shown.stdout.split())
        # "This constrains the platform tag to ..." or "is consistent with the following platform tag: ..."
        policy = re.search(r'platform tag(?: to|:) "((?:manylinux|musllinux)_\d+_\d+_\w+)"', text)
        check(shown.returncode == 0 and policy is not None, f"{name}: auditwheel show failed: {text}")
        policy_tag = policy[1] if policy else "?"
    if policy:
        found = re.match(r"(manylinux|musllinux)_(\d+)_(\d+)", policy_tag)
        assert found is not None
        check(
            found[1] == libc and (int(found[2]), int(found[3])) <= NEWEST_ALLOWED[libc],
            f"{name}: auditwheel policy {policy_tag} is newer than the tag promises",
        )

    # abi3audit --strict: any symbol outside the limited API of cp310 fails.
    abi3 = subprocess.run(["abi3audit", "--strict", str(wheel)], capture_output=True, text=True)
    check(abi3.returncode == 0, f"{name}: abi3audit --strict: {abi3.stdout}{abi3.stderr}")

    with zipfile.ZipFile(wheel) as zf:
        infos = {i.filename: i for i in zf.infolist()}
        stub = infos.get("opgraph/_core.pyi")
        check(
            stub is not None and not is_symlink(stub) and b"class " in zf.read(stub),
            f"{name}: opgraph/_core.pyi is missing, a symlink or empty",
        )
        check("opgraph/py.typed" in infos, f"{name}: no opgraph/py.typed")
        license_path = f"opgraph-{VERSION}.dist-info/licenses/LICENSE"
        check(
            license_path in infos and b"Apache License" in zf.read(license_path),
            f"{name}: no {license_path} with the Apache-2.0 text",
        )
        for script in DEVELOPER_ONLY:
            check(not any(f.endswith(script) for f in infos), f"{name}: ships the developer script {script}")
        metadata = zf.read(f"opgraph-{VERSION}.dist-info/METADATA").decode()
        check("License-Expression: Apache-2.0" in metadata, f"{name}: METADATA has no license expression")
        check("Provides-Extra: test\n" not in metadata, f"{name}: publishes a `test` extra")
        sos = [f for f in infos if re.fullmatch(r"opgraph/_core\.abi3\.so", f)]
        check(len(sos) == 1, f"{name}: expected one opgraph/_core.abi3.so, found {sos}")
        machine, stripped = "?", False
        if sos:
            # ELF header and section table of the extension, read in memory.
            elf = ELFFile(io.BytesIO(zf.read(sos[0])))
            machine = str(elf["e_machine"])
            stripped = elf.get_section_by_name(".symtab") is None
            check(machine == MACHINE[arch], f"{name}: extension is {machine}, the tag says {arch}")
            check(stripped, f"{name}: extension is not stripped (has .symtab)")
    size = f"{wheel.stat().st_size / 2**20:.1f} MiB"
    abi3_result = "pass" if abi3.returncode == 0 else "FAIL"
    return [name, size, policy_tag, abi3_result, f"{machine}, stripped={stripped}"]


def audit_musl(wheel: Path, arch: str) -> str:
    """auditwheel on a glibc host cannot place a zig-linked musl extension: zig
    links musl's upstream soname `libc.so` (which musl's loader maps to itself),
    where auditwheel's musllinux policy knows Alpine's `libc.musl-ARCH.so.1`,
    so it answers linux_ARCH. What a musllinux wheel must hold is checked here
    instead: the extension needs no shared library but musl's libc (musl has
    no symbol versions to check). The release workflow builds musllinux wheels
    in maturin-action's musllinux container, where auditwheel applies as is."""
    # An empty library path: else auditwheel reads glibc's libc.so linker script as ELF and crashes.
    with tempfile.TemporaryDirectory() as empty:
        shown = subprocess.run(
            ["auditwheel", "show", "--ldpaths", empty, str(wheel)], capture_output=True, text=True
        )
    text = " ".join(shown.stdout.split())
    found = re.search(r'platform tag(?: to|:) "(\w+)"', text)
    with zipfile.ZipFile(wheel) as zf:
        elf = ELFFile(io.BytesIO(zf.read("opgraph/_core.abi3.so")))
        dynamic = elf.get_section_by_name(".dynamic")
        assert isinstance(dynamic, DynamicSection)
        # DT_NEEDED tags carry .needed (set at run time: not in the stubs)
        needed = {
            str(tag.needed)  # type: ignore[attr-defined]
            for tag in dynamic.iter_tags()
            if tag.entry.d_tag == "DT_NEEDED"
        }
    check(
        needed <= {"libc.so", f"libc.musl-{arch}.so.1"},
        f"{wheel.name}: the extension needs more than musl's libc: {sorted(needed)}",
    )
    said = found[1] if found else "no answer"
    return f"musl libc only (needs {', '.join(sorted(needed))}); auditwheel: {said}"


def audit_sdist(sdist: Path) -> list[str]:
    name = sdist.name
    top = f"opgraph-{VERSION}"
    with tarfile.open(sdist) as tf:
        members = {m.name: m for m in tf.getmembers()}
        for path in ("LICENSE", "Cargo.lock", "pyproject.toml", "CHANGELOG.md", "python/opgraph/_core.pyi"):
            member = members.get(f"{top}/{path}")
            check(member is not None and member.isfile(), f"{name}: no regular file {path}")
    size = f"{sdist.stat().st_size / 2**20:.1f} MiB"
    return [name, size, "-", "-", "sources"]


def main() -> int:
    wheel_dir, sdist_dir = Path(sys.argv[1]), Path(sys.argv[2])
    wheels = sorted(wheel_dir.glob("*.whl"))
    sdists = sorted(sdist_dir.glob("*.tar.gz"))
    check(len(wheels) > 0, f"no wheels in {wheel_dir}")
    check(len(sdists) == 1, f"expected one sdist in {sdist_dir}, found {len(sdists)}")
    rows = [["file", "size", "auditwheel policy", "abi3audit --strict", "extension"]]
    rows += [audit_wheel(w) for w in wheels] + [audit_sdist(s) for s in sdists]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)))
    for failure in failures:
        print(f"FAIL: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
