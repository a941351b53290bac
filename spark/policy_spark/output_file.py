"""A path the command writes to, written without destroying what is there (as `policy-run` does).

A symlink is followed (the link kept, its target written); a regular file, or a path with
nothing yet, is written to a temporary file beside it and renamed into place once complete,
keeping the old file's mode, so a reader never sees half of it and a process holding the old
file keeps it whole; a device, a FIFO or a pipe (`/dev/stdout`) is written through and stays
what it is.
"""

import os
import secrets
import stat
from typing import Optional, Tuple


class OutputFileError(Exception):
    """A path that cannot be written: `cannot write to 'PATH': REASON`."""

    def __init__(self, path: str, reason: str):
        super().__init__(f"cannot write to {path!r}: {reason}")


class OutputFile:
    """Opened before the work whose result it takes, so a path that cannot be written fails
    the command before a job runs rather than after it."""

    def __init__(self, path: str):
        self.path = path
        self._descriptor = -1
        self._replacement: Optional[Tuple[str, str]] = None  # (temporary, target)
        # What is there is asked with the path as given, which the kernel follows through links
        # that name no file (`/dev/stdout` -> `/proc/self/fd/1` -> `pipe:[N]`); only a file to
        # be replaced needs the path its links lead to.
        try:
            info = os.stat(path)
        except FileNotFoundError:
            info = None
        except OSError as error:
            raise OutputFileError(path, error.strerror or str(error)) from None
        if info is not None and stat.S_ISDIR(info.st_mode):
            raise OutputFileError(path, "Is a directory")
        try:
            if info is not None and not stat.S_ISREG(info.st_mode):
                self._descriptor = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
                return
            folder, name = os.path.split(os.path.realpath(path))
            for _ in range(8):
                temporary = os.path.join(folder, f".{name}.{secrets.token_hex(8)}.tmp")
                try:
                    self._descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
                except FileExistsError:
                    continue
                self._replacement = (temporary, os.path.join(folder, name))
                if info is not None:
                    os.fchmod(self._descriptor, stat.S_IMODE(info.st_mode))
                return
        except OSError as error:
            raise OutputFileError(path, error.strerror or str(error)) from None
        raise OutputFileError(path, "no free temporary name beside it")

    def commit(self, text: str) -> None:
        """Writes `text` and puts it in place; the old file stays as it was if that fails."""
        try:
            data = memoryview(text.encode("utf-8"))
            while data:
                data = data[os.write(self._descriptor, data):]
            os.close(self._descriptor)
            self._descriptor = -1
            if self._replacement is not None:
                os.rename(*self._replacement)
                self._replacement = None
        except OSError as error:
            raise OutputFileError(self.path, error.strerror or str(error)) from None
        finally:
            self.discard()

    def discard(self) -> None:
        """Closes without writing: a temporary file is removed, the path left as it was."""
        if self._descriptor >= 0:
            os.close(self._descriptor)
            self._descriptor = -1
        if self._replacement is not None:
            try:
                os.unlink(self._replacement[0])
            except OSError:
                pass
            self._replacement = None
