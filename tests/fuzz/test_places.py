"""The fuzz suite's new places, one round each (``bench/fuzz.py --minutes N`` runs more)."""

from __future__ import annotations

from pathlib import Path

from tests.fuzz.places import damage_round, filesystem_round, rules_round


def test_mutated_rules_files_are_one_error_and_write_nothing_outside(tmp_path: Path) -> None:
    assert rules_round(0, tmp_path) == []


def test_a_randomly_damaged_dataset_is_one_line_from_every_command(tmp_path: Path) -> None:
    assert damage_round(0, tmp_path) == []


def test_file_system_oddities_are_named_and_every_hand_accounted_for(tmp_path: Path) -> None:
    assert filesystem_round(0, tmp_path) == []
