"""Outputs visible together (issue 46, report/folder.py): the folder is exchanged whole, so an
interruption at any step leaves the old files or the new ones; other files of the folder
kept; a killed writer's leftovers removed (or its old folder put back) by the next write."""
from __future__ import annotations

import os

import pytest

from verifier.report import folder as FO


def _snap(d):
    return {n: open(os.path.join(d, n)).read() for n in sorted(os.listdir(d))}


def test_new_files_replace_old_ones_and_the_rest_is_kept(tmp_path):
    out = tmp_path / "out"
    FO.write_together(str(out), {str(out / "a.txt"): "1", str(out / "b.txt"): "1"})
    (out / "other.txt").write_text("mine")
    FO.write_together(str(out), {str(out / "a.txt"): "2", str(out / "b.txt"): b"2"})
    assert _snap(out) == {"a.txt": "2", "b.txt": "2", "other.txt": "mine"}
    assert [n for n in os.listdir(tmp_path) if n != "out"] == []      # nothing left beside


@pytest.mark.parametrize("where", ["write", "exchange", "second-rename"])
def test_an_interruption_at_any_step_leaves_the_old_folder_whole(tmp_path, monkeypatch, where):
    out = tmp_path / "out"
    FO.write_together(str(out), {str(out / "a.txt"): "old", str(out / "b.txt"): "old"})
    calls = {"n": 0}
    if where == "write":
        real = FO._write_file

        def second_write_interrupted(*a):
            calls["n"] += 1
            if calls["n"] == 2:
                raise KeyboardInterrupt
            return real(*a)
        monkeypatch.setattr(FO, "_write_file", second_write_interrupted)
    elif where == "exchange":
        monkeypatch.setattr(FO, "_exchange", lambda a, b: (_ for _ in ()).throw(KeyboardInterrupt))
    else:
        monkeypatch.setattr(FO, "_exchange", lambda a, b: False)      # no RENAME_EXCHANGE
        real_rename = os.rename

        def rename(a, b):
            calls["n"] += 1
            if calls["n"] == 2:                  # between aside and into place
                raise KeyboardInterrupt
            return real_rename(a, b)
        monkeypatch.setattr(FO.os, "rename", rename)
    with pytest.raises(KeyboardInterrupt):
        FO.write_together(str(out), {str(out / "a.txt"): "new", str(out / "b.txt"): "new"})
    monkeypatch.undo()
    assert _snap(out) == {"a.txt": "old", "b.txt": "old"}
    assert [n for n in os.listdir(tmp_path) if n != "out"] == []


def test_a_killed_writer_s_leftovers_are_cleaned_and_its_old_folder_put_back(tmp_path):
    out = tmp_path / "out"
    dead = 2 ** 22 + 12345                        # beyond pid_max: no such process
    stale = tmp_path / f".out.new-{dead}-x"
    stale.mkdir()
    (stale / "a.txt").write_text("half")
    aside = tmp_path / f".out.old-{dead}-y"       # killed between its two renames
    aside.mkdir()
    (aside / "a.txt").write_text("old")
    FO.recover(str(out))
    assert _snap(out) == {"a.txt": "old"} and not stale.exists() and not aside.exists()
    FO.write_together(str(out), {str(out / "b.txt"): "new"})
    assert _snap(out) == {"a.txt": "old", "b.txt": "new"}


def test_the_exchange_swaps_two_folders_in_one_step(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    (a / "x").write_text("a")
    (b / "x").write_text("b")
    if not FO._exchange(str(a), str(b)):
        pytest.skip("renameat2(RENAME_EXCHANGE) not available here")
    assert (a / "x").read_text() == "b" and (b / "x").read_text() == "a"
