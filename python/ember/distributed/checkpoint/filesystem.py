"""FileSystemWriter / FileSystemReader: where a checkpoint lives (a directory of PyTorch's
layout: `.metadata` and one `__{rank}_0.distcp` per rank that wrote anything)."""
import os


class FileSystemWriter:
    """Writes a checkpoint into the directory ``path`` (made when missing).

    single_file_per_rank: ember always writes one file per rank (PyTorch 1.13's
        single_file_per_rank=True layout, its default from 2.0 on), which 1.13 reads as well as
        its own. 1.13's default, False (a file per tensor), is not written by ember: asking for
        it explicitly is a NotImplementedError rather than a different layout than asked for.
    sync_files: fsync every file and the directory before save returns (`.metadata` is always
        written atomically and synced)."""

    def __init__(self, path, single_file_per_rank=True, sync_files=True):
        if not single_file_per_rank:
            raise NotImplementedError(
                "FileSystemWriter(single_file_per_rank=False): ember writes one file per rank "
                "(__{rank}_0.distcp), which PyTorch reads as well; leave single_file_per_rank=True")
        self.path = os.fspath(path)
        self.single_file_per_rank = True
        self.sync_files = bool(sync_files)

    def __repr__(self):
        return "FileSystemWriter(%r, sync_files=%s)" % (self.path, self.sync_files)


class FileSystemReader:
    """Reads the checkpoint in the directory ``path``: ember's, or one PyTorch wrote in either of
    its layouts (a file per rank or a file per item)."""

    def __init__(self, path):
        self.path = os.fspath(path)

    def __repr__(self):
        return "FileSystemReader(%r)" % self.path
