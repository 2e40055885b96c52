"""A case-preserving, case-insensitive view of a folder, like the macOS and Windows defaults (for tests).

    /usr/bin/python3 test/helpers/ciFuse.py SRC MNT

Mounts SRC at MNT in the foreground until unmounted (fusermount3 -u MNT). A name is looked up within its folder
exactly first, then ignoring case; a new name keeps the case it was created with; a rename may change only the
case of a name. Inode numbers are SRC's own (use_ino), so two spellings of one file show the same st_ino.
"""
import errno
import os
import sys

from fusepy import FUSE, FuseOSError, Operations


class CaseInsensitive(Operations):
    def __init__(self, src):
        self.src = os.path.realpath(src)

    def _entry(self, folder, name):
        """The name as stored in `folder` (a real path) for `name`, or None."""
        if os.path.lexists(os.path.join(folder, name)):
            return name
        want = name.casefold()
        try:
            return next((n for n in os.listdir(folder) if n.casefold() == want), None)
        except (FileNotFoundError, NotADirectoryError):
            return None

    def _real(self, path, last_as_given=False):
        """SRC path for a mount path; a missing last segment (or any, with last_as_given) keeps the given case."""
        folder = self.src
        parts = [p for p in path.split('/') if p]
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            found = None if (last and last_as_given) else self._entry(folder, part)
            folder = os.path.join(folder, found or part)
        return folder

    def _parent_and_name(self, path):
        parent, name = os.path.split(path.rstrip('/'))
        return self._real(parent), name

    def getattr(self, path, fh=None):
        st = os.lstat(self._real(path))
        keys = ('st_mode', 'st_ino', 'st_dev', 'st_nlink', 'st_uid', 'st_gid', 'st_size',
                'st_atime', 'st_mtime', 'st_ctime', 'st_atime_ns', 'st_mtime_ns', 'st_ctime_ns')
        return {k: getattr(st, k) for k in keys}

    def readdir(self, path, fh):
        return ['.', '..', *os.listdir(self._real(path))]

    def readlink(self, path):
        return os.readlink(self._real(path))

    def access(self, path, mode):
        if not os.access(self._real(path), mode, follow_symlinks=False):
            raise FuseOSError(errno.EACCES)

    def chmod(self, path, mode):
        os.chmod(self._real(path), mode)

    def chown(self, path, uid, gid):
        os.chown(self._real(path), uid, gid, follow_symlinks=False)

    def utimens(self, path, times=None):
        os.utime(self._real(path), times, follow_symlinks=False)

    def truncate(self, path, length, fh=None):
        os.truncate(self._real(path), length)

    def statfs(self, path):
        s = os.statvfs(self._real(path))
        keys = ('f_bavail', 'f_bfree', 'f_blocks', 'f_bsize', 'f_favail', 'f_ffree', 'f_files', 'f_flag',
                'f_frsize', 'f_namemax')
        return {k: getattr(s, k) for k in keys}

    def mkdir(self, path, mode):
        os.mkdir(self._real(path), mode)

    def rmdir(self, path):
        os.rmdir(self._real(path))

    def unlink(self, path):
        os.unlink(self._real(path))

    def symlink(self, target, source):
        os.symlink(source, self._real(target))

    def link(self, target, source):
        os.link(self._real(source), self._real(target))

    def rename(self, old, new):
        src = self._real(old)
        parent, name = self._parent_and_name(new)
        existing = self._entry(parent, name)
        if existing is not None and existing != name:
            there = os.path.join(parent, existing)
            if not os.path.samefile(src, there):
                os.replace(src, there)  # replaces the other spelling's file, then takes the new spelling
                src = there
        os.rename(src, os.path.join(parent, name))

    def create(self, path, mode, fi=None):
        return os.open(self._real(path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)

    def open(self, path, flags):
        return os.open(self._real(path), flags)

    def read(self, path, size, offset, fh):
        return os.pread(fh, size, offset)

    def write(self, path, data, offset, fh):
        return os.pwrite(fh, data, offset)

    def flush(self, path, fh):
        return 0

    def fsync(self, path, datasync, fh):
        os.fsync(fh)

    def release(self, path, fh):
        os.close(fh)


if __name__ == '__main__':
    FUSE(CaseInsensitive(sys.argv[1]), sys.argv[2], foreground=True, nothreads=True, use_ino=True,
         hard_remove=True, attr_timeout=0, entry_timeout=0, negative_timeout=0)
