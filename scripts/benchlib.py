"""Helpers shared by the `make bench-*` scripts."""
import os
import shutil


def pg_bin(name):
    """The newest installed PostgreSQL's `name` (psql, pgbench, ...), else the one on PATH."""
    for version in sorted(os.listdir("/usr/lib/postgresql"), reverse=True):
        path = f"/usr/lib/postgresql/{version}/bin/{name}"
        if os.path.exists(path):
            return path
    return shutil.which(name) or name
