"""Hostile evidence bundles: a member altered after its manifest was written, a truncated file,
a bundle or member too large (a zip bomb), paths that climb out (``../``, absolute), links in
a tar, a manifest naming a member twice, members missing or unlisted, an unknown format
version. Each is refused in one line saying what to do; nothing is written outside the
workspace, and the workspace holds nothing of the bundle afterwards."""

from __future__ import annotations

import io
import json
import stat
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from diptych.core.engine import run_probe
from diptych.core.evidence.bundle import MANIFEST_NAME
from diptych.core.store import open_store
from diptych.core.trials import sha256_hex
from diptych.testing import ScriptedImageGenerator, ScriptedParams
from tests.support.bundles import run_cli

SMALL = {"masculine": ["carpenter"], "feminine": ["editor"], "aspects": ["occupation"],
         "setting": "single", "samples_single": 1}  # fmt: skip

Members = dict[str, bytes]


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> Members:
    """The members of a sound bundle of a small run with images, manifest first."""
    where = tmp_path_factory.mktemp("good")
    with open_store(where / "ws") as store:
        run = run_probe(store, "pst", [ScriptedImageGenerator(ScriptedParams())],
                        probe_params=SMALL)  # fmt: skip
    code, _, err = run_cli(["--store", str(where / "ws"), "export", run.id,
                            "--bundle", str(where / "b.zip")])  # fmt: skip
    assert code == 0, err
    with zipfile.ZipFile(where / "b.zip") as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def manifest_of(members: Members) -> dict:
    return json.loads(members[MANIFEST_NAME])


def with_manifest(members: Members, manifest: dict) -> Members:
    return {**members, MANIFEST_NAME: json.dumps(manifest).encode()}


def zip_of(path: Path, members: Members | list[tuple[str, bytes]]) -> Path:
    items = members.items() if isinstance(members, dict) else members
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in items:
            archive.writestr(name, data)
    return path


def tar_of(path: Path, members: Members, extra: Callable[[tarfile.TarFile], None]) -> Path:
    with tarfile.open(path, "w") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        extra(archive)
    return path


def blob_name(members: Members) -> str:
    return next(n for n in members if n.startswith("blobs/"))


def tampered(tmp: Path, good: Members) -> Path:
    name = blob_name(good)
    return zip_of(tmp / "b.zip", {**good, name: good[name][:-1] + b"!"})


def tampered_table(tmp: Path, good: Members) -> Path:
    data = good["tables/labels.parquet"]
    return zip_of(tmp / "b.zip", {**good, "tables/labels.parquet": data.replace(b"PAR1", b"PAR2")})


def truncated(tmp: Path, good: Members) -> Path:
    whole = zip_of(tmp / "whole.zip", good).read_bytes()
    (tmp / "b.zip").write_bytes(whole[: len(whole) // 2])
    return tmp / "b.zip"


def truncated_tar(tmp: Path, good: Members) -> Path:
    whole = tar_of(tmp / "whole.tar", good, lambda a: None).read_bytes()
    (tmp / "b.tar").write_bytes(whole[: len(whole) * 2 // 3])
    return tmp / "b.tar"


def bomb(tmp: Path, good: Members) -> Path:
    # 64 MB of zeros deflate to about 64 kB: over the 1 MB limit of --max-gb 0.001.
    zeros = bytes(64 * 1024**2)
    manifest = manifest_of(good)
    manifest["members"].append(
        {"path": "report/report.json", "sha256": sha256_hex(zeros), "size": len(zeros)}
    )
    return zip_of(tmp / "b.zip", {**with_manifest(good, manifest), "report/report.json": zeros})


def understated(tmp: Path, good: Members) -> Path:
    # The manifest states a member smaller than it is: stopped before it is unpacked whole.
    name = blob_name(good)
    manifest = manifest_of(good)
    for member in manifest["members"]:
        if member["path"] == name:
            member["size"] = 3
    return zip_of(tmp / "b.zip", with_manifest(good, manifest))


def climbing(path: str) -> Callable[[Path, Members], Path]:
    def make(tmp: Path, good: Members) -> Path:
        manifest = manifest_of(good)
        manifest["members"].append({"path": path, "sha256": sha256_hex(b"x"), "size": 1})
        return zip_of(tmp / "b.zip", [*with_manifest(good, manifest).items(), (path, b"x")])

    return make


def linked(kind: bytes) -> Callable[[Path, Members], Path]:
    def make(tmp: Path, good: Members) -> Path:
        def extra(archive: tarfile.TarFile) -> None:
            info = tarfile.TarInfo("report/passwd")
            info.type, info.linkname = kind, "/etc/passwd"
            archive.addfile(info)

        return tar_of(tmp / "b.tar", good, extra)

    return make


def file_and_directory(tmp: Path, good: Members) -> Path:
    # "report/a" is a file and the directory of "report/a/b": both cannot be unpacked.
    manifest = manifest_of(good)
    extra = {"report/a": b"x", "report/a/b": b"y"}
    for name, data in extra.items():
        manifest["members"].append({"path": name, "sha256": sha256_hex(data), "size": 1})
    return zip_of(tmp / "b.zip", {**with_manifest(good, manifest), **extra})


def zip_symlink(tmp: Path, good: Members) -> Path:
    # A zip keeps a symlink as a member whose mode says S_IFLNK and whose data is its target.
    manifest = manifest_of(good)
    target = b"/etc/passwd"
    manifest["members"].append(
        {"path": "report/passwd", "sha256": sha256_hex(target), "size": len(target)}
    )
    path = zip_of(tmp / "b.zip", with_manifest(good, manifest))
    with zipfile.ZipFile(path, "a") as archive:
        info = zipfile.ZipInfo("report/passwd")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(info, target)
    return path


def listed_twice(tmp: Path, good: Members) -> Path:
    manifest = manifest_of(good)
    manifest["members"].append(manifest["members"][-1])
    return zip_of(tmp / "b.zip", with_manifest(good, manifest))


def missing(tmp: Path, good: Members) -> Path:
    name = blob_name(good)
    return zip_of(tmp / "b.zip", {k: v for k, v in good.items() if k != name})


def unlisted(tmp: Path, good: Members) -> Path:
    return zip_of(tmp / "b.zip", {**good, "report/extra.html": b"<p>not in the manifest</p>"})


def future(tmp: Path, good: Members) -> Path:
    return zip_of(tmp / "b.zip", with_manifest(good, {**manifest_of(good), "format_version": 99}))


def archive_twice(tmp: Path, good: Members) -> Path:
    name = blob_name(good)
    return zip_of(tmp / "b.zip", [*good.items(), (name, good[name])])


CASES: dict[str, tuple[Callable[[Path, Members], Path], str]] = {
    "tampered blob": (tampered, "has a SHA-256 other than its manifest states"),
    "tampered table": (tampered_table, "has a SHA-256 other than its manifest states"),
    "truncated zip": (truncated, "it may be truncated: copy the bundle again"),
    "truncated tar": (truncated_tar, "copy"),
    "zip bomb": (bomb, "over the limit of 1073741; refused before unpacking"),
    "understated size": (understated, "its manifest says 3;"),
    "dot-dot path": (climbing("../../escaped.txt"), "climbs out of the bundle's directory"),
    "absolute path": (climbing("/tmp/escaped.txt"), "is not a relative path inside the bundle"),
    "symlink in tar": (linked(tarfile.SYMTYPE), "is a symlink; the bundle is unsafe"),
    "hard link in tar": (linked(tarfile.LNKTYPE), "is a hard link; the bundle is unsafe"),
    "symlink in zip": (zip_symlink, "is not a regular file (a link or a directory)"),
    "member listed twice": (listed_twice, "twice"),
    "a file named as a directory": (file_and_directory, "member 'report/a/b' cannot be unpacked"),
    "member in the archive twice": (archive_twice, "is in the archive twice"),
    "member missing": (missing, "is not in the archive (1 missing): the bundle is truncated"),
    "member unlisted": (unlisted, "is not in the manifest; the bundle was altered"),
    "unknown format version": (future, "bundle format version 99; this diptych reads version 1"),
}


# zipfile warns as it writes the member named twice: that is the case.
@pytest.mark.filterwarnings("ignore:Duplicate name")
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_hostile_bundle_is_refused_in_one_line_and_adds_nothing(
    case: str, good: Members, tmp_path: Path
) -> None:
    make, said = CASES[case]
    made = tmp_path / "made"
    made.mkdir()
    bundle = make(made, good)
    before = sorted(tmp_path.rglob("*"))
    store = tmp_path / "ws"
    code, _, err = run_cli(["--store", str(store), "import", str(bundle), "--max-gb", "0.001"])
    assert code != 0
    (line,) = err.strip().splitlines()
    assert said in line
    # Nothing outside the workspace, and no workspace where there was none (whichever check
    # refused it: the archive's before a workspace is made, a member's SHA-256 after).
    assert sorted(tmp_path.rglob("*")) == before and not store.exists()
    assert not (Path("/tmp/escaped.txt").exists() or (tmp_path.parent / "escaped.txt").exists())


def test_a_file_that_is_no_bundle_makes_no_workspace(tmp_path: Path) -> None:
    not_a_bundle = tmp_path / "fake.py"
    not_a_bundle.write_text("print('hello')\n")
    store = tmp_path / "never"
    code, _, err = run_cli(["--store", str(store), "import", str(not_a_bundle)])
    assert code != 0 and len(err.strip().splitlines()) == 1
    assert not store.exists()


def test_the_good_bundle_these_are_made_from_imports(good: Members, tmp_path: Path) -> None:
    bundle = zip_of(tmp_path / "b.zip", good)
    code, out, err = run_cli(["--store", str(tmp_path / "ws"), "import", str(bundle),
                              "--max-gb", "0.001"])  # fmt: skip
    assert code == 0, err
    assert ": 1 run, 2 trials, 2 results, 2 subjects; 2 blobs added" in out


def test_a_bundle_over_the_total_limit_is_refused_before_unpacking(
    good: Members, tmp_path: Path
) -> None:
    from diptych.core.evidence.bundle import BundleError, BundleLimits
    from diptych.core.workspace import Workspace

    bundle = zip_of(tmp_path / "b.zip", good)
    # Every member is within its own limit; together they are not.
    limits = BundleLimits(total_bytes=4096, member_bytes=1024**2)
    with Workspace.open(tmp_path / "ws") as ws:
        with pytest.raises(BundleError, match=r"over the limit of \d+ members and 4096 bytes; "
                           "refused before unpacking"):  # fmt: skip
            ws.bundles.import_file(bundle, limits=limits)
        assert ws.runs.list() == []
    assert not list((tmp_path / "ws").glob(".bundle-import-*"))
