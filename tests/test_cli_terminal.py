"""Nothing that reorders or rewrites a terminal reaches it raw (issue 30, item 18).

Player names, file names, rules files and refusal reasons come from files anyone
writes.  A right-to-left override (U+202E) shows "Ana\\u202egnp.exe" as
"Anaexe.png"; an escape sequence retitles or clears the terminal.  Every command
prints through ``ofc_stats.cli.text`` (``say``, ``say_lines``, ``echo_data``),
which shows each such character as its escape.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.builders import hand_record, seat_record, write_dataset
from tests.test_cli import run

CLI = Path(__file__).resolve().parents[1] / "ofc_stats" / "cli"
# Bidirectional controls (LRM, RLM, ALM, embeddings, overrides, isolates), zero-width
# and invisible marks, line separators, C0 but the line break, DEL, C1.
HIDDEN = (
    "\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
    "\u200b\u200c\u200d\u2060\ufeff\u180e\ufff9\u2028\u2029\x1b\x07\x9b\x7f\r\t"
)
RAW = re.compile(f"[{re.escape(HIDDEN)}]")


def _hostile(tmp_path: Path) -> Path:
    ana = seat_record(0, "Ana\u202egnp.exe", "Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah")
    bob = seat_record(1, "Bo" + HIDDEN + "b", "Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c")
    return write_dataset(tmp_path, [hand_record(1, (ana, bob))])


def test_every_hidden_character_is_shown_as_its_escape(tmp_path: Path) -> None:
    data = str(_hostile(tmp_path))
    bad = tmp_path / "bad\u202e\u061c.jsonl"
    bad.write_text('{"ofc_format": 1, "room": "R\u202e", "seats": 5}\n{not json \u2067\n')
    rules = tmp_path / "mine.toml"
    rules.write_text('extends = "pineapple"\nname = "mine"\ndescription = "x\u202ey\u061cz"\n')
    commands = {
        "players": ["players", "--data", data],
        "hand": ["hand", "1", "--data", data],
        "sql": ["sql", "SELECT player FROM seats ORDER BY seat", "--data", data],
        "audit": ["audit", "--player", "Ana\u202egnp.exe", "--data", data],
        "import": ["import", "--data", data, "-v", str(bad)],
        "rules": ["rules", str(rules)],
        "score": ["score", "-"],
    }
    shown = {}
    for name, args in commands.items():
        result = run(*args, stdin='{"boards": "\u202e\u061c"}\n')
        out = result.stdout + result.stderr
        assert not RAW.findall(out), (name, sorted({hex(ord(c)) for c in RAW.findall(out)}))
        shown[name] = out
    assert "Ana\\u202egnp.exe" in shown["players"] and "\\u061c" in shown["players"]
    assert "Ana\\u202egnp.exe" in shown["hand"] and "\\u2067" in shown["sql"]
    assert "bad\\u202e\\u061c.jsonl" in shown["import"]
    assert "description: x\\u202ey\\u061cz" in shown["rules"]


def _echo_calls(path: Path) -> list[str]:
    """Where a module calls ``click.echo``/``print`` itself: ``function:line`` each."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef):
            for call in ast.walk(node):
                if not isinstance(call, ast.Call):
                    continue
                func = call.func
                name = ast.unparse(func)
                if name in ("click.echo", "click.secho", "print", "sys.stdout.write"):
                    found.append(f"{node.name}:{call.lineno}")
    return sorted(set(found))


def test_commands_print_only_through_the_text_module() -> None:
    """A new ``click.echo`` of a name would skip the escaping: only ``cli/text.py``
    calls it, besides the report command and ``simulate`` (owned apart; they escape
    their own lines) and the CLI reference's writer (our help text)."""
    apart = {"report.py", "text.py", "reference.py"}
    calls = {p.name: _echo_calls(p) for p in sorted(CLI.glob("*.py")) if p.name not in apart}
    calls["imports.py"] = [c for c in calls["imports.py"] if not c.startswith("simulate:")]
    assert {name: found for name, found in calls.items() if found} == {}
