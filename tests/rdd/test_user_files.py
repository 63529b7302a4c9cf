"""Shipping files to the tasks: addFile, addPyFile, addArchive, SparkFiles, pyFiles, and
binaryFiles / binaryRecords.

Each test makes its own contexts (shipping changes a context for good), on ``local``
(tasks in the driver) and ``local[2]`` (worker processes started before the files were
added, so the workers must pick them up, not inherit them). Module names are unique per
test: an imported module stays in the driver's ``sys.modules``.
"""

from __future__ import annotations

import importlib
import os
import tarfile
import uuid
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from rdd import SparkContext, SparkFiles

MASTERS = ["local", "local[2]"]


def _started(make_sc: Callable[..., SparkContext], master: str) -> SparkContext:
    sc = make_sc(master)
    sc.parallelize([0], 1).count()  # the workers are up and have run a stage before any file exists
    return sc


@pytest.mark.parametrize("master", MASTERS)
def test_add_file_is_read_by_tasks_through_spark_files(make_sc: Callable[..., SparkContext], master: str,
                                                       tmp_path: Path) -> None:
    sc = _started(make_sc, master)
    source = tmp_path / "lookup.txt"
    source.write_text("42")
    sc.addFile(str(source))
    source.write_text("changed later")  # a copy was shipped

    def read(_: int) -> str:
        with open(SparkFiles.get("lookup.txt")) as f:
            return f.read()

    assert sc.parallelize([1, 2], 2).map(read).collect() == ["42", "42"]
    assert SparkFiles.get("lookup.txt").startswith(SparkFiles.getRootDirectory())
    assert sc.listFiles == [f"file:{source}"]


@pytest.mark.parametrize("master", MASTERS)
def test_add_file_recursive_ships_a_directory(make_sc: Callable[..., SparkContext], master: str,
                                              tmp_path: Path) -> None:
    sc = _started(make_sc, master)
    folder = tmp_path / "conf"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "a.txt").write_text("A")
    with pytest.raises(ValueError, match="recursive=True"):
        sc.addFile(str(folder))
    sc.addFile(str(folder), recursive=True)
    got = sc.parallelize([1], 1).map(lambda _: open(os.path.join(SparkFiles.get("conf"), "sub", "a.txt")).read())
    assert got.collect() == ["A"]


@pytest.mark.parametrize("master", MASTERS)
def test_add_py_file_makes_a_module_importable_in_tasks(make_sc: Callable[..., SparkContext], master: str,
                                                        tmp_path: Path) -> None:
    sc = _started(make_sc, master)
    plain = f"shipped_{uuid.uuid4().hex[:8]}"
    zipped = f"zipped_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{plain}.py").write_text("FACTOR = 7\ndef scale(x):\n    return x * FACTOR\n")
    with zipfile.ZipFile(tmp_path / "deps.zip", "w") as archive:
        archive.writestr(f"{zipped}/__init__.py", "def shift(x):\n    return x + 1000\n")
    sc.addPyFile(str(tmp_path / f"{plain}.py"))
    sc.addPyFile(str(tmp_path / "deps.zip"))
    scale = importlib.import_module(plain).scale  # importable in the driver too, as in PySpark
    assert sc.parallelize([1, 2], 2).map(scale).collect() == [7, 14]

    def shift(x: int) -> int:
        return importlib.import_module(zipped).shift(x)

    assert sc.parallelize([1, 2], 2).map(shift).collect() == [1001, 1002]


def test_py_files_given_to_the_constructor_are_shipped(make_sc: Callable[..., SparkContext],
                                                       tmp_path: Path, no_active_context: None) -> None:
    name = f"ctor_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{name}.py").write_text("def tag(x):\n    return f'<{x}>'\n")
    sc = SparkContext("local[2]", "py-files", pyFiles=[str(tmp_path / f"{name}.py")])
    try:
        tag = importlib.import_module(name).tag
        assert sc.parallelize(["a"], 1).map(tag).collect() == ["<a>"]
    finally:
        sc.stop()


@pytest.mark.parametrize("master", MASTERS)
def test_add_archive_unpacks_into_a_directory_named_after_it(make_sc: Callable[..., SparkContext], master: str,
                                                             tmp_path: Path) -> None:
    sc = _started(make_sc, master)
    (tmp_path / "data.txt").write_text("inside")
    with tarfile.open(tmp_path / "bundle.tar.gz", "w:gz") as archive:
        archive.add(tmp_path / "data.txt", arcname="data.txt")
    sc.addArchive(str(tmp_path / "bundle.tar.gz"))
    got = sc.parallelize([1], 1).map(lambda _: open(os.path.join(SparkFiles.get("bundle.tar.gz"), "data.txt")).read())
    assert got.collect() == ["inside"]
    assert sc.listArchives == [f"file:{tmp_path / 'bundle.tar.gz'}"]


def test_names_are_shipped_once(make_sc: Callable[..., SparkContext], tmp_path: Path) -> None:
    sc = make_sc("local")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    for folder in ("a", "b"):
        (tmp_path / folder / "same.txt").write_text(folder)
    sc.addFile(str(tmp_path / "a" / "same.txt"))
    sc.addFile(str(tmp_path / "a" / "same.txt"))  # the same path again: nothing to do
    with pytest.raises(ValueError, match="already registered with a different path"):
        sc.addFile(str(tmp_path / "b" / "same.txt"))
    with zipfile.ZipFile(tmp_path / "b" / "x.zip", "w") as archive:
        archive.writestr("f", "")
    sc.addPyFile(str(tmp_path / "b" / "x.zip"))
    with pytest.raises(ValueError, match="already shipped"):
        sc.addArchive(str(tmp_path / "b" / "x.zip"))


def test_bad_paths_are_named(make_sc: Callable[..., SparkContext], tmp_path: Path) -> None:
    sc = make_sc("local")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        sc.addFile(str(tmp_path / "missing.txt"))
    (tmp_path / "notes.txt").write_text("")
    with pytest.raises(ValueError, match=r"\.py, \.zip or \.egg"):
        sc.addPyFile(str(tmp_path / "notes.txt"))
    with pytest.raises(ValueError, match="not an archive"):
        sc.addArchive(str(tmp_path / "notes.txt"))
    with pytest.raises(TypeError, match="class methods"):
        SparkFiles()


def test_binary_files_and_records(make_sc: Callable[..., SparkContext], tmp_path: Path) -> None:
    sc = make_sc("local[2]")
    (tmp_path / "a.bin").write_bytes(bytes(range(8)))
    (tmp_path / "b.bin").write_bytes(b"\xff" * 4)
    files = dict(sc.binaryFiles(str(tmp_path)).collect())
    assert files == {f"file:{tmp_path / 'a.bin'}": bytes(range(8)), f"file:{tmp_path / 'b.bin'}": b"\xff" * 4}
    records = sc.binaryRecords(str(tmp_path), 4).collect()
    assert sorted(records) == sorted([bytes(range(4)), bytes(range(4, 8)), b"\xff" * 4])
    with pytest.raises(Exception, match="partial record of 3 bytes"):
        sc.binaryRecords(str(tmp_path / "a.bin"), 5).collect()
    with pytest.raises(ValueError, match="positive int"):
        sc.binaryRecords(str(tmp_path), 0)


def test_context_facts(make_sc: Callable[..., SparkContext], monkeypatch: pytest.MonkeyPatch) -> None:
    sc = make_sc("local")
    monkeypatch.setenv("SPARK_USER", "ada")
    assert sc.sparkUser() == "ada"
    monkeypatch.delenv("SPARK_USER")
    assert sc.sparkUser()
    assert sc.pythonVer.count(".") == 1
    assert os.path.exists(sc.pythonExec)
    assert sc.applicationId == f"local-{sc.startTime}"
