"""A job's working directory travels as an archive (.tar.gz or .zip). ``pack`` makes one
on the client; ``unpack`` opens it into the job's folder on the service and refuses,
before writing anything of it, an archive that would put a file outside that folder (an
absolute path, '..', a link of any kind, a device), one with too many members, or one
whose contents add up to more than the limit (so a small archive cannot expand without
bound).

    data = pack("project/")                             # bytes of a .tar.gz
    files = unpack(path, "jobs/17/work", max_bytes=1 << 30)
"""
import io
import os
import stat
import tarfile
import zipfile

__all__ = ["ArchiveError", "pack", "unpack", "SKIPPED_DIRS"]

SKIPPED_DIRS = {".git", "__pycache__", ".ipynb_checkpoints", ".venv", "node_modules"}
MAX_MEMBERS = 100_000


class ArchiveError(ValueError):
    """An archive the service will not open; the message names the member."""


def pack(directory, max_bytes=100 << 20):
    """The .tar.gz bytes of ``directory``'s files (without version-control and cache
    folders, links or special files). Raises ArchiveError past ``max_bytes`` of input."""
    if not os.path.isdir(directory):
        raise ArchiveError(f"{directory} is not a directory")
    buffer = io.BytesIO()
    total = 0
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for folder, dirs, files in os.walk(directory):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
            for name in sorted(files):
                path = os.path.join(folder, name)
                info = os.lstat(path)
                if not stat.S_ISREG(info.st_mode):
                    continue
                total += info.st_size
                if total > max_bytes:
                    raise ArchiveError(f"{directory} holds more than {max_bytes} bytes of "
                                       f"files; submit a smaller directory")
                tar.add(path, arcname=os.path.relpath(path, directory), recursive=False)
    return buffer.getvalue()


def _member_path(name, dest):
    """The path of archive member ``name`` under ``dest``; ArchiveError if it leaves it."""
    clean = name.replace("\\", "/")
    if clean.startswith("/") or (len(clean) > 1 and clean[1] == ":") or "\x00" in clean:
        raise ArchiveError(f"archive member {name!r} has an absolute path")
    parts = [p for p in clean.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise ArchiveError(f"archive member {name!r} leaves the job's directory ('..')")
    path = os.path.join(dest, *parts) if parts else dest
    real_dest = os.path.realpath(dest)
    if os.path.commonpath([os.path.realpath(path), real_dest]) != real_dest:
        raise ArchiveError(f"archive member {name!r} leaves the job's directory")
    return path


def _tar_members(tar, dest, max_bytes):
    members, total = [], 0
    for m in tar:
        if len(members) >= MAX_MEMBERS:
            raise ArchiveError(f"the archive has more than {MAX_MEMBERS} members")
        if m.issym() or m.islnk():
            raise ArchiveError(f"archive member {m.name!r} is a link; links are not accepted")
        if not (m.isfile() or m.isdir()):
            raise ArchiveError(f"archive member {m.name!r} is not a file or directory")
        total += m.size
        if total > max_bytes:
            raise ArchiveError(f"the archive's files add up to more than {max_bytes} bytes")
        members.append((m, _member_path(m.name, dest)))
    return members


def _zip_members(z, dest, max_bytes):
    infos = z.infolist()
    if len(infos) > MAX_MEMBERS:
        raise ArchiveError(f"the archive has more than {MAX_MEMBERS} members")
    members, total = [], 0
    for info in infos:
        kind = stat.S_IFMT(info.external_attr >> 16)  # 0: no Unix type recorded (a file)
        if kind == stat.S_IFLNK:
            raise ArchiveError(f"archive member {info.filename!r} is a link; links are not "
                               f"accepted")
        if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
            raise ArchiveError(f"archive member {info.filename!r} is not a file or directory")
        total += info.file_size
        if total > max_bytes:
            raise ArchiveError(f"the archive's files add up to more than {max_bytes} bytes")
        members.append((info, _member_path(info.filename, dest)))
    return members


def _copy(src, path, limit):
    with open(path, "wb") as out:
        written = 0
        while True:
            chunk = src.read(1 << 20)
            if not chunk:
                return
            written += len(chunk)
            if written > limit:  # a member longer than its header said
                raise ArchiveError(f"archive member {path!r} is longer than it declares")
            out.write(chunk)


def unpack(archive_path, dest, max_bytes):
    """Opens the archive at ``archive_path`` (tar, tar.gz or zip) into ``dest`` (created);
    returns how many files it wrote. Every member is checked before any is written."""
    os.makedirs(dest, exist_ok=True)
    count = 0
    if zipfile.is_zipfile(archive_path):
        with zipfile.ZipFile(archive_path) as z:
            for info, path in _zip_members(z, dest, max_bytes):
                if info.is_dir():
                    os.makedirs(path, exist_ok=True)
                    continue
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with z.open(info) as src:
                    _copy(src, path, info.file_size)
                count += 1
        return count
    try:
        tar = tarfile.open(archive_path, mode="r:*")
    except (tarfile.TarError, OSError) as e:
        raise ArchiveError(f"the upload is not a .tar.gz, .tar or .zip archive ({e})") from None
    with tar:
        try:
            members = _tar_members(tar, dest, max_bytes)
        except tarfile.TarError as e:
            raise ArchiveError(f"the archive is damaged: {e}") from None
        for m, path in members:
            if m.isdir():
                os.makedirs(path, exist_ok=True)
                continue
            os.makedirs(os.path.dirname(path), exist_ok=True)
            src = tar.extractfile(m)
            _copy(src, path, m.size)
            os.chmod(path, 0o755 if m.mode & 0o111 else 0o644)
            count += 1
    return count
