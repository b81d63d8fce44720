"""Job specs and uploaded archives, as the service checks them: every mistake named, no
archive member written outside the job's folder."""
import io
import os
import stat
import tarfile
import zipfile

import pytest

from skiff.cloud.archive import ArchiveError, pack, unpack
from skiff.cloud.spec import SpecError, check_spec, parse_workers, slots_of


def test_a_spec_gets_its_defaults():
    spec = check_spec({"script": "./train.py", "args": ["--lr", "0.1"]})
    assert spec["script"] == "train.py" and spec["name"] == "train.py"
    assert spec["workers"] == [1, 1] and spec["nproc"] == 1 and spec["priority"] == 0
    assert slots_of(check_spec({"module": "pkg.main", "workers": "2", "nproc": 3,
                                "cpus": 2})) == 12


@pytest.mark.parametrize("spec, words", [
    ({"script": "a.py", "wokers": 2}, ["unknown field", "wokers"]),
    ({}, ["exactly one of script", "module"]),
    ({"script": "a.py", "module": "m"}, ["exactly one"]),
    ({"script": "a.py", "workers": -1}, ["workers", "at least 1"]),
    ({"script": "a.py", "workers": "4:2"}, ["MIN 4 is above MAX 2"]),
    ({"script": "a.py", "workers": "x"}, ["workers must be N or MIN:MAX"]),
    ({"script": "a.py", "nproc": 0}, ["nproc", "[1, 256]"]),
    ({"script": "a.py", "nproc": True}, ["nproc must be an integer"]),
    ({"script": "../a.py"}, ["script", "'..'"]),
    ({"script": "/etc/passwd"}, ["script", "absolute"]),
    ({"script": "a.py", "name": "../x"}, ["name must be"]),
    ({"script": "a.py", "args": "--lr 1"}, ["args must be a list of strings"]),
    ({"script": "a.py", "env": {"SKIFF_RANK": "3"}}, ["SKIFF_RANK", "set by the service"]),
    ({"script": "a.py", "env": {"A B": "1"}}, ["env", "variable name"]),
    ({"script": "a.py", "keep": ["../../etc"]}, ["keep", "'..'"]),
    ({"module": "os; rm -rf /"}, ["module must be a dotted module name"]),
    ([1, 2], ["JSON object"]),
])
def test_bad_specs_are_named(spec, words):
    with pytest.raises(SpecError) as e:
        check_spec(spec)
    for word in words:
        assert word in str(e.value)


def test_workers_take_n_or_min_max():
    assert parse_workers("3") == (3, 3) and parse_workers("1:4") == (1, 4)
    assert parse_workers(2) == (2, 2)


def _tar(members):
    """A .tar.gz of (name, kind, data or target) members."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, kind, payload in members:
            info = tarfile.TarInfo(name)
            if kind == "file":
                info.size = len(payload)
                tar.addfile(info, io.BytesIO(payload))
            elif kind == "symlink":
                info.type, info.linkname = tarfile.SYMTYPE, payload
                tar.addfile(info)
            elif kind == "hardlink":
                info.type, info.linkname = tarfile.LNKTYPE, payload
                tar.addfile(info)
            elif kind == "fifo":
                info.type = tarfile.FIFOTYPE
                tar.addfile(info)
    return buffer.getvalue()


@pytest.mark.parametrize("members, words", [
    ([("../evil.py", "file", b"x")], ["../evil.py", "'..'"]),
    ([("a/../../evil.py", "file", b"x")], ["'..'"]),
    ([("/tmp/evil.py", "file", b"x")], ["absolute path"]),
    ([("link", "symlink", "/etc/passwd")], ["link", "links are not accepted"]),
    ([("ok.py", "file", b"x"), ("hard", "hardlink", "ok.py")], ["hard", "link"]),
    ([("pipe", "fifo", None)], ["pipe", "not a file or directory"]),
])
def test_archives_that_leave_the_folder_are_refused_before_anything_is_written(
        tmp_path, members, words):
    archive = tmp_path / "upload"
    archive.write_bytes(_tar([("first.py", "file", b"print(1)")] + members))
    dest = tmp_path / "job" / "work"
    with pytest.raises(ArchiveError) as e:
        unpack(str(archive), str(dest), max_bytes=1 << 20)
    for word in words:
        assert word in str(e.value)
    assert not (dest / "first.py").exists()  # nothing of it written
    assert not (tmp_path / "evil.py").exists() and not os.path.exists("/tmp/evil.py")


def test_zip_slip_and_zip_links_are_refused(tmp_path):
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(bad, "w") as z:
        z.writestr("ok.txt", "fine")
        z.writestr("../../outside.txt", "no")
    with pytest.raises(ArchiveError, match="'..'"):
        unpack(str(bad), str(tmp_path / "w1"), max_bytes=1 << 20)
    link = tmp_path / "link.zip"
    with zipfile.ZipFile(link, "w") as z:
        info = zipfile.ZipInfo("l")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        z.writestr(info, "/etc/passwd")
    with pytest.raises(ArchiveError, match="links are not accepted"):
        unpack(str(link), str(tmp_path / "w2"), max_bytes=1 << 20)
    assert not (tmp_path / "outside.txt").exists()


def test_an_archive_that_expands_past_the_limit_is_refused(tmp_path):
    archive = tmp_path / "bomb.tar.gz"
    archive.write_bytes(_tar([("zeros.bin", "file", bytes(4 << 20))]))
    assert archive.stat().st_size < 64 << 10  # a small upload ...
    with pytest.raises(ArchiveError, match="more than 1048576 bytes"):
        unpack(str(archive), str(tmp_path / "w"), max_bytes=1 << 20)  # ... a big expansion


def test_not_an_archive(tmp_path):
    junk = tmp_path / "junk"
    junk.write_bytes(b"\x00\x01 not an archive")
    with pytest.raises(ArchiveError, match="not a .tar.gz"):
        unpack(str(junk), str(tmp_path / "w"), max_bytes=1 << 20)


def test_pack_and_unpack_round_trip_without_caches_and_links(tmp_path):
    src = tmp_path / "project"
    (src / "pkg").mkdir(parents=True)
    (src / "train.py").write_text("print('hi')\n")
    (src / "pkg" / "data.txt").write_text("data")
    (src / "__pycache__").mkdir()
    (src / "__pycache__" / "x.pyc").write_bytes(b"cache")
    os.symlink("/etc/passwd", src / "passwd")
    archive = tmp_path / "a.tar.gz"
    archive.write_bytes(pack(str(src)))
    dest = tmp_path / "out"
    assert unpack(str(archive), str(dest), max_bytes=1 << 20) == 2
    assert (dest / "train.py").read_text() == "print('hi')\n"
    assert (dest / "pkg" / "data.txt").read_text() == "data"
    assert not (dest / "__pycache__").exists() and not (dest / "passwd").exists()
