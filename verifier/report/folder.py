"""Outputs that become visible together (issue 46): a certificate's files, an audit's
reports, a sweep's table and figures.  Each file is written whole (a temporary name, fsync,
rename) into a fresh sibling folder that also holds the folder's other files (hard links:
nothing copied), and that folder is exchanged with the old one in one step
(``renameat2(RENAME_EXCHANGE)``, Linux 3.15+); a reader sees the old folder or the new one,
never a mixture.  Where the exchange is not available the old folder is renamed aside and the
new one into place (a kill between the two renames leaves the old folder aside: the next write
puts it back before anything else).  A killed writer's fresh folder is removed by the next
write.  The folder being the current directory (or above it) cannot be exchanged under the
process: its files are then renamed one by one (``writer.write_atomic``)."""
from __future__ import annotations

import ctypes
import errno
import os
import shutil
import tempfile

from verifier.core.arith import InputError

_NEW, _OLD = ".new-", ".old-"


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def recover(out: str):
    """Put back an old folder a killed writer left aside; remove killed writers' fresh
    folders (those of a live process are left alone)."""
    parent, base = os.path.split(out)
    try:
        names = os.listdir(parent)
    except OSError:
        return
    for name in sorted(names):
        for tag in (_OLD, _NEW):
            head = f".{base}{tag}"
            if not name.startswith(head):
                continue
            pid = name[len(head):].split("-")[0]
            if not pid.isdigit() or _alive(int(pid)):
                continue
            path = os.path.join(parent, name)
            if tag == _OLD and not os.path.exists(out):
                os.rename(path, out)
            else:
                shutil.rmtree(path, ignore_errors=True)


def _link_tree(src: str, dst: str, skip: set):
    """dst gets every file of src (hard links; copies where a link fails) but those in
    ``skip`` (relative paths) and temporary files a killed writer left (``.*.tmp``)."""
    for root, dirs, files in os.walk(src):
        rel = os.path.relpath(root, src)
        target = dst if rel == "." else os.path.join(dst, rel)
        os.makedirs(target, exist_ok=True)
        shutil.copymode(root, target)
        for f in files:
            r = os.path.normpath(os.path.join(rel, f))
            if r in skip or (f.startswith(".") and f.endswith(".tmp")):
                continue
            try:
                os.link(os.path.join(root, f), os.path.join(target, f))
            except OSError:
                shutil.copy2(os.path.join(root, f), os.path.join(target, f))


def _exchange(a: str, b: str) -> bool:
    """Swap two paths in one step (True), or False where the system cannot."""
    try:
        f = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    f.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if f(-100, os.fsencode(a), -100, os.fsencode(b), 2) == 0:     # AT_FDCWD, RENAME_EXCHANGE
        return True
    e = ctypes.get_errno()
    if e in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(e, os.strerror(e), b)


def _write_file(path: str, data, mask: int):
    d = os.path.dirname(path)
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=d)
    try:
        with os.fdopen(fd, "wb" if isinstance(data, bytes) else "w",
                       **({} if isinstance(data, bytes) else
                          {"encoding": "utf-8", "newline": "\n"})) as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _swap_by_renames(stage: str, out: str) -> str:
    """The old folder aside, the new one into place; the old one's path returned (to be
    removed).  Interrupted between the two, the old folder is put back."""
    aside = tempfile.mkdtemp(prefix=f".{os.path.basename(out)}{_OLD}{os.getpid()}-",
                             dir=os.path.dirname(out))
    os.rmdir(aside)
    os.rename(out, aside)
    try:
        os.rename(stage, out)
    except BaseException:
        os.rename(aside, out)
        raise
    return aside


def _under_cwd(out: str) -> bool:
    try:
        cwd = os.path.realpath(os.getcwd())
    except OSError:
        return False
    return os.path.commonpath([cwd, out]) == out


def write_together(out_dir: str, files: dict):
    """Write {path: text or bytes} (every path inside ``out_dir``) so that they become
    visible together with the folder's other files (module docstring)."""
    out = os.path.realpath(out_dir)
    rel = {}
    for p, data in files.items():
        r = os.path.relpath(os.path.realpath(p), out)
        if r.startswith(".."):
            raise ValueError(f"write_together: {p} is not inside {out_dir}")
        rel[os.path.normpath(r)] = data
    if _under_cwd(out):
        return write_atomic(files)
    mask = os.umask(0)
    os.umask(mask)
    stage = None
    try:
        parent = os.path.dirname(out)
        os.makedirs(parent, exist_ok=True)
        recover(out)
        stage = tempfile.mkdtemp(prefix=f".{os.path.basename(out)}{_NEW}{os.getpid()}-",
                                 dir=parent)
        if os.path.isdir(out):
            _link_tree(out, stage, set(rel))
        else:
            os.chmod(stage, 0o777 & ~mask)
        for r, data in sorted(rel.items()):
            _write_file(os.path.join(stage, r), data, mask)
        if not os.path.isdir(out):
            os.rename(stage, out)
            stage = None
        elif _exchange(stage, out):
            pass                                   # stage now holds the old folder
        else:
            stage = _swap_by_renames(stage, out)
    except OSError as e:
        raise InputError(f"cannot write report {e.filename or ''}: {e.strerror or e}") from None
    finally:
        if stage is not None:
            shutil.rmtree(stage, ignore_errors=True)


def write_atomic(files: dict[str, str]) -> None:
    """Write {path: text} so that each path holds either its old or its new
    content, never a part: temporary files in the same directory, fsync,
    then rename.  Nothing is renamed unless every file was written."""
    temps = []
    try:
        mask = os.umask(0)
        os.umask(mask)
        for path, text in files.items():
            d = os.path.dirname(os.path.abspath(path))
            os.makedirs(d, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=d)
            temps.append((tmp, path))
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, 0o666 & ~mask)
        for tmp, path in temps:
            os.replace(tmp, path)
        temps = []
    except OSError as e:
        raise InputError(f"cannot write report {e.filename or ''}: {e.strerror or e}") from None
    finally:
        for tmp, _ in temps:
            try:
                os.unlink(tmp)
            except OSError:
                pass
